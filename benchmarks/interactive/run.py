"""`synth evaluate`: the cases, the CRSs (and, with --validate, their degraded twins), one conversation per
case and CRS, and the results. Each CRS writes its conversations to a folder of its own as they finish
(dialogues.jsonl, which `stats`, `filter` and `report` read, and conversations.jsonl with the ranks), so the
same command resumes where it stopped."""

from __future__ import annotations

import asyncio
import json
import re
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from synth.analysis.stats.corpus import resolve_spec
from synth.benchmarks.crs.baselines.base import Setup, TrainingData
from synth.benchmarks.crs.baselines.popularity import Popularity
from synth.benchmarks.crs.cache import fit_or_load
from synth.benchmarks.crs.cases import recommendation_cases, response_cases
from synth.benchmarks.crs.datasets import load_dataset, parse_specs
from synth.benchmarks.crs.evaluate import score_recommender
from synth.benchmarks.crs.items import ItemSpace
from synth.benchmarks.crs.registry import LLM, RECOMMENDERS
from synth.benchmarks.interactive.cases import (
    CaseReport,
    EvalCase,
    human_cases,
    run_cases,
    sample_cases,
    target_free_cases,
)
from synth.benchmarks.interactive.conversation import MODES, Conversation, converse
from synth.benchmarks.interactive.crs import BaselineCrs, Crs, Message, OracleCrs, RandomCrs, ShuffledTwin
from synth.benchmarks.interactive.llm_crs import SynthLlmCrs
from synth.benchmarks.interactive.metrics import scores, separated
from synth.benchmarks.interactive.remote import ChatModelCrs, CrsError, HttpCrs
from synth.config import BackendConfig
from synth.data.sources import load_movielens_only
from synth.datasets import detect_format, load_dialogues
from synth.errors import SynthError
from synth.llm.base import ChatBackend
from synth.llm.factory import make_backend
from synth.llm.request_cache import CachedBackend, RequestCache
from synth.progress import progress_bar
from synth.prompting import PromptSet
from synth.runs.layout import REQUESTS_FILE
from synth.runs.records import load_records
from synth.simulators import Recommender, Sampling, Seeker

SANITY = ("oracle", "random")
# --validate compares a CRS and each twin on these: success (what a shuffled twin's order costs; Recall@k counts
# the target in any turn's top k, and a ranking reshuffled every turn gets that many draws) and Recall@10
VALIDATION_METRICS = ("success", "recall@10")
SYNTH_LLM = "synth-llm"
PROBE = [Message("seeker", "Hi! I'd like a movie for tonight.")]


@dataclass
class EvaluateOptions:
    """What `run_evaluation` plays and how."""

    crs: list[str]
    test: str
    out: Path
    train: str | None = None
    n: int | None = 30
    turns: int = 3
    warm_start: bool = True
    mode: str = "target"  # target | attributes | target-free (synth.benchmarks.interactive.conversation)
    validate: bool = False
    seed: int = 0
    concurrency: int = 4
    seeker: BackendConfig = field(default_factory=BackendConfig)
    crs_model: str | None = None
    reply_resamples: int = 2
    max_tokens: int = 160
    cache_dir: Path | None = None
    request_cache: bool = True  # the seeker's and synth-llm's model answers, in out/requests.sqlite
    progress: bool = True


def load_cases(options: EvaluateOptions, space: ItemSpace, report: CaseReport) -> list[EvalCase]:
    """The test set's cases (a seeded sample of `n`); a set with no target in the catalog is an error."""
    if options.mode not in MODES:
        raise SynthError(f"unknown mode '{options.mode}'; known: {', '.join(MODES)}")
    if options.mode == "target-free":
        if options.test != "movielens":
            raise SynthError("target-free mode holds out movies each user rated: use --test movielens")
        cases = target_free_cases(load_movielens_only(None).ratings, space, report, seed=options.seed)
        return sample_cases(cases, options.n, options.seed)
    label, path = resolve_spec(options.test)
    if not path.exists():
        raise SynthError(f"test set '{options.test}': no such file, run folder or shared set")
    kind = detect_format(path)
    if kind == "synth":
        cases = run_cases(load_records(path), space, report)
    elif kind in ("redial", "inspired"):
        cases = human_cases(load_dialogues(path, kind), kind, space, report, options.warm_start)
    else:
        raise SynthError(f"test set '{options.test}' is {kind}, which records no targets: use a ReDial or INSPIRED "
                         "file (or their shared names) or a synth run")
    if not cases:
        raise SynthError(f"test set '{options.test}' has no target in the catalog ({report.targets} targets; the "
                         "catalog is MovieLens: a synth run must come from --source movielens or movielens+rt)")
    return sample_cases(cases, options.n, options.seed)


def training(options: EvaluateOptions, space: ItemSpace) -> TrainingData | None:
    if options.train is None:
        return None
    (spec,) = parse_specs([options.train])[:1]
    data = load_dataset(spec, space)
    return TrainingData(data.label, data.fingerprint, data.conversations, recommendation_cases(data.conversations),
                        response_cases(data.conversations))


def build_crs(name: str, options: EvaluateOptions, space: ItemSpace, cases: Sequence[EvalCase],
              train: TrainingData | None, setup: Setup, backend: ChatBackend) -> Crs:
    """One CRS by its name or address, as `check_crs` allows (`backend`: the seeker's, which synth's LLM
    recommender shares)."""
    if name == SYNTH_LLM:
        sampling = Sampling(options.max_tokens, 0.0, 3, 0)
        return SynthLlmCrs(Recommender(backend, PromptSet.load(), sampling), space, seed=options.seed)
    if name == "oracle":
        return OracleCrs({c.id: c.target for c in cases}, space)
    if name == "random":
        return RandomCrs(space, options.seed)
    if name.startswith("http:") or name.startswith("https:"):
        url = name.removeprefix("http:") if name.startswith("http:http") else name
        return HttpCrs(url if "://" in url else f"http://{url.removeprefix('http:')}", space)
    if name.startswith("openai:"):
        if not options.crs_model:
            raise SynthError("an openai: CRS needs --crs-model (the model name its server answers to)")
        config = BackendConfig(backend="openai", base_url=name.removeprefix("openai:"), model=options.crs_model)
        backend = make_backend(config)
        return ChatModelCrs(backend, space, f"openai:{options.crs_model}", options.max_tokens, options.seed)
    assert train is not None, "check_crs: a trained baseline has its training set"
    model = RECOMMENDERS[name](setup)
    fit_or_load(model, train, setup)
    return BaselineCrs(model, space)


def check_crs(options: EvaluateOptions) -> None:
    """Every --crs is one `build_crs` makes, and a trained baseline has its --train (checked before any model
    loads); SynthError naming what is known otherwise."""
    for name in options.crs:
        baseline = name in RECOMMENDERS and name not in LLM
        if not (baseline or name in (*SANITY, SYNTH_LLM) or name.startswith(("http:", "https:", "openai:"))):
            baselines = (n for n in RECOMMENDERS if n not in LLM)
            known = ", ".join([*SANITY, *baselines, SYNTH_LLM, "openai:URL", "http:URL"])
            raise SynthError(f"unknown CRS '{name}'; known: {known}")
        if baseline and options.train is None:
            raise SynthError(f"CRS '{name}' is a trained baseline: give --train (for example redial-train)")


def is_popularity(crs: Crs) -> bool:
    return isinstance(crs, BaselineCrs) and isinstance(crs.model, Popularity)


def twins(crs: Crs, train: TrainingData | None, setup: Setup, space: ItemSpace, seed: int,
          popularity_played: bool = False) -> list[Crs]:
    """--validate: the CRS's degraded twins, one that ignores the conversation (popularity on the training
    set; none for popularity itself, nor where the run plays `popularity` on the same training set: its
    conversations are that twin's, move for move) and one whose ranking is shuffled."""
    found: list[Crs] = [ShuffledTwin(crs, space, seed)]
    if train is not None and not is_popularity(crs) and not popularity_played:
        popularity = Popularity(setup)
        fit_or_load(popularity, train, setup)
        found.insert(0, BaselineCrs(popularity, space, f"{crs.name} (popularity twin)"))
    return found


def validation_pairs(systems: Sequence[Crs], train: TrainingData | None) -> dict[str, tuple[str, str]]:
    """--validate: each twin row's label -> (the CRS it degrades, the system that played it): the twins
    `twins` made, and the `popularity` baseline as the popularity twin of every other trained CRS."""
    names = [crs.name for crs in systems]
    pairs = {twin: (name, twin) for name in names for twin in names if twin.startswith(f"{name} (")}
    popularity = next((crs.name for crs in systems if is_popularity(crs)), None)
    if train is not None and popularity is not None:
        for crs in systems:
            if crs.name not in SANITY and not is_popularity(crs) and not isinstance(crs, ShuffledTwin):
                pairs[f"{crs.name} (popularity twin)"] = (crs.name, popularity)
    return pairs


def folder_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_")


def done_conversations(folder: Path) -> dict[str, Conversation]:
    """The conversations a folder already holds (its whole lines), by case id."""
    path = folder / "conversations.jsonl"
    if not path.exists():
        return {}
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.endswith("\n"):
            data = json.loads(line)
            found[data["case"]] = Conversation(**data)
    return found


def case_seed(seed: int, case_id: str) -> int:
    """The seed of one case's conversation: the run's seed and the case alone, whatever else --n samples."""
    return seed * 1_000_003 + zlib.crc32(case_id.encode()) % 1_000_000 * 1000


async def play_crs(crs: Crs, cases: Sequence[EvalCase], seeker: Seeker, space: ItemSpace, options: EvaluateOptions,
                   on_done: Callable[[], None] = lambda: None) -> list[Conversation]:
    """Every case against one CRS (those already in its folder read back), `options.concurrency` at once."""
    folder = options.out / folder_name(crs.name)
    folder.mkdir(parents=True, exist_ok=True)
    done = done_conversations(folder)
    gate = asyncio.Semaphore(options.concurrency)
    lock = asyncio.Lock()

    async def one(case: EvalCase) -> None:
        async with gate:
            record, result = await converse(case, crs, seeker, space, turns=options.turns,
                                            seed=case_seed(options.seed, case.id), mode=options.mode)
        async with lock:
            with (folder / "dialogues.jsonl").open("a", encoding="utf-8") as out:
                out.write(record.model_dump_json() + "\n")
            with (folder / "conversations.jsonl").open("a", encoding="utf-8") as out:
                out.write(json.dumps(result.as_dict()) + "\n")
            done[case.id] = result
        on_done()

    await asyncio.gather(*(one(c) for c in cases if c.id not in done))
    return [done[c.id] for c in cases]


def static_recall(systems: Sequence[Crs], options: EvaluateOptions, space: ItemSpace) -> dict[str, dict[str, float]]:
    """Each trained baseline's static Recall@k on the test set, as `synth benchmark` scores it (every item a
    test dialogue mentions is a case, the dialogue before it the context; items mentioned before never count,
    as in the conversations), to set beside its interactive Recall@k. Empty in target-free mode."""
    baselines = [crs for crs in systems if isinstance(crs, BaselineCrs)]
    if not baselines or options.mode == "target-free":
        return {}
    (spec,) = parse_specs([options.test])[:1]
    cases = recommendation_cases(load_dataset(spec, space).conversations, exclude_mentioned=True)
    return {crs.name: score_recommender(crs.model, cases, space, exclude_mentioned=True, description=crs.name,
                                        progress=False) for crs in baselines}


async def probe(crs: Crs) -> None:
    """A remote CRS answers one greeting inside its protocol before anything is written (CrsError if not)."""
    if isinstance(crs, (HttpCrs, ChatModelCrs)):
        await crs.respond("probe", PROBE, [])


def run_evaluation(options: EvaluateOptions, space: ItemSpace | None = None) -> dict[str, Any]:
    """Play every CRS on the cases and return the results document (also written to the out folder)."""
    check_crs(options)
    space = space or ItemSpace.movielens()
    report = CaseReport()
    cases = load_cases(options, space, report)
    train = training(options, space)
    setup = Setup(space, options.seed, cache_dir=options.cache_dir, progress=False)
    seeker_backend: ChatBackend = make_backend(options.seeker)
    if options.request_cache:
        options.out.mkdir(parents=True, exist_ok=True)
        seeker_backend = CachedBackend(seeker_backend, RequestCache(options.out / REQUESTS_FILE))
    seeker = Seeker(seeker_backend, PromptSet.load(), Sampling(options.max_tokens, 0.0, 3, options.reply_resamples))
    systems = [build_crs(name, options, space, cases, train, setup, seeker_backend) for name in options.crs]
    if options.validate:
        popularity_played = any(is_popularity(crs) for crs in systems)
        systems += [twin for crs in list(systems) if crs.name not in SANITY
                    for twin in twins(crs, train, setup, space, options.seed, popularity_played)]

    async def everything() -> dict[str, list[Conversation]]:
        try:
            for crs in systems:
                await probe(crs)
            with progress_bar(options.progress, "evaluate", "{task.fields[crs]}", eta=True) as bar:
                task = bar.add_task("evaluate", total=len(cases) * len(systems), crs="")
                played = {}
                for crs in systems:
                    bar.update(task, crs=crs.name)
                    played[crs.name] = await play_crs(crs, cases, seeker, space, options,
                                                      lambda: bar.advance(task))
                    bar.update(task, completed=len(played) * len(cases))
                return played
        finally:
            for crs in systems:
                await crs.aclose()
            await seeker_backend.aclose()

    played = asyncio.run(everything())
    results = {
        "settings": {"test": options.test, "train": options.train, "turns": options.turns, "seed": options.seed,
                     "mode": options.mode,
                     "warm_start": options.warm_start, "seeker_model": seeker_backend.model_info.name},
        "cases": report.as_dict() | {"played": len(cases)},
        "systems": {name: scores(conversations, options.turns, options.seed) for name, conversations in played.items()},
    }
    for name, static in static_recall(systems, options, space).items():
        results["systems"][name]["static"] = {k: round(v, 4) for k, v in static.items() if k.startswith("recall@")}
    for crs in systems:
        if isinstance(crs, RandomCrs):
            results["systems"][crs.name]["expected_by_chance"] = crs.expected(options.turns)
    if options.validate:
        results["validation"] = {
            label: {"of": name, "played_as": twin,
                    **{f"separated_{metric}": separated(results["systems"][name], results["systems"][twin], metric)
                       for metric in VALIDATION_METRICS}}
            for label, (name, twin) in validation_pairs(systems, train).items()
        }
    return results


__all__ = ["CrsError", "EvaluateOptions", "run_evaluation"]
