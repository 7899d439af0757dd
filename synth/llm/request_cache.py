"""A request cache: finished LLM calls in SQLite, keyed by a hash of backend, model, messages and
sampling, so a resumed or repeated run replays them instead of asking the model again.

Answers are stored, never the messages (so the file stays small, and holds no prompt text)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from synth.kv_store import KeyValueStore
from synth.llm.base import ChatBackend, Completion, Message, ModelInfo


def request_key(backend: ChatBackend, messages: list[Message], sampling: dict[str, Any]) -> str:
    """sha256 over what decides the answer: backend, model (and its digest), messages and sampling."""
    info = backend.model_info
    blob = json.dumps([backend.name, info.name, info.sha256, messages, sampling], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()


class RequestCache:
    """SQLite: key -> the Completion of a finished call."""

    def __init__(self, path: Path):
        self.path = path
        self._store = KeyValueStore(path, "completion")

    def get(self, key: str) -> Completion | None:
        value = self._store.get(key)
        return Completion(**json.loads(value)) if value is not None else None

    def put(self, key: str, completion: Completion) -> None:
        self._store.put(key, json.dumps(asdict(completion)))

    def close(self) -> None:
        self._store.close()


class CachedBackend:
    """Any ChatBackend behind a RequestCache; counts hits and misses."""

    def __init__(self, inner: ChatBackend, cache: RequestCache):
        self.inner, self.cache = inner, cache
        self.name = inner.name
        self.hits = self.misses = 0

    @property
    def model_info(self) -> ModelInfo:
        return self.inner.model_info

    async def complete(self, messages: list[Message], *, max_tokens: int, **sampling: Any) -> Completion:
        given = {name: value for name, value in sampling.items() if value is not None}
        key = request_key(self.inner, messages, {"max_tokens": max_tokens, **given})
        cached = self.cache.get(key)
        if cached is not None:
            self.hits += 1
            return cached
        completion = await self.inner.complete(messages, max_tokens=max_tokens, **sampling)
        self.cache.put(key, completion)
        self.misses += 1
        return completion

    async def check(self) -> None:
        await self.inner.check()

    async def aclose(self) -> None:
        self.cache.close()
        await self.inner.aclose()
