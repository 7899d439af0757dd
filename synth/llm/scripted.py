"""A scripted backend for unit tests of game logic: answers come from a Python function, not a model."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from synth.llm.base import Completion, Message, ModelInfo

Script = Callable[[list[Message], dict[str, Any] | None], str]


class ScriptedBackend:
    """Calls `script(messages, json_schema)` for each completion; token counts are word counts."""

    name = "scripted"

    def __init__(self, script: Script):
        self._script = script
        self.calls: list[list[Message]] = []

    @property
    def model_info(self) -> ModelInfo:
        return ModelInfo(name="scripted", source="scripted")

    async def check(self) -> None:
        return None

    async def complete(
        self,
        messages: list[Message],
        *,
        max_tokens: int,
        temperature: float = 0.0,
        seed: int | None = None,
        stop: list[str] | None = None,
        grammar: str | None = None,
        json_schema: dict[str, Any] | None = None,
    ) -> Completion:
        self.calls.append(messages)
        text = self._script(messages, json_schema)
        prompt_words = sum(len(m["content"].split()) for m in messages)
        return Completion(text, prompt_words, len(text.split()), "stop")

    async def aclose(self) -> None:
        return None
