"""Score retrievers on retrieval cases: recall@1/3/10, MRR@100, queries per second."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

from synth.analysis.metrics.ranking import mrr, rank_of, recall_at
from synth.benchmarks.retrieval.tasks import RetrievalCase
from synth.progress import track
from synth.retrievers.base import Retriever

DEPTH = 100  # ranks below this count as misses


@dataclass
class RetrieverScore:
    task: str
    retriever: str
    cases: int
    recall_1: float
    recall_3: float
    recall_10: float
    mrr: float
    queries_per_s: float
    build_s: float

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def case_pool(case: RetrievalCase, catalog_ids: frozenset[str], pool_size: int | None, seed: int, index: int) -> set[str]:
    """The catalog less the items mentioned before; with `pool_size`, a seeded sample that keeps the target."""
    pool = catalog_ids - case.exclude
    if pool_size is None or pool_size >= len(pool):
        return pool
    others = sorted(pool - {case.target})
    return {case.target, *random.Random(f"{seed}:{index}").sample(others, pool_size - 1)}


def score_retriever(
    task: str,
    name: str,
    build: Callable[[], Retriever],
    cases: Sequence[RetrievalCase],
    catalog_ids: Sequence[str],
    *,
    pool_size: int | None = None,
    seed: int = 0,
    progress: bool = True,
) -> RetrieverScore:
    """Build the retriever (timed), then rank each case's pool; only `search` counts toward queries/s."""
    started = time.perf_counter()
    retriever = build()
    build_s = time.perf_counter() - started
    ranks: list[int | None] = []
    searching = 0.0
    catalog = frozenset(catalog_ids)  # once, not per case
    for index, case in enumerate(track(cases, f"{task}: {name}", progress)):
        pool = case_pool(case, catalog, pool_size, seed, index)
        started = time.perf_counter()
        ranked = retriever.search(case.query, pool, DEPTH)
        searching += time.perf_counter() - started
        ranks.append(rank_of(case.target, [s.item_id for s in ranked]))
    return RetrieverScore(
        task=task,
        retriever=name,
        cases=len(cases),
        recall_1=recall_at(ranks, 1),
        recall_3=recall_at(ranks, 3),
        recall_10=recall_at(ranks, 10),
        mrr=mrr(ranks, DEPTH),
        queries_per_s=len(cases) / searching if searching else 0.0,
        build_s=build_s,
    )
