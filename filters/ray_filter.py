"""`synth filter --ray`: the filters run on Ray Data. The run's JSONL file is cut into line ranges (one
sequential pass on the driver records where each range starts and its first line number, so an error still
names its line); Ray Data actors read their ranges, build the filter views and judge them with the basic
and satisfaction filters (and sketch the dialogues they kept for `dedup`); the driver takes the verdicts back
in file order, runs the one ordered near-duplicate pass over the sketches, and writes the same outputs as a
local run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from synth.analysis.near_duplicates import Sketch
from synth.errors import InputError, SynthError
from synth.filters.base import Verdict
from synth.filters.config import FilterConfig
from synth.filters.dialogue import from_record
from synth.ray_cluster import connect
from synth.runs.records import domain_beside, parse_record

LINES_PER_RANGE = 256


@dataclass(frozen=True)
class Judged:
    """What the driver needs of a dialogue to write it: its id and its line, unchanged."""

    id: str
    raw: str


def check_ray_input(kind: str, config: FilterConfig) -> None:
    """--ray runs the per-dialogue filters over synth JSONL runs; the rest is refused with the way out."""
    if kind != "synth":
        raise SynthError("--ray reads synth runs (JSON Lines); filter PEARL files without --ray")
    if config.preference:
        raise SynthError(
            "--ray runs the basic and satisfaction filters; run the preference filters (an LLM or NLI judge) "
            "without --ray, for instance on the output of a --ray run"
        )
    if "satisfaction" in config.selected:  # trained here once, if it must be, not by every worker at once
        from synth.analysis.acts.model import act_model

        act_model(config.satisfaction.model)


def line_ranges(path: Path, lines_per_range: int = LINES_PER_RANGE) -> list[dict[str, int]]:
    """[{start, end, first_line}]: byte ranges of `lines_per_range` lines each, and the line number of each
    range's first line, from one pass over the file."""
    ranges, start, line, count, offset = [], 0, 1, 0, 0
    with path.open("rb") as handle:
        for raw in handle:
            offset += len(raw)
            count += 1
            if count == lines_per_range:
                ranges.append({"start": start, "end": offset, "first_line": line})
                start, line, count = offset, line + count, 0
    if count:
        ranges.append({"start": start, "end": offset, "first_line": line})
    return ranges


class FilterRanges:
    """A Ray Data actor: reads its line ranges, judges each dialogue; a batch of ranges in, one row per
    dialogue out ({id, raw, verdicts, error}), in order. A bad record ends the batch with a row whose
    `error` locates it (Ray Data passes exceptions on as text only)."""

    def __init__(self, path: str, config_json: str):
        self.path = Path(path)
        self.config = FilterConfig.model_validate_json(config_json)
        self.domain = domain_beside(self.path)

    def __call__(self, batch: dict[str, Any]) -> dict[str, list]:
        from synth.filters.pipeline import chunk_verdicts

        views = []
        with self.path.open("rb") as handle:
            for start, end, first in zip(batch["start"], batch["end"], batch["first_line"]):
                handle.seek(int(start))
                block = handle.read(int(end) - int(start)).decode("utf-8", errors="replace")
                for number, line in enumerate(block.splitlines(), start=int(first)):
                    if not line.strip():
                        continue
                    try:
                        views.append(from_record(parse_record(line, self.path, number), line, domain=self.domain))
                    except InputError as error:
                        where = {"line": error.line, "field": error.field, "message": error.message}
                        return {"id": [""], "raw": [""], "verdicts": [""], "sketch": [b""], "error": [json.dumps(where)]}
        verdicts = chunk_verdicts(views, self.config)
        dedup = self.config.near_duplicates
        sketches = dedup.sketches(views, verdicts) if dedup is not None else [None] * len(views)
        return {
            "id": [view.id for view in views],
            "raw": [view.raw for view in views],
            "verdicts": [json.dumps({name: asdict(v) for name, v in found.items()}) for found in verdicts],
            "sketch": [b"" if sketch is None else sketch.to_bytes() for sketch in sketches],
            "error": [""] * len(views),
        }


def ray_verdicts(
    path: Path, config: FilterConfig, address: str, *, workers: int | None = None
) -> Iterator[tuple[list[Judged], list[dict[str, Verdict]]]]:
    """(dialogues, their verdicts) in file order, judged by Ray Data actors."""
    ray = connect(address)
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    ranges = line_ranges(path)
    if not ranges:
        return
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    actors = min(workers or cpus, cpus)  # an actor holds a CPU: more would wait for ever
    dataset = ray.data.from_items(ranges).map_batches(
        FilterRanges,
        fn_constructor_kwargs={"path": str(path.resolve()), "config_json": config.model_dump_json()},
        batch_size=4,
        compute=ray.data.ActorPoolStrategy(size=min(actors, len(ranges))),
        num_cpus=1,
    )
    dedup = config.near_duplicates
    near_duplicates = dedup.start() if dedup is not None else None  # one ordered pass here, on the workers' sketches
    try:
        for batch in dataset.iter_batches(batch_size=None, batch_format="pandas"):
            for error in batch["error"]:
                if error:
                    where = json.loads(error)
                    raise InputError(path, where["message"], line=where["line"], field=where["field"])
            judged = [Judged(i, raw) for i, raw in zip(batch["id"], batch["raw"])]
            verdicts = [{name: Verdict(**v) for name, v in json.loads(text).items()} for text in batch["verdicts"]]
            if near_duplicates is not None:
                sketches = [Sketch.from_bytes(data, dedup.num_perm) if data else None for data in batch["sketch"]]
                near_duplicates.judge(list(batch["id"]), sketches, verdicts)
            yield judged, verdicts
    except ray.exceptions.RayError as exc:
        detail = next((line.strip() for line in reversed(str(exc).splitlines()) if line.strip()), type(exc).__name__)
        raise SynthError(f"a Ray Data worker failed: {detail}") from None
