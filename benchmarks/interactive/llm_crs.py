"""synth's own LLM recommender as a CRS (`--crs synth-llm`): the recommender simulator of `synth generate`,
given the top candidates of a BM25 retriever over the catalog for the conversation so far, as in a PEARL
game (its first turn asks; then it recommends one of the candidates it is shown). Its ranking is the
retriever's, the item it chose first."""

from __future__ import annotations

from collections.abc import Sequence

from synth.benchmarks.crs.items import ItemSpace
from synth.benchmarks.interactive.crs import RANKED, CrsReply, Message
from synth.retrievers.factory import build_retriever
from synth.simulators import Line, Recommender, Usage

CANDIDATES = 3  # what the recommender is shown each turn (PEARL's first k)


class SynthLlmCrs:
    """The recommender simulator over a BM25 retriever of the catalog."""

    name = "synth-llm"

    def __init__(self, recommender: Recommender, space: ItemSpace, ask_turns: int = 1, seed: int = 0):
        catalog = {i: item for i, item in space.items.items() if not i.startswith("title:")}
        self.recommender, self.space, self.ask_turns, self.seed = recommender, space, ask_turns, seed
        self.retriever = build_retriever("bm25", catalog)
        self.pool = set(catalog)
        self.system = recommender.system_prompt()
        self.usage = Usage()

    async def respond(self, case_id: str, conversation: Sequence[Message], mentioned: Sequence[str]) -> CrsReply:
        query = " ".join(m.text for m in conversation)
        found = self.retriever.search(query, self.pool - set(mentioned), RANKED)
        ranking = [c.item_id for c in found]
        asks = sum(m.role == "recommender" for m in conversation) < self.ask_turns
        candidates = None if asks else [self.space.items[i] for i in ranking[:CANDIDATES]]
        lines = [Line(m.text, own=m.role == "recommender") for m in conversation]
        reply = await self.recommender.reply(self.system, lines, candidates=candidates, usage=self.usage,
                                             seed=self.seed + len(conversation))
        if reply.item_id in ranking:
            ranking.remove(reply.item_id)
            ranking.insert(0, reply.item_id)
        return CrsReply(reply.utterance, tuple(ranking), reply.item_id)

    async def aclose(self) -> None:
        return None  # the backend is the seeker's, closed with it
