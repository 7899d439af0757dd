"""A scripted backend for unit tests of game logic: answers come from a Python function, not a model."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from synth.llm.base import Completion, Message, ModelInfo

RECOMMENDER_SYSTEM = re.compile(r"You are a friendly [\w ]+ recommender\b")  # prompts/recommender_system.j2
PLAIN_SENTENCE = re.compile(r'Said plainly, that is: "(.*)" Now say it')  # prompts/word_turn.j2

Script = Callable[[list[Message], dict[str, Any] | None], str]


class ScriptedBackend:
    """Calls `script(messages, json_schema)` for each completion; token counts are word counts."""

    name = "scripted"

    def __init__(self, script: Script, *, keep_calls: bool = True):
        self._script, self._keep_calls = script, keep_calls
        self.calls: list[list[Message]] = []  # every call's messages, for assertions (keep_calls=False: none)

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
        if self._keep_calls:
            self.calls.append(messages)
        text = self._script(messages, json_schema)
        prompt_words = sum(len(m["content"].split()) for m in messages)
        return Completion(text, prompt_words, len(text.split()), "stop")

    async def aclose(self) -> None:
        return None


def rule_following_script(messages: list[dict[str, str]], schema: dict[str, Any] | None) -> str:
    """A seeker that accepts exactly when told the suggestion is its target; a recommender that picks the
    last candidate (where a forced target lands) and otherwise asks; in decided wording, each turn says its
    content's plain sentence."""
    if plain := PLAIN_SENTENCE.search(messages[-1]["content"]):
        return json.dumps({"utterance": plain.group(1)})
    props = (schema or {}).get("properties", {})
    thinks = {"think": "fits"} if "think" in props else {}
    if "item" in props:
        choice = props["item"]["enum"][-1]
        return json.dumps({**thinks, "item": choice, "utterance": f"You might like {choice}."})
    if "think" in props or RECOMMENDER_SYSTEM.match(messages[0]["content"]):
        return json.dumps({**({"think": "need more"} if thinks else {}), "utterance": "What mood are you in?"})
    if "accept" in props:
        accept = re.search(r"this is the [\w ]+ you hoped for", messages[-1]["content"]) is not None
        return json.dumps({"utterance": "Sounds great!" if accept else "Not for me.", "accept": accept})
    return json.dumps({"utterance": "I like smart, moody films."})
