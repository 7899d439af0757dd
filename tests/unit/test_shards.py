"""--shard I/N splits one run's games over machines; `synth merge` joins them and checks the join."""

import asyncio
import json
import shutil

import pytest

from synth.config import GenerateConfig
from synth.errors import SynthError
from synth.llm.scripted import ScriptedBackend, rule_following_script
from synth.runner import generate
from synth.shards import merge_runs
from tests.helpers import comparable, read_records, run_synth


def run(out, **settings):
    config = GenerateConfig(n=7, seed=5, progress=False, **settings)
    return asyncio.run(generate(config, out, backend=ScriptedBackend(rule_following_script)))


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    root = tmp_path_factory.mktemp("shards")
    folders = [root / f"s{i}" for i in range(3)]
    for i, folder in enumerate(folders):
        run(folder, shard=f"{i}/3")
    return folders


def test_shards_split_and_merge_back_to_the_whole_run(shards, tmp_path):
    per_shard = [sorted(r.id for r in read_records(folder)) for folder in shards]
    assert [len(ids) for ids in per_shard] == [3, 2, 2]
    assert per_shard[1] == ["pearl-5-000001", "pearl-5-000004"]
    fingerprints = {json.loads((f / "manifest.json").read_text())["fingerprint"] for f in shards}
    assert len(fingerprints) == 1  # the shard is not part of the run's fingerprint

    result = run_synth("merge", *map(str, reversed(shards)), "--out", str(tmp_path / "merged"))
    assert result.returncode == 0, result.stderr
    assert "merged 3 shards: 7 dialogues" in result.stdout
    run(tmp_path / "whole")
    assert comparable(read_records(tmp_path / "merged")) == comparable(read_records(tmp_path / "whole"))
    manifest = json.loads((tmp_path / "merged" / "manifest.json").read_text())
    assert manifest["counts"]["written"] == manifest["counts"]["requested"] == 7
    assert manifest["config"]["shard"] is None and len(manifest["merged_from"]) == 3
    items = (tmp_path / "merged" / "items.jsonl").read_text()
    assert items == (tmp_path / "whole" / "items.jsonl").read_text() and items.count("\n") == 48  # the demo catalog


def test_merge_refuses_missing_doubled_or_foreign_shards(shards, tmp_path):
    with pytest.raises(SynthError, match="shards 2/3 are missing"):
        merge_runs(shards[:2], tmp_path / "a")
    with pytest.raises(SynthError, match="shard 1/3 is given twice"):
        copy = tmp_path / "copy"
        shutil.copytree(shards[1], copy)
        merge_runs([*shards, copy], tmp_path / "b")
    foreign = tmp_path / "foreign"
    asyncio.run(generate(GenerateConfig(n=7, seed=6, shard="2/3", progress=False), foreign,
                         backend=ScriptedBackend(rule_following_script)))
    with pytest.raises(SynthError, match="different runs"):
        merge_runs([*shards[:2], foreign], tmp_path / "c")
    doubled = tmp_path / "doubled"
    shutil.copytree(shards[2], doubled)
    with (doubled / "dialogues.jsonl").open("a") as out:
        out.write((shards[0] / "dialogues.jsonl").read_text().splitlines()[0] + "\n")
    with pytest.raises(SynthError, match="is in shard 0 and shard 2"):
        merge_runs([*shards[:2], doubled], tmp_path / "d")


def test_a_shard_resumes_only_into_its_own_folder(shards):
    with pytest.raises(SynthError, match="holds shard 0/3 of this run, not 1/3"):
        run(shards[0], shard="1/3")


def test_bad_shard_values_are_refused():
    for value in ["3/3", "1-3", "a/b"]:
        with pytest.raises(ValueError):
            GenerateConfig(shard=value)
