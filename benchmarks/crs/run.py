"""`synth benchmark`: every chosen baseline trained on each training set and scored on each test set."""

from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from rich.console import Console

from synth.benchmarks.crs.baselines.base import Setup, TrainingData
from synth.benchmarks.crs.cache import fit_or_load
from synth.benchmarks.crs.cases import (
    RecommendationCase,
    ResponseCase,
    recommendation_cases,
    response_cases,
    sample,
)
from synth.benchmarks.crs.datasets import BenchmarkDataset, describe, load_dataset, parse_specs
from synth.benchmarks.crs.evaluate import distinct_metrics, recommendation_metrics, score_responder, target_ranks
from synth.benchmarks.crs.items import ItemSpace
from synth.benchmarks.crs.lm.settings import LmSettings
from synth.benchmarks.crs.planted import instrument, planted_sets
from synth.benchmarks.crs.registry import LLM, LM, SAMPLED, UNTRAINED_TWINS, baseline_class, tasks_of
from synth.benchmarks.crs.significance import (
    RowValues,
    compare_training_sets,
    intervals,
    ranking_values,
    response_values,
)
from synth.config import BackendConfig
from synth.errors import SynthError


@dataclass
class BenchmarkOptions:
    """What `run_benchmark` trains and scores, and how."""

    train: list[str]
    test: list[str]
    models: list[str]
    exclude_mentioned: bool = False
    crslab_compat: bool = False
    max_cases: int | None = None  # per test set and task, a seeded sample
    train_size: int | None = None  # each training set a seeded sample of this many dialogues
    planted: bool = False  # the one training set as the instrument's half / both / shuffled (synth.benchmarks.crs.planted)
    llm_cases: int = 50  # the LLM and LM baselines' seeded sample per test set and task
    seed: int = 0
    embedding_model: str | None = None
    llm: BackendConfig = field(default_factory=BackendConfig)
    lm: LmSettings = field(default_factory=LmSettings)
    cache_dir: Path | None = None
    refit: bool = False
    progress: bool = True
    format: str | None = None


@dataclass
class TestSet:
    dataset: BenchmarkDataset
    recommendation: list[RecommendationCase]
    responses: list[ResponseCase]


def run_benchmark(
    settings: BenchmarkOptions, space: ItemSpace | None = None, *, console: Console | None = None
) -> dict[str, Any]:
    """The results document: settings, datasets (sizes, item mapping) and one entry per model x train x test.
    Each model's name and training set are announced on `console` when the caller gives one."""
    space = space or ItemSpace.movielens()
    train_sets = [sized(load_dataset(spec, space, settings.seed), settings.train_size, settings.seed)
                  for spec in parse_specs(settings.train, settings.format)]
    test_sets = [load_dataset(spec, space, settings.seed) for spec in parse_specs(settings.test, settings.format)]
    if settings.planted:
        if len(train_sets) != 1:
            raise SynthError(f"--planted splits one training set; {len(train_sets)} were given")
        train_sets = planted_sets(train_sets[0], settings.seed)
    # Every title is in the space now: its size is fixed from here on.
    setup = Setup(space, settings.seed, settings.embedding_model, settings.llm, settings.progress, settings.cache_dir,
                  settings.lm)
    training = [
        TrainingData(d.label, d.fingerprint, d.conversations, recommendation_cases(d.conversations),
                     response_cases(d.conversations))
        for d in train_sets
    ]
    tests = [
        TestSet(
            d,
            sample(recommendation_cases(d.conversations, settings.exclude_mentioned), settings.max_cases, settings.seed),
            sample(response_cases(d.conversations), settings.max_cases, settings.seed),
        )
        for d in test_sets
    ]
    results: list[dict[str, Any]] = [
        {"task": "response", "model": "references", "train": None, "test": t.dataset.label, "cases": len(t.responses),
         "metrics": distinct_metrics([c.reference for c in t.responses], crslab_compat=settings.crslab_compat)}
        for t in tests
    ]
    scored: list[RowValues] = []
    for name in settings.models:
        cls = baseline_class(name)
        for data in training if cls.trains else [None]:
            if console is not None:
                console.print(f"[bold]{name}[/bold] " + (f"on {data.label}" if data else "(no training)"))
            started, cached = time.perf_counter(), False  # building counts: item embeddings, a loaded model
            model = cls(setup)
            if data is not None:
                cached = fit_or_load(model, data, setup, refit=settings.refit)
            fit = {"train": data.label if data else None, "fit_s": round(time.perf_counter() - started, 2),
                   "cached": cached}
            if getattr(model, "training_record", None):  # how the fit went (lm-crs: steps, loss, memory)
                fit["training"] = model.training_record
            for test in tests:
                for task in tasks_of(name):
                    entry, values = _score(name, task, model, test, settings, space)
                    results.append(entry | fit)
                    scored.append(RowValues(task, name, fit["train"], test.dataset.label, values))
    comparisons = compare_training_sets(scored, settings.seed, UNTRAINED_TWINS)
    return {
        "settings": _settings_record(settings, space),
        "datasets": {"train": describe(train_sets), "test": describe(test_sets)},
        "training_cases": {t.label: {"recommendation": len(t.recommendation), "response": len(t.responses)} for t in training},
        "test_cases": {t.dataset.label: {"recommendation": len(t.recommendation), "response": len(t.responses)} for t in tests},
        "target_coverage": target_coverage(training, tests),
        "results": results,
        "comparisons": comparisons,
        **({"planted": instrument(comparisons)} if settings.planted else {}),
    }


def sized(dataset: BenchmarkDataset, size: int | None, seed: int) -> BenchmarkDataset:
    """A seeded sample of `size` of the dataset's dialogues (all of them when `size` is None), so that training
    sets of equal size compare their data dialogue for dialogue; a set with fewer is an error."""
    if size is None:
        return dataset
    if len(dataset.conversations) < size:
        raise SynthError(f"training set '{dataset.label}' has {len(dataset.conversations):,} dialogues, fewer than "
                         f"--train-size {size:,}")
    chosen = sorted(random.Random(f"train-size-{seed}").sample(range(len(dataset.conversations)), size))
    return replace(dataset, conversations=[dataset.conversations[i] for i in chosen],
                   fingerprint=f"{dataset.fingerprint}:{size}:{seed}")


def target_coverage(training: list[TrainingData], tests: list[TestSet]) -> dict[str, dict[str, float]]:
    """Per training set and test set, the share of test recommendation targets that some training case has as
    its target: what a model that learns items from its training set can hope to get right."""
    coverage = {}
    for data in training:
        known = {case.target for case in data.recommendation}
        coverage[data.label] = {
            test.dataset.label: round(sum(c.target in known for c in test.recommendation) / len(test.recommendation), 4)
            if test.recommendation else 0.0
            for test in tests
        }
    return coverage


def _score(name: str, task: str, model: Any, test: TestSet, settings: BenchmarkOptions, space: ItemSpace
           ) -> tuple[dict[str, Any], dict[str, list[float]]]:
    """One row's metrics (with 95% intervals of its key metrics) and the key metrics' per-case values."""
    cases = test.recommendation if task == "recommendation" else test.responses
    if name in SAMPLED:
        cases = sample(cases, settings.llm_cases, settings.seed)
    usage = dict(model.usage) if hasattr(model, "usage") else None  # the LLM's tokens for this test set alone
    started = time.perf_counter()
    entry: dict[str, Any] = {"task": task, "model": name, "test": test.dataset.label, "cases": len(cases)}
    if task == "recommendation":
        ranks = target_ranks(model, cases, space, exclude_mentioned=settings.exclude_mentioned,
                             description=f"{name} on {test.dataset.label}", progress=settings.progress)
        entry["metrics"], values = recommendation_metrics(ranks), ranking_values(ranks)
    else:
        entry["metrics"], answers = score_responder(model, cases, crslab_compat=settings.crslab_compat)
        values = response_values(answers, [c.reference for c in cases])
        entry["examples"] = [{"context": c.context[-1].text, "reference": c.reference, "answer": a}
                             for c, a in list(zip(cases, answers))[:3]]
    entry["ci95"] = intervals(values, settings.seed)
    entry["eval_s"] = round(time.perf_counter() - started, 2)
    if usage is not None:
        entry["llm_usage"] = {key: value - usage[key] for key, value in model.usage.items()}
    return entry, values


def _settings_record(settings: BenchmarkOptions, space: ItemSpace) -> dict[str, Any]:
    llm = settings.llm.model_dump(include={"backend", "model", "base_url", "concurrency"})
    return {
        "models": settings.models,
        "exclude_mentioned": settings.exclude_mentioned,
        "crslab_compat": settings.crslab_compat,
        "max_cases": settings.max_cases,
        "train_size": settings.train_size,
        "planted": settings.planted,
        "llm_cases": settings.llm_cases,
        "seed": settings.seed,
        "embedding_model": settings.embedding_model,
        "llm": llm if any(m in LLM for m in settings.models) else None,
        "lm": asdict(settings.lm) | {"learning_rate": settings.lm.rate} if any(m in LM for m in settings.models) else None,
        "item_space": {"items": len(space), "movielens": space.reference_size, "title_only": len(space) - space.reference_size},
    }
