"""The configured LLM, zero-shot: it lists the movies to suggest next (ranked in its order, matched to the
item space by title and year; unlisted items are not ranked) or writes the recommender's next message.
Calls go through the request cache, so a re-run costs nothing; a failed call is an empty answer, counted."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from synth.benchmarks.crs.baselines.base import Setup, Untrained
from synth.benchmarks.crs.cases import RecommendationCase, ResponseCase
from synth.benchmarks.crs.datasets import Utterance
from synth.errors import SynthError
from synth.llm.base import Message
from synth.progress import progress_bar
from synth.prompting import PromptSet

LIST_LENGTH = 10
CONTEXT_UTTERANCES = 10
RECOMMEND_TOKENS, RESPOND_TOKENS = 200, 80
_LIST_MARK = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s*")
REQUESTS_FILE = "llm_requests.sqlite"


class _LlmBaseline(Untrained):
    batch_size: int | None = None  # every case in one batch: one event loop, one backend

    def __init__(self, setup: Setup):
        self.setup = setup
        self.prompts = PromptSet.load(mode="benchmark")
        self.usage = {"calls": 0, "failed": 0, "prompt_tokens": 0, "completion_tokens": 0}

    def _messages(self, template: str, context: Sequence[Utterance]) -> list[Message]:
        prompt = self.prompts.render(template, context=context[-CONTEXT_UTTERANCES:], k=LIST_LENGTH)
        return [{"role": "user", "content": prompt}]

    def _ask(self, conversations: list[list[Message]], max_tokens: int) -> list[str]:
        return asyncio.run(self._ask_all(conversations, max_tokens))

    async def _ask_all(self, conversations: list[list[Message]], max_tokens: int) -> list[str]:
        from synth.llm.factory import make_backend
        from synth.llm.request_cache import CachedBackend, RequestCache

        inner = make_backend(self.setup.llm)
        backend: Any = inner
        if self.setup.cache_dir is not None:
            self.setup.cache_dir.mkdir(parents=True, exist_ok=True)
            backend = CachedBackend(inner, RequestCache(self.setup.cache_dir / REQUESTS_FILE))
        limit = asyncio.Semaphore(self.setup.llm.concurrency)
        try:
            await backend.check()
            label = f"{self.name}: {self.setup.llm.backend}"
            with progress_bar(self.setup.progress, label, transient=True) as progress:
                task = progress.add_task("", total=len(conversations))

                async def one(messages: list[Message]) -> str:
                    async with limit:
                        try:
                            done = await backend.complete(messages, max_tokens=max_tokens, temperature=0.0,
                                                          seed=self.setup.seed)
                        except SynthError:
                            self.usage["failed"] += 1
                            return ""
                        finally:
                            progress.advance(task)
                    self.usage["calls"] += 1
                    self.usage["prompt_tokens"] += done.prompt_tokens
                    self.usage["completion_tokens"] += done.completion_tokens
                    return done.text

                return list(await asyncio.gather(*(one(m) for m in conversations)))
        finally:
            await backend.aclose()


class LlmRecommender(_LlmBaseline):
    name = "llm-rec"

    def score_batch(self, cases: Sequence[RecommendationCase]) -> np.ndarray:
        space = self.setup.space
        answers = self._ask([self._messages("benchmark_recommend", c.context) for c in cases], RECOMMEND_TOKENS)
        scores = np.full((len(cases), len(space)), -np.inf, dtype=np.float32)
        for row, answer in enumerate(answers):
            for rank, item_id in enumerate(listed_items(answer, space.find)):
                scores[row, space.row(item_id)] = LIST_LENGTH - rank
        return scores


class LlmResponder(_LlmBaseline):
    name = "llm-response"

    def respond(self, cases: Sequence[ResponseCase]) -> list[str]:
        answers = self._ask([self._messages("benchmark_respond", c.context) for c in cases], RESPOND_TOKENS)
        return [" ".join(answer.removeprefix("Recommender:").split()) for answer in answers]


def listed_items(answer: str, find: Any) -> list[str]:
    """The distinct item ids of an answer's list lines, in order (lines naming no known item are skipped)."""
    found: dict[str, None] = {}
    for line in answer.splitlines():
        name = _LIST_MARK.sub("", line).strip().strip("\"'*")
        item_id = find(name) if name else None
        if item_id is not None:
            found.setdefault(item_id)
    return list(found)[:LIST_LENGTH]
