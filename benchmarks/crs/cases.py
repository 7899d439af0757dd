"""Evaluation and training cases cut from conversations.

Recommendation: at each recommender utterance (after the first utterance) that mentions an item, one case per
item it mentions: the dialogue so far is the context, the item the target. With `exclude_mentioned`, an item
mentioned earlier in the dialogue is neither a target nor a candidate. Response: each recommender utterance
after the first is a reference for the dialogue before it."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from synth.benchmarks.crs.datasets import Conversation, Utterance

T = TypeVar("T")


@dataclass(frozen=True)
class RecommendationCase:
    dialogue_id: str
    context: tuple[Utterance, ...]
    target: str
    mentioned: tuple[str, ...]  # catalog ids mentioned before, in order, distinct

    def text(self, max_words: int | None = None) -> str:
        return context_text(self.context, max_words)


@dataclass(frozen=True)
class ResponseCase:
    dialogue_id: str
    context: tuple[Utterance, ...]
    reference: str

    def text(self, max_words: int | None = None) -> str:
        return context_text(self.context, max_words)


def context_text(context: Sequence[Utterance], max_words: int | None = None) -> str:
    """The utterances joined; with `max_words`, only the latest words (the latest turns matter most)."""
    text = " ".join(u.text for u in context)
    if max_words is None:
        return text
    return " ".join(text.split()[-max_words:])


def recommendation_cases(conversations: Iterable[Conversation], exclude_mentioned: bool = False) -> list[RecommendationCase]:
    cases = []
    for conversation in conversations:
        seen: dict[str, None] = {}
        turns = conversation.utterances
        for index, utterance in enumerate(turns):
            if utterance.role == "recommender" and index > 0:
                for item in utterance.items:
                    if exclude_mentioned and item in seen:
                        continue
                    cases.append(RecommendationCase(conversation.id, turns[:index], item, tuple(seen)))
            seen.update(dict.fromkeys(utterance.items))
    return cases


def response_cases(conversations: Iterable[Conversation]) -> list[ResponseCase]:
    return [
        ResponseCase(conversation.id, conversation.utterances[:index], utterance.text)
        for conversation in conversations
        for index, utterance in enumerate(conversation.utterances)
        if utterance.role == "recommender" and index > 0 and utterance.text.strip()
    ]


def sample(cases: Sequence[T], size: int | None, seed: int) -> list[T]:
    """A seeded sample of `size` cases in their original order (all of them when `size` is None or larger)."""
    if size is None or size >= len(cases):
        return list(cases)
    return [cases[i] for i in sorted(random.Random(seed).sample(range(len(cases)), size))]
