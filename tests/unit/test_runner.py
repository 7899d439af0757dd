import asyncio
import json
import re
import socket
import subprocess
import sys

import pytest

from synth.config import GenerateConfig
from synth.errors import SynthError
from synth.llm.scripted import ScriptedBackend, rule_following_script
from synth.personas import ReviewIndex, make_game_specs
from synth.ray_runner import ray_generate
from synth.runner import generate
from synth.runs.manifest import SCHEMA_VERSION, read_manifest
from synth.shards import merge_runs
from tests.helpers import comparable, read_records, run_synth


def run(config, out, script=rule_following_script, **kwargs):
    return asyncio.run(generate(config, out, backend=ScriptedBackend(script), **kwargs))


def test_writes_records_and_manifest(tmp_path):
    config = GenerateConfig(n=5, seed=1, concurrency=3, progress=False)
    manifest = run(config, tmp_path)
    records = read_records(tmp_path)
    assert sorted(r.id for r in records) == [f"pearl-1-{i:06d}" for i in range(5)]
    assert read_manifest(tmp_path / "manifest.json") == manifest
    assert json.loads((tmp_path / "manifest.json").read_text())["schema_version"] == SCHEMA_VERSION
    assert manifest.status == "finished" and manifest.counts.written == 5
    assert manifest.counts.accepted_target == 5 and manifest.counts.failed == 0
    assert manifest.tokens.prompt == sum(r.generation.prompt_tokens for r in records)
    assert manifest.fingerprint == config.fingerprint()
    assert set(manifest.prompt_hashes) == {"seeker_system", "seeker_turn", "recommender_system", "recommender_turn",
                                           "pearl_examples", "word_system", "word_turn"}  # decided wording's too
    assert manifest.packages["synth-crs"]


def test_one_failing_dialogue_does_not_stop_the_run(tmp_path, catalog, reviews):
    spec = make_game_specs(ReviewIndex.from_reviews(reviews), catalog, n=1, seed=2)[0][0]
    marker = spec.persona.general[0].text  # in the free seeker's prompt

    def fails_for_first_persona(messages, schema):
        if marker in messages[0]["content"]:
            raise ConnectionError("server went away")
        return rule_following_script(messages, schema)

    manifest = run(GenerateConfig(n=4, seed=2, wording="free", progress=False), tmp_path, fails_for_first_persona)
    records = {r.id: r for r in read_records(tmp_path)}
    assert len(records) == 4 and manifest.counts.failed == 1
    failed = records[spec.id]
    assert failed.outcome.ended_by == "error" and failed.errors == ["ConnectionError: server went away"]
    assert all(r.outcome.accepted_target for i, r in records.items() if i != spec.id)


def test_overwrite_replaces_an_earlier_run(tmp_path):
    config = GenerateConfig(n=1, progress=False, request_cache=False)  # else the repeat asks the model nothing
    run(config, tmp_path)
    seen = []

    def peek_manifest(messages, schema):
        seen.append(json.loads((tmp_path / "manifest.json").read_text())["status"])
        return rule_following_script(messages, schema)

    run(config, tmp_path, peek_manifest, overwrite=True)
    assert len(read_records(tmp_path)) == 1
    assert seen[0] == "running"  # the earlier run's finished manifest is gone while the new run plays


def test_resume_after_a_crash_writes_exactly_the_missing_dialogues(tmp_path):
    config = GenerateConfig(n=6, seed=4, concurrency=2, progress=False)
    whole = tmp_path / "whole"
    run(config, whole)
    expected = comparable(read_records(whole))

    crashed = tmp_path / "crashed"
    crashed.mkdir()
    lines = (whole / "dialogues.jsonl").read_text().splitlines(keepends=True)
    # a crash: two records written, the third cut mid-line, the manifest still says "running"
    (crashed / "dialogues.jsonl").write_text("".join(lines[:2]) + lines[2][:100])
    manifest = json.loads((whole / "manifest.json").read_text())
    (crashed / "manifest.json").write_text(json.dumps({**manifest, "status": "running"}))
    calls = []

    def counting(messages, schema):
        calls.append(1)
        return rule_following_script(messages, schema)

    resumed = run(config.model_copy(update={"concurrency": 5}), crashed, counting)  # concurrency is not semantic
    records = read_records(crashed)
    assert len(records) == 6 and comparable(records) == expected
    assert resumed.status == "finished" and resumed.counts.resumed_with == 2
    assert resumed.counts.written == 6 and resumed.tokens.model_dump() == manifest["tokens"]
    assert len(calls) == sum(r.generation.llm_calls for r in records[2:])  # only the missing four were played
    calls.clear()
    assert run(config, crashed, counting).counts.written == 6 and not calls  # nothing left to do


def test_a_different_configuration_is_refused(tmp_path):
    run(GenerateConfig(n=2, seed=1, progress=False), tmp_path)
    with pytest.raises(SynthError, match=r"another configuration \(seed: 1 -> 2\).*--overwrite"):
        run(GenerateConfig(n=2, seed=2, progress=False), tmp_path)
    assert len(read_records(tmp_path)) == 2  # nothing written was lost


def test_a_damaged_record_is_named_not_skipped(tmp_path):
    config = GenerateConfig(n=2, seed=1, progress=False)
    run(config, tmp_path)
    path = tmp_path / "dialogues.jsonl"
    first, second = path.read_text().splitlines()
    path.write_text(first + "\n" + '{"id": "x"}\n' + second + "\n")
    with pytest.raises(SynthError, match=r"dialogues.jsonl, line 2, field '\w+': not a dialogue record"):
        run(config, tmp_path)


def test_manifest_never_holds_credentials(tmp_path):
    config = GenerateConfig(n=1, progress=False, base_url="https://user:hunter2@api.example/v1?api_key=sk-abc")
    run(config, tmp_path)
    text = (tmp_path / "manifest.json").read_text()
    assert "hunter2" not in text and "sk-abc" not in text
    assert json.loads(text)["config"]["base_url"] == "https://api.example/v1"


def test_request_cache_replays_finished_calls(tmp_path):
    calls = []

    def counting(messages, schema):
        calls.append(1)
        return rule_following_script(messages, schema)

    config = GenerateConfig(n=3, seed=8, progress=False)
    first = run(config, tmp_path / "a", counting)
    made = len(calls)
    assert made > 0 and first.counts.llm_calls_to_model == made and first.counts.llm_calls_from_cache == 0
    shared = tmp_path / "a" / "requests.sqlite"
    again = run(config.model_copy(update={"request_cache_path": shared}), tmp_path / "b", counting)
    assert len(calls) == made  # a repeated run in another folder asked the model nothing
    assert again.counts.llm_calls_from_cache == made and again.fingerprint == first.fingerprint
    assert comparable(read_records(tmp_path / "b")) == comparable(read_records(tmp_path / "a"))
    other_seed = run(GenerateConfig(n=1, seed=9, progress=False, request_cache_path=shared), tmp_path / "c", counting)
    assert other_seed.counts.llm_calls_to_model > 0  # different games, different keys
    run(config.model_copy(update={"request_cache": False}), tmp_path / "d", counting)
    assert not (tmp_path / "d" / "requests.sqlite").exists()


def test_cost_is_accounted_per_dialogue_and_run(tmp_path):
    config = GenerateConfig(n=2, seed=3, progress=False, price_prompt_per_mtok=2.0, price_completion_per_mtok=10.0)
    manifest = run(config, tmp_path)
    records = read_records(tmp_path)
    for r in records:
        assert r.generation.cost_usd == pytest.approx((r.generation.prompt_tokens * 2 + r.generation.completion_tokens * 10) / 1e6)
    assert manifest.cost_usd == pytest.approx(sum(r.generation.cost_usd for r in records), abs=1e-6)
    assert manifest.fingerprint == GenerateConfig(n=2, seed=3).fingerprint()  # prices do not change dialogues


def test_dry_run_extrapolates_from_a_sample_and_writes_no_dialogues(tmp_path):
    from synth.estimate import estimate

    config = GenerateConfig(n=1000, seed=3, progress=False, price_prompt_per_mtok=3.0, price_completion_per_mtok=50.0)
    figures = asyncio.run(estimate(config, tmp_path, sample=2, backend=ScriptedBackend(rule_following_script)))
    whole = run(GenerateConfig(n=2, seed=3, progress=False), tmp_path / "two")
    prompt, completion = whole.tokens.prompt / 2 * 1000, whole.tokens.completion / 2 * 1000  # per dialogue, times n
    assert figures["sample_dialogues"] == 2 and figures["n"] == 1000
    assert figures["prompt_tokens_total"] == pytest.approx(prompt, abs=1)
    assert figures["completion_tokens_total"] == pytest.approx(completion, abs=1)
    # each side at its own price (USD per million tokens), to the cent
    assert figures["cost_usd_total"] == pytest.approx((prompt * 3.0 + completion * 50.0) / 1e6, abs=0.006)
    assert abs(prompt - completion) * (50.0 - 3.0) / 1e6 > 0.05  # so prices swapped between the sides would fail
    assert not (tmp_path / "dialogues.jsonl").exists() and (tmp_path / "requests.sqlite").exists()


def test_a_second_writer_on_a_folder_being_written_stops_at_once_naming_the_holder(tmp_path):
    """generate (local and on Ray), filter and merge: one line naming the holder's process, host and start time;
    nothing in the folder touched; a holder killed with -9 leaves nothing that blocks the next writer."""
    config = GenerateConfig(n=2, seed=1, progress=False)
    run(config, tmp_path / "run")
    shard = tmp_path / "shard"
    run(GenerateConfig(n=2, seed=1, progress=False, shard="0/1"), shard)
    before = (tmp_path / "run" / "dialogues.jsonl").read_bytes()
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "dialogues.jsonl").write_bytes(before)
    holder = subprocess.Popen(  # another synth process writing to the folder
        [sys.executable, "-c", "import sys, time; from pathlib import Path; from synth.runs.lock import writing_to\n"
         f"with writing_to(Path({str(busy)!r})):\n    print('held', flush=True); time.sleep(600)"],
        stdout=subprocess.PIPE, text=True)
    named = rf"process {holder.pid} on {re.escape(socket.gethostname())} \(started 20\d\d-\d\d-\d\dT[\d:]+\+00:00\) is writing"
    try:
        assert holder.stdout.readline() == "held\n"
        for start in (lambda: run(config, busy, overwrite=True),
                      lambda: ray_generate(config, busy, address="nowhere:1", overwrite=True),
                      lambda: merge_runs([shard], busy)):
            with pytest.raises(SynthError, match=named):
                start()
        for command in (["filter", str(tmp_path / "run"), "--out", str(busy), "--overwrite"],
                        ["merge", str(shard), "--out", str(busy)]):
            result = run_synth(*command)
            assert result.returncode == 2 and re.search(named, result.stderr), result.stderr
            assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert (busy / "dialogues.jsonl").read_bytes() == before  # --overwrite deleted nothing
        assert sorted(p.name for p in busy.iterdir()) == [".lock", "dialogues.jsonl"]
    finally:
        holder.kill()  # kill -9: the lock goes with the process
        holder.wait()
    assert run(config, busy, overwrite=True).counts.written == 2
