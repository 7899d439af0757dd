"""The run folder module: old manifests read, newer ones refused, the one reader locates bad lines, writes
are atomic, and a run started by an older synth resumes."""

import asyncio
import gzip
import json
import os

import pytest

from synth.config import GenerateConfig
from synth.errors import InputError, SynthError
from synth.llm.scripted import ScriptedBackend, rule_following_script
from synth.runner import generate
from synth.runs.atomic import write_text_atomic
from synth.runs.folder import RunFolder
from synth.runs.lock import writing_to
from synth.runs.manifest import (
    SCHEMA_VERSION,
    Counts,
    Manifest,
    add_counts,
    read_manifest,
    with_source_counts,
    write_manifest,
)
from synth.runs.records import iter_records

VERSION_0 = {  # a manifest as synth wrote it before manifests carried a schema version
    "status": "finished",
    "config": {"n": 2, "seed": 1, "shard": None},
    "fingerprint": "abc",
    "model": {"name": "scripted", "source": "scripted", "sha256": None, "extra": {}},
    "prompt_hashes": {"seeker_system": "8ae6ae5d722fa8bd"},
    "counts": {"requested": 2, "written": 2, "accepted_target": 1, "failed": 0, "resumed_with": 0, "persona_users_eligible": 9},
    "tokens": {"prompt": 100, "completion": 20},
    "cost_usd": None,
    "started": "2025-01-01T00:00:00+00:00",
    "finished": "2025-01-01T00:01:00+00:00",
    "wall_s": 60.0,
    "packages": {"synth-crs": "0.1.0"},
    "python": "3.11.9",
    "platform": "Linux",
}


def test_a_manifest_without_a_schema_version_is_read_as_version_0(tmp_path):
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(VERSION_0))
    manifest = read_manifest(path)
    assert manifest.schema_version == 0 and manifest.complete and manifest.fingerprint == "abc"
    assert manifest.counts.written == 2 and manifest.counts.extra == {"persona_users_eligible": 9}
    assert manifest.model.name == "scripted" and manifest.tokens.prompt_evaluated is None and manifest.ray is None
    write_manifest(path, manifest)  # written back in this synth's schema, every key kept
    written = json.loads(path.read_text())
    assert written == {"schema_version": SCHEMA_VERSION, **VERSION_0}


def test_a_partial_old_manifest_is_read_with_defaults(tmp_path):
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"fingerprint": "f", "counts": {"written": 3}}))
    manifest = read_manifest(path)
    assert (manifest.schema_version, manifest.status, manifest.counts.requested, manifest.config) == (0, None, 0, {})


def test_a_manifest_from_a_newer_synth_is_refused_with_one_line(tmp_path):
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({**VERSION_0, "schema_version": SCHEMA_VERSION + 1}))
    with pytest.raises(SynthError, match="newer synth") as raised:
        read_manifest(path)
    message = str(raised.value)
    assert "\n" not in message and "upgrade synth" in message and str(path) in message
    assert not isinstance(raised.value, InputError)


def test_a_bad_manifest_names_its_file_and_field(tmp_path):
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({**VERSION_0, "counts": {"written": "many"}}))
    with pytest.raises(InputError, match=r"manifest.json, field 'counts.written': not a run's manifest"):
        read_manifest(path)
    path.write_text("{\n  oops")
    with pytest.raises(InputError, match=r"manifest.json, line 2: not JSON"):
        read_manifest(path)


def test_the_reader_names_the_file_line_and_field_of_a_bad_record(scripted_run, tmp_path):
    lines = (scripted_run / "dialogues.jsonl").read_text().splitlines()
    broken = json.loads(lines[1])
    broken["outcome"]["turns_to_goal"] = "soon"
    path = tmp_path / "dialogues.jsonl"
    path.write_text("\n".join([lines[0], "", json.dumps(broken), *lines[2:]]) + "\n")
    reader = iter_records(path)
    assert next(reader).number == 1
    with pytest.raises(InputError, match=r"dialogues.jsonl, line 3, field 'outcome.turns_to_goal': not a dialogue record"):
        next(reader)
    path.write_text(lines[0] + "\n" + lines[0] + "\n")
    with pytest.raises(InputError, match=r"line 2, field 'id': dialogue '.*' appears twice"):
        list(iter_records(path, unique_ids=True))


def test_a_run_folder_reads_its_manifest_once(scripted_run, monkeypatch):
    run = RunFolder.open(scripted_run)
    reads = []
    original = Manifest.model_validate
    monkeypatch.setattr(Manifest, "model_validate", lambda data: reads.append(1) or original(data))
    assert run.manifest is run.manifest and run.items and len(reads) == 1
    assert run.kept_count == sum(1 for _ in run.records()) == 20 and run.filter_report is None


def test_atomic_writes_leave_the_old_file_whole_when_writing_fails(tmp_path, monkeypatch):
    path = tmp_path / "manifest.json"
    write_text_atomic(path, "old\n")

    def broken(source, target):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError, match="disk full"):
        write_text_atomic(path, "new\n")
    assert path.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["manifest.json"]
    monkeypatch.undo()
    write_text_atomic(path, "new\n")
    assert path.read_text() == "new\n" and [p.name for p in tmp_path.iterdir()] == ["manifest.json"]


def test_a_run_started_by_an_older_synth_resumes(tmp_path):
    """A folder whose manifest has no schema_version (version 0) and a record cut short resumes as before."""
    config = GenerateConfig(n=4, seed=2, progress=False)
    whole = tmp_path / "whole"
    asyncio.run(generate(config, whole, backend=ScriptedBackend(rule_following_script)))
    old = tmp_path / "old"
    old.mkdir()
    lines = (whole / "dialogues.jsonl").read_text().splitlines(keepends=True)
    (old / "dialogues.jsonl").write_text("".join(lines[:2]) + lines[2][:50])
    manifest = json.loads((whole / "manifest.json").read_text())
    del manifest["schema_version"]
    (old / "manifest.json").write_text(json.dumps({**manifest, "status": "running"}))
    resumed = asyncio.run(generate(config, old, backend=ScriptedBackend(rule_following_script)))
    assert resumed.counts.resumed_with == 2 and resumed.counts.written == 4 and resumed.schema_version == SCHEMA_VERSION
    assert (old / "dialogues.jsonl").read_text() == "".join(lines)


def test_counts_add_by_type_and_source_counts_never_overwrite_one_another():
    old_shard = Counts(requested=2, written=2, accepted_target=1, defects_kept={"copies": 1})  # before reply counts
    total = Counts(requested=3, written=3, reply_resamples=4, defects_kept={"copies": 2, "recites": 1})
    add_counts(total, old_shard)
    assert (total.requested, total.written, total.accepted_target, total.reply_resamples) == (5, 5, 1, 4)
    assert total.defects_kept == {"copies": 3, "recites": 1} and total.format_retries is None
    joined = with_source_counts(total, {"sets_kept": 3}, {"persona_users_eligible": 9})
    assert joined.extra == {"sets_kept": 3, "persona_users_eligible": 9} and joined.written == 5
    with pytest.raises(ValueError, match="given twice: \\['sets_kept'\\]"):
        with_source_counts(total, {"sets_kept": 3}, {"sets_kept": 4})
    with pytest.raises(ValueError, match="given twice: \\['written'\\]"):
        with_source_counts(total, {"written": 9})


def test_a_compressed_run_folder_reads_as_the_run_and_refuses_to_be_written(scripted_run, tmp_path):
    """A corpus kept small (dialogues.jsonl.gz and items.jsonl.gz beside its manifest) reads as its run for
    stats and the benchmarks; generating into it is refused, naming the file, and changes nothing."""
    from synth.analysis.stats.corpus import load_corpus
    from synth.benchmarks.crs.datasets import load_dataset, parse_specs
    from synth.benchmarks.crs.items import ItemSpace
    from synth.datasets import detect_format

    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "manifest.json").write_bytes((scripted_run / "manifest.json").read_bytes())
    for name in ("dialogues.jsonl", "items.jsonl"):
        (kept / f"{name}.gz").write_bytes(gzip.compress((scripted_run / name).read_bytes()))
    run, original = RunFolder.open(kept), RunFolder.open(scripted_run)
    assert [r.id for r in run.records()] == [r.id for r in original.records()] and run.items == original.items
    assert detect_format(kept) == "synth" and load_corpus(str(kept)).size == 20 == len(list(load_corpus(str(kept))))
    space = ItemSpace.movielens()
    assert len(load_dataset(parse_specs([str(kept)])[0], space).conversations) == 20
    before = sorted(p.name for p in kept.iterdir())
    config = GenerateConfig(n=1, seed=3, progress=False)
    with pytest.raises(InputError, match=r"dialogues.jsonl.gz.*gunzip it"):
        asyncio.run(generate(config, kept, backend=ScriptedBackend(rule_following_script)))
    with pytest.raises(InputError, match="gunzip it"), writing_to(kept):  # so do a Ray run, a merge and a filter
        pass
    assert sorted(p.name for p in kept.iterdir()) == before
