"""The conversational recommenders under test, behind one interface: given the conversation so far, one reply
(an utterance) and a ranking of catalog items, best first. Here the local ones: each recommendation baseline
of `synth benchmark` in a conversational shell, the sanity systems `oracle` and `random`, and the degraded
twins `--validate` plays beside a CRS (its ranking shuffled; popularity is the baseline of that name).
The remote ones (an OpenAI-compatible chat model, the HTTP protocol) are in .remote."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from synth.benchmarks.crs.baselines.base import Recommender
from synth.benchmarks.crs.cases import RecommendationCase
from synth.benchmarks.crs.datasets import Utterance
from synth.benchmarks.crs.items import ItemSpace
from synth.records import Item

RANKED = 50  # items a ranking keeps (Recall@50 is the deepest cut scored)
ASK = "What kind of movies do you like? Tell me about one you loved."


@dataclass(frozen=True)
class Message:
    """One message of the conversation as a CRS sees it."""

    role: str  # "seeker" | "recommender"
    text: str
    items: tuple[str, ...] = ()  # catalog ids it names, where known


@dataclass(frozen=True)
class CrsReply:
    """A CRS's turn: what it says, its ranking (catalog ids, best first) and the item its words recommend
    (None: a turn without a recommendation, such as a question)."""

    utterance: str
    ranking: tuple[str, ...]
    recommended: str | None = None


class Crs(Protocol):
    """What `synth evaluate` talks to."""

    name: str

    async def respond(self, case_id: str, conversation: Sequence[Message], mentioned: Sequence[str]) -> CrsReply:
        """The next reply; `mentioned`: items named so far, which a recommendation should not repeat."""
        ...

    async def aclose(self) -> None: ...


def recommend_sentence(item: Item) -> str:
    """The shell's words for a recommendation: the title, then what kind of movie it is."""
    kind = " and ".join(g.lower() for g in item.genres[:2])
    article = "an" if kind[:1] in ("a", "e", "i", "o", "u") else "a"
    return f"How about {item.display}? It's {article} {kind} film you might enjoy." if kind else \
        f"How about {item.display}? It's a film you might enjoy."


def top_unmentioned(scores: np.ndarray, space: ItemSpace, mentioned: Sequence[str], k: int = RANKED) -> tuple[str, ...]:
    """The `k` best-scored ids of the space, leaving out the mentioned ones and the unranked (-inf)."""
    skip = {space.row(i) for i in mentioned if i in space.items}
    ids = space.ids
    order = np.argsort(-scores, kind="stable")
    return tuple(ids[row] for row in order if row not in skip and scores[row] != -np.inf)[:k]


class BaselineCrs:
    """A recommendation baseline in a conversational shell: its first turn asks about the seeker's taste, each
    later turn recommends its top unmentioned item with a sentence. Every turn's ranking is scored."""

    def __init__(self, model: Recommender, space: ItemSpace, name: str | None = None, ask_turns: int = 1):
        self.model, self.space, self.name, self.ask_turns = model, space, name or model.name, ask_turns

    async def respond(self, case_id: str, conversation: Sequence[Message], mentioned: Sequence[str]) -> CrsReply:
        context = tuple(Utterance(m.role, m.text, m.items) for m in conversation)  # type: ignore[arg-type]
        case = RecommendationCase(case_id, context, "", tuple(mentioned))
        ranking = top_unmentioned(self.model.score_batch([case])[0], self.space, mentioned)
        turns = sum(m.role == "recommender" for m in conversation)
        if turns < self.ask_turns or not ranking:
            return CrsReply(ASK, ranking)
        return CrsReply(recommend_sentence(self.space.items[ranking[0]]), ranking, ranking[0])

    async def aclose(self) -> None:
        return None


class OracleCrs:
    """Knows every case's target and recommends it at once: the ceiling, and a check of the scoring."""

    name = "oracle"

    def __init__(self, targets: Mapping[str, str], space: ItemSpace):
        self.targets, self.space = targets, space

    async def respond(self, case_id: str, conversation: Sequence[Message], mentioned: Sequence[str]) -> CrsReply:
        target = self.targets[case_id]
        return CrsReply(recommend_sentence(self.space.items[target]), (target,), target)

    async def aclose(self) -> None:
        return None


class RandomCrs:
    """Recommends items drawn at random (seeded per case and turn) from the catalog: the floor."""

    name = "random"

    def __init__(self, space: ItemSpace, seed: int = 0, ids: Sequence[str] | None = None):
        self.space, self.seed = space, seed
        self.ids = list(ids if ids is not None else [i for i in space.ids if not i.startswith("title:")])

    async def respond(self, case_id: str, conversation: Sequence[Message], mentioned: Sequence[str]) -> CrsReply:
        rng = random.Random(f"{self.seed}-{case_id}-{len(conversation)}")
        skip = set(mentioned)
        ranking: list[str] = []
        while len(ranking) < min(RANKED, len(self.ids) - len(skip)):
            item = rng.choice(self.ids)
            if item not in skip and item not in ranking:
                ranking.append(item)
        top = ranking[0] if ranking else None
        return CrsReply(recommend_sentence(self.space.items[top]) if top else ASK, tuple(ranking), top)

    def expected(self, turns: int) -> dict[str, float]:
        """What chance alone gives over `turns` turns (the mentioned items, a handful, left aside): success
        when one of its recommendations is the target, Recall@k when the target is in one of its top k."""
        size = len(self.ids)
        return {"success": round(1 - (1 - 1 / size) ** turns, 5),
                **{f"recall@{k}": round(1 - (1 - k / size) ** turns, 5) for k in (1, 10, 50)}}

    async def aclose(self) -> None:
        return None


class ShuffledTwin:
    """A CRS with its ranking shuffled (seeded per case and turn): it still talks, but its order is noise. It
    recommends the new top item where the CRS recommended."""

    def __init__(self, crs: Crs, space: ItemSpace, seed: int = 0):
        self.crs, self.space, self.seed = crs, space, seed
        self.name = f"{crs.name} (shuffled)"

    async def respond(self, case_id: str, conversation: Sequence[Message], mentioned: Sequence[str]) -> CrsReply:
        reply = await self.crs.respond(case_id, conversation, mentioned)
        ranking = list(reply.ranking)
        random.Random(f"shuffle-{self.seed}-{case_id}-{len(conversation)}").shuffle(ranking)
        if reply.recommended is None or not ranking:
            return replace(reply, ranking=tuple(ranking))
        return CrsReply(recommend_sentence(self.space.items[ranking[0]]), tuple(ranking), ranking[0])

    async def aclose(self) -> None:
        await self.crs.aclose()
