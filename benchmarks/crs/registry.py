"""The baseline registry: name -> class for each task (as `synth.llm.factory.BACKENDS`,
`synth.retrievers.factory.RETRIEVERS` and the filter registries of `synth.filters.config`), and the groups
`--models` accepts. A class in both registries (the `lm-crs` models) is trained once and scored on both tasks."""

from __future__ import annotations

from synth.benchmarks.crs.baselines.cooccurrence import CoOccurrence
from synth.benchmarks.crs.baselines.llm import LlmRecommender, LlmResponder
from synth.benchmarks.crs.baselines.lm_crs import LmCrs, LmCrsZeroShot
from synth.benchmarks.crs.baselines.neural import NeuralRecommender
from synth.benchmarks.crs.baselines.popularity import Popularity
from synth.benchmarks.crs.baselines.rankers import DenseRanker, TfidfRanker
from synth.benchmarks.crs.baselines.retrieval import BM25Recommender, DenseRecommender
from synth.benchmarks.crs.baselines.seq2seq import Seq2SeqResponder
from synth.errors import SynthError

RECOMMENDERS: dict[str, type] = {
    cls.name: cls
    for cls in (Popularity, CoOccurrence, BM25Recommender, DenseRecommender, NeuralRecommender, LlmRecommender,
                LmCrs, LmCrsZeroShot)
}
RESPONDERS: dict[str, type] = {
    cls.name: cls for cls in (TfidfRanker, DenseRanker, Seq2SeqResponder, LlmResponder, LmCrs, LmCrsZeroShot)
}
LLM = ["llm-rec", "llm-response"]
LM = ["lm-crs", "lm-crs-zero-shot"]
SAMPLED = LLM + LM  # scored on a seeded sample of --llm-cases cases: each answer is generated
UNTRAINED_TWINS = {LmCrs.name: LmCrsZeroShot.name}  # a trained model -> the same model untrained: what training adds
GROUPS: dict[str, list[str]] = {
    "rec": [n for n in RECOMMENDERS if n not in SAMPLED],
    "response": [n for n in RESPONDERS if n not in SAMPLED],
    "llm": LLM,
    "lm": LM,
    "all": list(dict.fromkeys([*RECOMMENDERS, *RESPONDERS])),
}
GROUPS["default"] = GROUPS["rec"] + GROUPS["response"]


def resolve_models(names: list[str]) -> list[str]:
    """Model and group names (comma-separated or repeated) -> distinct model names, in order."""
    chosen: dict[str, None] = {}
    for name in (n.strip() for part in names for n in part.split(",")):
        if not name:
            continue
        if name in GROUPS:
            chosen.update(dict.fromkeys(GROUPS[name]))
        elif name in RECOMMENDERS or name in RESPONDERS:
            chosen[name] = None
        else:
            known = ", ".join([*GROUPS, *GROUPS["all"]])
            raise SynthError(f"unknown model '{name}'; known models and groups: {known}")
    return list(chosen)


def tasks_of(name: str) -> list[str]:
    """The tasks a model is scored on: recommendation, response or both."""
    return [task for task, registry in (("recommendation", RECOMMENDERS), ("response", RESPONDERS)) if name in registry]


def baseline_class(name: str) -> type:
    return RECOMMENDERS.get(name) or RESPONDERS[name]
