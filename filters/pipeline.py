"""`synth filter`: read a synth run or a PEARL-format file, run the chosen filters on every dialogue,
write the kept records, the dropped ones with their reasons, and the report."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from synth.data.pearl import iter_pearl
from synth.data.readers import read_lines
from synth.datasets import detect_format
from synth.domain import domain_for_run
from synth.errors import InputError, SynthError
from synth.filters.base import AsyncFilter, Verdict
from synth.filters.config import FilterConfig
from synth.filters.dialogue import FilterDialogue, from_pearl, from_record
from synth.filters.judge_protocol import ContradictionJudge, JudgeError
from synth.filters.preference import GuessContradiction, PersonaContradiction
from synth.filters.report import ReportBuilder, drop_of
from synth.iteration import chunks
from synth.progress import progress_bar
from synth.redaction import redact_url
from synth.runs.atomic import write_json_atomic
from synth.runs.filtering import Drop, FilterReport, dropped_line
from synth.runs.folder import RunFolder
from synth.runs.layout import (
    DIALOGUES_FILE,
    DROPPED_FILE,
    FILTER_REPORT_FILE,
    ITEMS_FILE,
    MANIFEST_FILE,
    copy_items,
    dialogues_file,
)
from synth.runs.lock import writing_to
from synth.runs.manifest import Manifest, now, read_manifest, write_manifest
from synth.runs.records import domain_beside, iter_records

InputFormat = Literal["auto", "synth", "pearl"]
CHUNK = 256  # dialogues read, judged and written together


def resolve_input(source: Path, format: InputFormat = "auto") -> tuple[Literal["synth", "pearl"], Path]:
    """The format and the file to read: a run folder means its dialogues.jsonl."""
    path = dialogues_file(source)
    if not path.exists():
        raise InputError(path, "no such file" if not source.is_dir() else "this folder holds no dialogues.jsonl")
    if format != "auto":
        return format, path
    found = detect_format(path)
    if found not in ("synth", "pearl"):
        raise InputError(path, f"this is a {found} file; synth filter reads synth runs and PEARL-format files")
    return found, path


def read_dialogues(path: Path, format: Literal["synth", "pearl"]) -> Iterator[FilterDialogue]:
    """The filter view of every dialogue in `path`; a bad record is an error naming its line and field."""
    if format == "pearl":
        for _, raw, dialogue in iter_pearl(path):
            yield from_pearl(dialogue, raw)
        return
    catalog = RunFolder(path.parent, path).items if (path.parent / ITEMS_FILE).exists() else None
    domain = domain_beside(path)
    for found in iter_records(path):
        yield from_record(found.record, found.line, catalog, domain)


def basic_verdicts(dialogue: FilterDialogue, config: FilterConfig) -> dict[str, Verdict]:
    """Every selected basic filter's verdict on one dialogue."""
    return {f.name: f.check(dialogue) for f in config.basic}


def chunk_verdicts(chunk: list[FilterDialogue], config: FilterConfig) -> list[dict[str, Verdict]]:
    """The basic filters' and the batched (model) filters' verdicts on each dialogue of a chunk."""
    verdicts = [basic_verdicts(d, config) for d in chunk]
    for check in config.batched:
        for found, verdict in zip(verdicts, check.check_many(chunk)):
            found[check.name] = verdict
    return verdicts


async def judged_verdict(check: AsyncFilter, dialogue: FilterDialogue, limit: asyncio.Semaphore) -> Verdict:
    """A preference filter's verdict; a judge that cannot answer keeps the dialogue and says why."""
    async with limit:
        try:
            return await check.check(dialogue)
        except JudgeError as exc:
            return Verdict(True, f"judge failed: {exc}")
        except SynthError:
            raise
        except Exception as exc:  # a backend error must not end the run: record it, keep the dialogue
            return Verdict(True, f"judge failed: {type(exc).__name__}: {exc}")


class _Outputs:
    """Kept and dropped records, written to .part files and renamed into place when the run ends."""

    def __init__(self, out_dir: Path, overwrite: bool):
        self.paths = {
            "kept": out_dir / DIALOGUES_FILE,
            "dropped": out_dir / DROPPED_FILE,
        }
        for path in [*self.paths.values(), out_dir / FILTER_REPORT_FILE]:
            if path.exists() and not overwrite:
                raise SynthError(f"{path} exists: pass --overwrite to replace it, or choose another --out")
        out_dir.mkdir(parents=True, exist_ok=True)
        self.handles = {k: p.with_name(p.name + ".part").open("w", encoding="utf-8") for k, p in self.paths.items()}

    def write(self, dialogue: FilterDialogue, drops: list[Drop]) -> None:
        if not drops:
            self.handles["kept"].write(dialogue.raw + "\n")
            return
        self.handles["dropped"].write(dropped_line(dialogue.id, drops, dialogue.raw))

    def close(self, finished: bool) -> None:
        """Move the outputs into place, or (after an error) remove the partial ones."""
        for key, handle in self.handles.items():
            handle.close()
            part = Path(handle.name)
            if finished:
                part.replace(self.paths[key])
            else:
                part.unlink(missing_ok=True)


async def filter_run(
    source: Path,
    out_dir: Path,
    config: FilterConfig,
    *,
    format: InputFormat = "auto",
    judge: ContradictionJudge | None = None,
    overwrite: bool = False,
    progress: bool = False,
    ray_address: str | None = None,
    ray_workers: int | None = None,
) -> FilterReport:
    """Filter `source` into `out_dir`; returns the report (also written to filter_report.json). With
    `ray_address`, the filters run on Ray Data (`synth.filters.ray_filter`) and the outputs are the same. Another
    process writing to `out_dir` stops this one before anything is read."""
    with writing_to(out_dir):
        return await _filter_run(source, out_dir, config, format=format, judge=judge, overwrite=overwrite,
                                 progress=progress, ray_address=ray_address, ray_workers=ray_workers)


async def _filter_run(
    source: Path,
    out_dir: Path,
    config: FilterConfig,
    *,
    format: InputFormat,
    judge: ContradictionJudge | None,
    overwrite: bool,
    progress: bool,
    ray_address: str | None,
    ray_workers: int | None,
) -> FilterReport:
    kind, path = resolve_input(source, format)
    if ray_address is not None:
        from synth.filters.ray_filter import check_ray_input, ray_verdicts

        check_ray_input(kind, config)
    if out_dir.resolve() == path.parent.resolve():
        raise SynthError(f"--out {out_dir} is the input's own folder: choose another one")
    manifest_path = path.parent / MANIFEST_FILE
    manifest = read_manifest(manifest_path) if manifest_path.exists() else None  # a bad one is named before any work
    started, wall = now(), time.perf_counter()
    outputs = _Outputs(out_dir, overwrite)
    own_judge = judge is None and bool(config.preference)
    if own_judge:
        from synth.filters.judge_factory import make_judge

        judge = make_judge(config, out_dir, domain_for_run(manifest.config if manifest else {}))
    preference: list[AsyncFilter] = [
        cls(judge) for cls in (PersonaContradiction, GuessContradiction) if cls.name in config.preference
    ]
    in_flight = config.llm.concurrency if config.judge == "llm" else 1
    limit = asyncio.Semaphore(in_flight)
    chunk_size = max(8, 2 * in_flight) if preference else CHUNK  # judged chunks are slow: report progress often
    builder = ReportBuilder(config.selected, config.examples)
    finished = False
    try:
        if judge is not None and preference:
            await judge.check()
        total = sum(1 for _ in read_lines(path)) if progress and kind == "synth" else None  # the bar's total only
        with progress_bar(progress, "filtering", "{task.fields[rate]}") as bar:
            task = bar.add_task("filter", total=total, rate="")
            if ray_address is not None:
                judged = _iterate(ray_verdicts(path, config, ray_address, workers=ray_workers))
            else:
                judged = _local_verdicts(path, kind, config, preference, limit, chunk_size)
            async for chunk, verdicts in judged:
                for dialogue, found in zip(chunk, verdicts):
                    failed = builder.add(dialogue.id, found)
                    outputs.write(
                        dialogue,
                        [drop_of(name, found[name]) for name in failed],
                    )
                seconds = time.perf_counter() - wall
                bar.update(
                    task,
                    advance=len(chunk),
                    rate=f"{builder.dialogues / seconds:,.0f} dialogues/s",
                )
        finished = True
    finally:
        outputs.close(finished)
        if own_judge and judge is not None:
            await judge.aclose()
    seconds = time.perf_counter() - wall
    report = builder.build(
        input=str(source),
        format=kind,
        filters_run=config.selected,
        preference_method=judge.description if preference and judge is not None else None,
        preference_on=config.preference_on if preference else None,
        settings=_settings(config),
        started=started,
        seconds=round(seconds, 3),
        dialogues_per_s=round(builder.dialogues / seconds, 1) if seconds else None,
    )
    write_json_atomic(out_dir / FILTER_REPORT_FILE, report.model_dump(mode="json"), ensure_ascii=False)
    if manifest is not None:
        _carry_manifest(manifest, out_dir / MANIFEST_FILE, report)
    copy_items(path.parent, out_dir)
    return report


async def _local_verdicts(
    path: Path,
    kind: Literal["synth", "pearl"],
    config: FilterConfig,
    preference: list[AsyncFilter],
    limit: asyncio.Semaphore,
    chunk_size: int,
) -> AsyncIterator[tuple[list[FilterDialogue], list[dict[str, Verdict]]]]:
    """Chunks of dialogues in file order, with every selected filter's verdict on each (dedup's last, on the
    dialogues all the others kept)."""
    dedup = config.near_duplicates
    near_duplicates = dedup.start() if dedup is not None else None  # one state for the whole file, in its order
    for chunk in chunks(read_dialogues(path, kind), chunk_size):
        verdicts = chunk_verdicts(chunk, config)
        await _judge_chunk(chunk, verdicts, preference, config, limit)
        if near_duplicates is not None:
            near_duplicates.judge([d.id for d in chunk], dedup.sketches(chunk, verdicts), verdicts)
        yield chunk, verdicts


async def _iterate(items: Iterable[Any]) -> AsyncIterator[Any]:
    for item in items:
        yield item


async def _judge_chunk(
    chunk: list[FilterDialogue],
    verdicts: list[dict[str, Verdict]],
    preference: list[AsyncFilter],
    config: FilterConfig,
    limit: asyncio.Semaphore,
) -> None:
    """Add the preference filters' verdicts to `verdicts`, judging the dialogues concurrently."""
    if not preference:
        return
    jobs, slots = [], []
    for dialogue, found in zip(chunk, verdicts):
        judge_it = config.preference_on == "all" or all(v.keep for v in found.values())
        for check in preference:
            if judge_it and check.applies(dialogue):
                jobs.append(judged_verdict(check, dialogue, limit))
                slots.append((found, check.name))
    for (found, name), verdict in zip(slots, await asyncio.gather(*jobs)):
        found[name] = verdict


def _settings(config: FilterConfig) -> dict[str, Any]:
    """The settings as the report shows them: an endpoint's credentials, if any, removed."""
    settings = config.model_dump(mode="json", exclude={"examples"})
    if settings["llm"].get("base_url"):
        settings["llm"]["base_url"] = redact_url(settings["llm"]["base_url"])
    return settings


def _carry_manifest(manifest: Manifest, target: Path, report: FilterReport) -> None:
    """A filtered run keeps its generation manifest, with what the filters did added."""
    counts = manifest.counts.model_copy(update={"written": report.kept, "filtered_out": report.dropped})
    write_manifest(target, manifest.model_copy(update={"filter": report.summary(), "counts": counts}))
