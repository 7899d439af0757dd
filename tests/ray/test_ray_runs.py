"""`--ray` on a real local Ray cluster (never a mock): generation by Ray actors gives the local runner's
records, survives a killed worker, and `synth filter --ray` writes what a local filter writes (on a run the
filters cut, so that both the kept and the dropped files are compared)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import threading
import time
from pathlib import Path

import pytest

from synth.config import GenerateConfig
from synth.errors import InputError, SynthError
from synth.filters.config import FilterConfig
from synth.filters.pipeline import filter_run
from synth.llm.scripted import ScriptedBackend, rule_following_script
from synth.ray_runner import ray_generate
from synth.runner import generate
from synth.runs.layout import SHARDS_DIR
from synth.runs.manifest import read_manifest
from tests.helpers import comparable, invoke_synth, read_records, run_synth


def scripted() -> ScriptedBackend:
    return ScriptedBackend(rule_following_script, keep_calls=False)


class SlowScripted(ScriptedBackend):
    """The scripted game with a model's pace (50 ms a call), so that a worker can be killed mid-shard."""

    async def complete(self, messages, **options):
        await asyncio.sleep(0.05)
        return await super().complete(messages, **options)


def slow() -> SlowScripted:
    return SlowScripted(rule_following_script, keep_calls=False)


def test_ray_workers_write_the_local_runners_records_and_a_rerun_plays_nothing(cluster, tmp_path):
    config = GenerateConfig(n=9, seed=5, progress=False)
    asyncio.run(generate(config, tmp_path / "local", backend=scripted()))
    manifest = ray_generate(config, tmp_path / "ray", workers=2, shards=4, backend_factory=scripted)

    assert comparable(read_records(tmp_path / "ray")) == comparable(read_records(tmp_path / "local"))
    assert (tmp_path / "ray" / "items.jsonl").read_text() == (tmp_path / "local" / "items.jsonl").read_text()
    counts = manifest.counts
    assert counts.requested == counts.written == counts.accepted_target == 9
    assert manifest.ray.shards == 4 and manifest.ray.shards_played == 4
    workers = manifest.ray.workers
    assert sum(w.dialogues for w in workers) == 9 and sum(w.shards for w in workers) == 4
    assert all(w.dialogues_per_s > 0 and w.tokens > 0 for w in workers)
    assert read_manifest(tmp_path / "ray" / "manifest.json") == manifest
    assert sorted(p.name for p in (tmp_path / "ray" / SHARDS_DIR).iterdir()) == [
        "0-of-4", "1-of-4", "2-of-4", "3-of-4", "plan.json"
    ]

    before = (tmp_path / "ray" / "dialogues.jsonl").read_bytes()
    again = ray_generate(config, tmp_path / "ray", workers=2, backend_factory=scripted)
    assert again == manifest and (tmp_path / "ray" / "dialogues.jsonl").read_bytes() == before
    with pytest.raises(SynthError, match="splits this run into 4 shards, not 3"):
        shutil.rmtree(tmp_path / "ray" / SHARDS_DIR / "1-of-4")
        (tmp_path / "ray" / "dialogues.jsonl").unlink()
        ray_generate(config, tmp_path / "ray", shards=3, backend_factory=scripted)


def test_a_rerun_finishes_only_the_missing_shards(cluster, tmp_path):
    config = GenerateConfig(n=8, seed=2, progress=False)
    out = tmp_path / "ray"
    ray_generate(config, out, workers=2, shards=4, backend_factory=scripted)
    kept = {p.name: (out / SHARDS_DIR / p.name / "dialogues.jsonl").read_bytes()
            for p in (out / SHARDS_DIR).iterdir() if p.is_dir()}
    shutil.rmtree(out / SHARDS_DIR / "2-of-4")  # one shard lost, and the merged output with it
    for name in ("dialogues.jsonl", "manifest.json"):
        (out / name).unlink()
    torn = out / SHARDS_DIR / "3-of-4" / "dialogues.jsonl"
    lines = torn.read_bytes().splitlines(keepends=True)
    torn.write_bytes(lines[0] + lines[1][:40])  # another cut short by a crash: one record and a torn one

    manifest = ray_generate(config, out, workers=2, backend_factory=scripted)
    assert manifest.ray.shards_played == 2  # 0 and 1 were finished
    for name in ("0-of-4", "1-of-4"):
        assert (out / SHARDS_DIR / name / "dialogues.jsonl").read_bytes() == kept[name]
    records = read_records(out)
    assert len(records) == len({r.id for r in records}) == 8
    whole = tmp_path / "local"
    asyncio.run(generate(config, whole, backend=scripted()))
    assert comparable(records) == comparable(read_records(whole))


def test_killed_workers_are_restarted_and_the_run_has_exactly_n_dialogues(cluster, tmp_path):
    config = GenerateConfig(n=12, seed=7, progress=False)
    out = tmp_path / "ray"
    pids: list[int] = []
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["manifest"] = ray_generate(config, out, workers=2, shards=4, backend_factory=slow,
                                               on_workers=pids.extend)
        except SynthError as exc:  # Ray did not restart the worker: the test fails below, saying so
            outcome["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 240

    def partial_shards() -> int:
        """Shards being written with one record of their three: at least two dialogues from finished."""
        files = [f / "dialogues.jsonl" for f in (out / SHARDS_DIR).glob("*-of-4")]
        return sum(f.exists() and f.read_bytes().count(b"\n") == 1 for f in files)

    while time.monotonic() < deadline and not partial_shards():
        time.sleep(0.02)
    assert pids, "the workers never started"
    assert partial_shards(), "no shard was ever seen part-written"
    for pid in pids:  # every worker, so that whichever plays the part-written shard dies mid-shard
        os.kill(pid, signal.SIGKILL)
    thread.join(timeout=300)
    assert not thread.is_alive()
    assert "error" not in outcome, f"the run stopped instead of restarting the worker: {outcome.get('error')}"
    manifest = outcome["manifest"]
    records = read_records(out)
    assert len(records) == len({r.id for r in records}) == 12
    assert manifest.counts.written == 12 and manifest.ray.shards_played == 4
    # a worker named host:PID, whose PID is none of the workers first started, finished a shard: the restarted one
    finished_by = {int(worker.worker.rpartition(":")[2]) for worker in manifest.ray.workers}
    assert finished_by - set(pids), (finished_by, pids)
    resumed = [json.loads((f / "manifest.json").read_text())["counts"]["resumed_with"] for f in (out / SHARDS_DIR).glob("*-of-4")]
    assert sum(resumed) >= 1, resumed  # the killed worker's shard went on from what it had written


def kept_and_dropped(out: Path) -> tuple[bytes, bytes]:
    """A filter output's kept and dropped files; fails unless both hold dialogues, so comparing them means something."""
    kept, dropped = ((out / name).read_bytes() for name in ("dialogues.jsonl", "dropped.jsonl"))
    assert kept.count(b"\n") >= 1 and dropped.count(b"\n") >= 1, "the basic filters must keep some and drop some"
    return kept, dropped


def test_filter_on_ray_data_writes_what_the_local_filter_writes(cluster, repetitive_run, tmp_path):
    config = FilterConfig(filters=["basic"])
    local = asyncio.run(filter_run(repetitive_run, tmp_path / "local", config))
    on_ray = asyncio.run(filter_run(repetitive_run, tmp_path / "ray", config, ray_address="auto", ray_workers=2))
    assert kept_and_dropped(tmp_path / "ray") == kept_and_dropped(tmp_path / "local")
    assert local.filters["repetition"].dropped > 0  # the seeker's repeated refusal
    drop_keys = {"dialogues", "kept", "dropped", "drop_rate", "filters", "overlap"}
    assert on_ray.model_dump(include=drop_keys) == local.model_dump(include=drop_keys)

    broken = tmp_path / "broken.jsonl"
    lines = (repetitive_run / "dialogues.jsonl").read_text().splitlines()
    lines[4] = lines[4].replace('"turns"', '"turnz"')
    broken.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"broken.jsonl.*line 5.*turns"):
        asyncio.run(filter_run(broken, tmp_path / "broken", config, ray_address="auto"))
    with pytest.raises(SynthError, match="preference filters .* without --ray"):
        asyncio.run(filter_run(repetitive_run, tmp_path / "pref", FilterConfig(filters=["all"]), ray_address="auto"))


def test_cli_filter_with_ray_local(repetitive_run, tmp_path):
    """`synth filter --ray local` starts its own cluster in the command's process."""
    local = invoke_synth("filter", str(repetitive_run), "--out", str(tmp_path / "local"), "--no-progress", "--json")
    on_ray = run_synth("filter", str(repetitive_run), "--out", str(tmp_path / "ray"), "--no-progress", "--json",
                       "--ray", "local", "--ray-workers", "2")
    assert local.returncode == 0, local.stderr
    assert on_ray.returncode == 0, on_ray.stderr
    counts = ("dialogues", "kept", "dropped")
    assert {k: json.loads(on_ray.stdout)[k] for k in counts} == {k: json.loads(local.stdout)[k] for k in counts}
    assert kept_and_dropped(tmp_path / "ray") == kept_and_dropped(tmp_path / "local")
