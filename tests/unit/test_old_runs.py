"""A run folder written before manifests and records carried a schema version (synth at commit 2966a08:
data/fixtures/run_before_schema_versions, 3 scripted dialogues, seed 3) still reads, exports and resumes."""

from __future__ import annotations

import asyncio
import re
import shutil
from pathlib import Path

from synth.config import GenerateConfig
from synth.export.card import CardOptions
from synth.export.exporters import export_run
from synth.llm.scripted import ScriptedBackend, rule_following_script
from synth.records import RECORD_SCHEMA_VERSION, UNVERSIONED, DialogueRecord
from synth.runner import generate
from synth.runs.folder import RunFolder
from synth.runs.manifest import SCHEMA_VERSION

OLD_RUN = Path(__file__).resolve().parents[2] / "data" / "fixtures" / "run_before_schema_versions"
# The settings the old run was written with: its planner and temperature were the defaults before #25, its
# strategy the default before #26, no reply re-samples before #31, the recommender's think before #48, free
# wording before #63.
CONFIG = GenerateConfig(n=3, seed=3, planner="users", temperature=0.0, strategy="pearl", reply_resamples=0, think=True,
                        wording="free", progress=False)


def old_run_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "old"
    shutil.copytree(OLD_RUN, folder)
    return folder


def test_an_unversioned_run_reads_as_version_0(tmp_path):
    run = RunFolder.open(old_run_copy(tmp_path))
    assert run.manifest is not None and run.manifest.schema_version == 0
    assert run.manifest.counts.written == 3 and run.manifest.fingerprint == CONFIG.fingerprint()
    records = list(run.records())
    assert len(records) == 3
    assert all(r.schema_version == UNVERSIONED and r.scripted_turns == 2 for r in records)


def test_an_unversioned_run_exports_as_a_new_run_of_the_same_settings_does(tmp_path):
    new = tmp_path / "new"
    asyncio.run(generate(CONFIG, new, backend=ScriptedBackend(rule_following_script)))
    for to in ("pearl", "redial"):
        old_files = export_run(old_run_copy(tmp_path / to), to, tmp_path / f"old-{to}", shares={"train": 1.0},
                               options=CardOptions()).files
        new_files = export_run(new, to, tmp_path / f"new-{to}", shares={"train": 1.0}, options=CardOptions()).files
        assert [f.name for f in old_files] == [f.name for f in new_files]
        for old_file, new_file in zip(old_files, new_files):
            assert without_people(old_file.read_bytes()) == without_people(new_file.read_bytes()), f"{to}: {old_file.name} differs"


def without_people(exported: bytes) -> bytes:
    """An export with PEARL's director and cast fields emptied: the old run's catalog predates them (#43)."""
    return re.sub(rb'"gt_(director|cast)": "[^"]*"', rb'"gt_\1": ""', exported)


def test_an_unversioned_run_cut_short_resumes_after_an_upgrade(tmp_path):
    folder = old_run_copy(tmp_path)
    old_lines = (folder / "dialogues.jsonl").read_text().splitlines()
    (folder / "dialogues.jsonl").write_text("\n".join(old_lines[:2]) + "\n")  # the old run stopped after two
    manifest = asyncio.run(generate(CONFIG, folder, backend=ScriptedBackend(rule_following_script)))
    lines = (folder / "dialogues.jsonl").read_text().splitlines()
    assert manifest.counts.written == 3 and manifest.counts.resumed_with == 2
    assert lines[:2] == old_lines[:2], "the dialogues written before the upgrade are kept as they were"
    run = RunFolder.open(folder)
    assert run.manifest.schema_version == SCHEMA_VERSION
    records = list(run.records())
    assert [r.schema_version for r in records] == [UNVERSIONED, UNVERSIONED, RECORD_SCHEMA_VERSION]
    # the prompt templates have changed since (#25: personas from ratings; #31: the examples), so their hashes and
    # lengths differ; since #31 each turn records what the reply checks found (`checks`, with no re-samples at the
    # old run's setting) and the sampling names the re-sample limit; the game, its persona, seeds and turns are the
    # old synth's
    unchanged = {"schema_version": True, "scripted_turns": True, "generation": {"prompt_hashes", "prompt_tokens"},
                 "turns": {"__all__": {"checks"}}, "target_item": {"directors", "cast"}}  # #43: the catalog gained people
    replayed = records[2].model_dump(exclude=unchanged)
    assert replayed["generation"]["sampling"].pop("reply_resamples") == 0
    assert all(not t.checks or not t.checks.resampled for t in records[2].turns)
    old = DialogueRecord.model_validate_json(old_lines[2]).model_dump(exclude=unchanged)
    assert replayed == old, "the missing dialogue is played again as the old synth played it"
