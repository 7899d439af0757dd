"""One run split over several machines: `--shard I/N` plays every N-th game spec from I, and
`synth merge` joins the shard folders after checking that nothing is missing or doubled."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

from synth.errors import SynthError
from synth.runs.layout import DIALOGUES_FILE, MANIFEST_FILE, copy_items
from synth.runs.lock import writing_to
from synth.runs.manifest import Counts, Manifest, Tokens, add_counts, now, read_manifest, write_manifest
from synth.runs.records import drop_torn_tail, finished_records

Spec = TypeVar("Spec")


def shard_specs(specs: Sequence[Spec], index: int, count: int) -> list[Spec]:
    """The specs of shard `index` of `count`: positions index, index + count, ... (stable, since spec
    order and ids are seeded)."""
    return list(specs[index::count])


def _manifest(folder: Path) -> Manifest:
    path = folder / MANIFEST_FILE
    if not path.exists():
        raise SynthError(f"{path}: not a run's manifest (no such file)")
    return read_manifest(path)


def merge_runs(folders: Sequence[Path], out_dir: Path) -> Manifest:
    """Join finished shard folders of one run into `out_dir`; returns the merged manifest.

    Refused when the shards come from different runs (fingerprints), when a shard is missing, appears
    twice or did not finish, or when a dialogue id is in two shards; stopped at once when another process writes to
    `out_dir`."""
    manifests = {folder: _manifest(folder) for folder in folders}
    fingerprints = {m.fingerprint for m in manifests.values()}
    if len(fingerprints) != 1:
        raise SynthError(f"the folders come from {len(fingerprints)} different runs (fingerprints differ)")
    shards: dict[int, Path] = {}
    count = None
    for folder, manifest in manifests.items():
        shard = manifest.shard
        if shard is None:
            raise SynthError(f"{folder} is not a shard (it was run without --shard)")
        index, of = map(int, shard.split("/"))
        if count not in (None, of):
            raise SynthError(f"{folder} is shard {shard}, but another folder splits the run {count} ways")
        count = of
        if index in shards:
            raise SynthError(f"shard {shard} is given twice: {shards[index]} and {folder}")
        if not manifest.complete:
            raise SynthError(f"{folder} (shard {shard}) has not finished: resume it with the same command first")
        shards[index] = folder
    missing = sorted(set(range(count or 0)) - set(shards))
    if missing:
        raise SynthError(f"shards {', '.join(f'{i}/{count}' for i in missing)} are missing")
    with writing_to(out_dir):
        return _write_merged(shards, manifests, out_dir)


def _write_merged(shards: dict[int, Path], manifests: dict[Path, Manifest], out_dir: Path) -> Manifest:
    target = out_dir / DIALOGUES_FILE
    if target.exists() and target.stat().st_size:
        raise SynthError(f"{target} already holds dialogues: merge into an empty folder")
    ids: dict[str, int] = {}
    counts = Counts()
    tokens = Tokens()
    with target.open("w", encoding="utf-8") as out:
        for index in sorted(shards):
            path = shards[index] / DIALOGUES_FILE
            drop_torn_tail(path)
            for record in finished_records(path):
                if record.id in ids:
                    raise SynthError(f"dialogue '{record.id}' is in shard {ids[record.id]} and shard {index}")
                ids[record.id] = index
                out.write(record.model_dump_json() + "\n")
            shard_counts, shard_tokens = manifests[shards[index]].counts, manifests[shards[index]].tokens
            add_counts(counts, shard_counts)
            tokens.prompt += shard_tokens.prompt
            tokens.completion += shard_tokens.completion
            if shard_tokens.prompt_evaluated is not None:  # counted by the embedded model only
                tokens.prompt_evaluated = (tokens.prompt_evaluated or 0) + shard_tokens.prompt_evaluated
    if len(ids) != counts.written:
        raise SynthError(f"the shards' manifests count {counts.written} dialogues, their files hold {len(ids)}")
    first = manifests[shards[0]]
    merged = first.model_copy(update={
        "status": "finished",
        "config": {**first.config, "shard": None},
        "counts": counts,
        "tokens": tokens,
        "merged_from": [str(shards[i]) for i in sorted(shards)],
        "finished": now(),
        "wall_s": round(sum(m.wall_s or 0 for m in manifests.values()), 2),
    })
    write_manifest(out_dir / MANIFEST_FILE, merged)
    copy_items(shards[0], out_dir)
    return merged
