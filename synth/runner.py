"""Run many games concurrently, append each finished dialogue as one JSON line, write the manifest."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Callable
from contextlib import closing
from dataclasses import asdict
from pathlib import Path

from synth.budget import Budget, Spent
from synth.config import GenerateConfig
from synth.data.configured import load_data
from synth.domain import load_domain
from synth.item_knowledge import SummaryCache, summarize_items
from synth.llm.base import ChatBackend
from synth.llm.factory import make_backend
from synth.llm.request_cache import CachedBackend, RequestCache
from synth.llm.traffic import Traffic, traffic_of
from synth.modes import BUILDERS, PLANNERS, Game
from synth.persona_summaries import persona_summary_cache, summarize_personas
from synth.progress import progress_bar
from synth.prompting import PromptSet
from synth.records import DialogueRecord
from synth.runs.atomic import write_items
from synth.runs.layout import DIALOGUES_FILE, ITEMS_FILE, MANIFEST_FILE, REQUESTS_FILE
from synth.runs.lock import writing_to
from synth.runs.manifest import (
    SUMMED_COUNTS,
    Counts,
    Manifest,
    ModelRecord,
    RequestCounts,
    Status,
    Tokens,
    add_counts,
    check_same_run,
    new_manifest,
    now,
    with_source_counts,
    write_manifest,
)
from synth.runs.records import drop_torn_tail, finished_records
from synth.shards import shard_specs

log = logging.getLogger(__name__)


def prepare_output(out_dir: Path, config: GenerateConfig, overwrite: bool) -> Path:
    """The dialogues file to append to: emptied with `overwrite`; else kept, when its run had the same
    configuration, so the run resumes (a record cut short by a crash is dropped)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / DIALOGUES_FILE
    if overwrite:
        path.unlink(missing_ok=True)
    elif path.exists() and path.stat().st_size > 0:
        check_same_run(out_dir / MANIFEST_FILE, config)
        drop_torn_tail(path)
    return path


def cache_counts(backend: ChatBackend) -> dict[str, int]:
    """LLM calls this process answered from the request cache, and those it sent to the model."""
    if isinstance(backend, CachedBackend):
        return {"llm_calls_from_cache": backend.hits, "llm_calls_to_model": backend.misses}
    return {}


def record_counts(record: DialogueRecord) -> Counts:
    """What one written dialogue adds to the manifest's counts."""
    kept = Counter(d.split(":")[0] for t in record.turns if t.checks for d in t.checks.kept_defects)
    return Counts(
        written=1,
        accepted_target=record.outcome.accepted_target,
        failed=bool(record.errors),
        wrong_acceptances=record.outcome.ended_by == "wrong_acceptance",
        defects_kept=dict(kept) or None,
        format_retries=record.generation.format_retries,
        reply_resamples=record.generation.reply_resamples,
        replies_kept_with_defects=sum(bool(t.checks and t.checks.kept_defects) for t in record.turns),
        replies_repaired=sum(bool(t.checks and t.checks.repaired) for t in record.turns),
    )


class _Tally:
    def __init__(self, requested: int) -> None:
        self.counts = Counts(**{**dict.fromkeys(SUMMED_COUNTS, 0), "requested": requested}, defects_kept={})
        self.tokens = {"prompt": 0, "completion": 0}
        self.ids: set[str] = set()

    def add(self, record: DialogueRecord) -> None:
        self.ids.add(record.id)
        add_counts(self.counts, record_counts(record))
        self.tokens["prompt"] += record.generation.prompt_tokens
        self.tokens["completion"] += record.generation.completion_tokens
        if record.generation.prompt_tokens_evaluated is not None:
            self.tokens["prompt_evaluated"] = self.tokens.get("prompt_evaluated", 0) + record.generation.prompt_tokens_evaluated
        if record.generation.completion_tokens_forced is not None:
            forced = self.tokens.get("completion_forced", 0) + record.generation.completion_tokens_forced
            self.tokens["completion_forced"] = forced


def _rates(dialogues: int, tokens: int, elapsed: float) -> str:
    """Throughput for the progress bar: dialogues/s, or s/dialogue when slower than one a second."""
    per_second = dialogues / elapsed
    pace = f"{per_second:.1f} dlg/s" if per_second >= 1 else f"{elapsed / dialogues:.0f} s/dlg"
    return f"{pace} {tokens / elapsed:.0f} tok/s"


async def generate(
    config: GenerateConfig,
    out_dir: Path,
    *,
    backend: ChatBackend | None = None,
    overwrite: bool = False,
    on_record: Callable[[DialogueRecord], None] | None = None,
) -> Manifest:
    """Play `config.n` games (the shard's, with `config.shard`) and write them to `out_dir`; returns the
    manifest. `on_record` is called with each record once it is written (progress of a Ray worker). Another run
    writing to `out_dir` stops this one before anything loads, and so does a compressed run in it."""
    with writing_to(out_dir):
        return await _generate(config, out_dir, backend=backend, overwrite=overwrite, on_record=on_record)


async def _generate(
    config: GenerateConfig,
    out_dir: Path,
    *,
    backend: ChatBackend | None,
    overwrite: bool,
    on_record: Callable[[DialogueRecord], None] | None,
) -> Manifest:
    started, clock = now(), time.perf_counter()
    data = load_data(config)
    domain = load_domain(config.domain_name)
    prompts = PromptSet.load(config.prompts_dir, mode=config.mode, domain=domain, wording=config.wording == "decided")
    planned = PLANNERS[config.mode](config, data)  # before the model loads: a plan that cannot run stops here
    budget = Budget.of(config)  # so does a cost ceiling without prices
    data.counts.update(planned.counts)
    backend = backend or make_backend(config)
    if config.request_cache:
        backend = CachedBackend(backend, RequestCache(config.request_cache_path or out_dir / REQUESTS_FILE))
    game = BUILDERS[config.mode](config, data, backend, prompts, planned)
    specs = shard_specs(planned.specs, *config.shard_parts)
    dialogues_path = prepare_output(out_dir, config, overwrite)
    tally = _Tally(requested=len(specs))
    for record in finished_records(dialogues_path):  # a resumed run counts what it already wrote
        tally.add(record)
    done = tally.ids
    tally.counts.resumed_with = len(done)
    specs = [spec for spec in specs if spec.id not in done]

    traffic = traffic_of(backend)

    def save_manifest(status: Status) -> Manifest:
        manifest = new_manifest(
            config,
            model=ModelRecord(**asdict(backend.model_info)),
            prompt_hashes=prompts.hashes,
            counts=with_source_counts(tally.counts.model_copy(update=cache_counts(backend)), data.counts),
            tokens=Tokens(**tally.tokens),
            cost_usd=config.cost_usd(tally.tokens["prompt"], tally.tokens["completion"], tally.tokens.get("prompt_evaluated")),
            started=started,
            wall_s=time.perf_counter() - clock,
            status=status,
            requests=RequestCounts(**traffic.as_counts()) if traffic is not None else None,
        )
        write_manifest(out_dir / MANIFEST_FILE, manifest)
        return manifest

    save_manifest("running")  # never leave an earlier run's manifest beside new records
    status: Status = "failed"
    try:
        await backend.check()
        if config.item_summaries:  # the games share data.catalog, so they see the summaries
            described, summary_counts = await summarize_items(
                data.catalog, data.reviews, backend, SummaryCache(), seed=config.seed, progress=config.progress,
                domain=domain,
            )
            data.catalog.update(described)
            data.counts.update(summary_counts)
        if config.persona_summaries and config.mode == "pearl":  # the records carry each persona's summary
            with closing(persona_summary_cache()) as cache:
                specs, persona_counts = await summarize_personas(
                    specs, planned.reviews, data.catalog, backend, cache, seed=config.seed, progress=config.progress,
                    domain=domain,
                )
            data.counts.update(persona_counts)
        write_items(out_dir / ITEMS_FILE, data.catalog)
        stopped = await _play_all(game, specs, dialogues_path, tally, config, on_record, budget, traffic)
        status = "budget" if stopped else "finished"
    except (KeyboardInterrupt, asyncio.CancelledError):
        status = "interrupted"
        raise
    finally:
        manifest = save_manifest(status)
        await backend.aclose()
    return manifest


async def _play_all(
    game: Game,
    specs: list,
    path: Path,
    tally: _Tally,
    config: GenerateConfig,
    on_record: Callable[[DialogueRecord], None] | None = None,
    budget: Budget | None = None,
    traffic: Traffic | None = None,
) -> bool:
    """`concurrency` workers take the next spec as they finish one, so only that many games (not n) are
    alive at a time; each record is appended and flushed the moment its game ends. With a `budget`, a worker
    starts no game the budget does not allow; returns whether that stopped the run. A server backend's
    `traffic` (requests allowed in flight, faults) is shown in the bar, refreshed each second."""
    clock = time.perf_counter()
    pending = iter(specs)  # shared by the workers; asyncio runs one at a time, so no lock is needed
    fields = ["{task.fields[rates]}", "failed {task.fields[failed]}"] + (["{task.fields[traffic]}"] if traffic else [])
    with progress_bar(config.progress, "[bold]dialogues", *fields, eta=True) as progress, \
            path.open("a", encoding="utf-8") as out:
        resumed, resumed_tokens = tally.counts.written, tally.tokens["prompt"] + tally.tokens["completion"]
        task = progress.add_task("generate", total=resumed + len(specs), completed=resumed, rates="",
                                 failed=tally.counts.failed, traffic="")

        def save(record: DialogueRecord) -> None:
            gen = record.generation
            gen.cost_usd = config.cost_usd(gen.prompt_tokens, gen.completion_tokens, gen.prompt_tokens_evaluated)
            out.write(record.model_dump_json() + "\n")
            out.flush()
            tally.add(record)
            elapsed = max(time.perf_counter() - clock, 1e-9)
            tokens = tally.tokens["prompt"] + tally.tokens["completion"] - resumed_tokens
            rates = _rates(tally.counts.written - resumed, tokens, elapsed)
            progress.update(task, advance=1, rates=rates, failed=tally.counts.failed)
            if on_record is not None:
                on_record(record)

        in_flight = {"games": 0, "refused": 0}

        async def worker() -> None:
            for spec in pending:
                spent = Spent(tally.counts.written, tally.tokens["prompt"], tally.tokens["completion"],
                              tally.tokens.get("prompt_evaluated"))
                if budget is not None and not budget.allows(spent, in_flight["games"]):
                    in_flight["refused"] += 1
                    return
                in_flight["games"] += 1
                record = await game.play(spec)
                in_flight["games"] -= 1
                save(record)

        async def show_traffic() -> None:
            while traffic is not None:
                progress.update(task, traffic=traffic.summary())
                await asyncio.sleep(1)

        shown = asyncio.ensure_future(show_traffic())
        try:
            await asyncio.gather(*(worker() for _ in range(min(config.concurrency, max(len(specs), 1)))))
        finally:
            shown.cancel()
    return bool(in_flight["refused"])
