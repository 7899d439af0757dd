"""Golden files: a seeded scripted run, its filtered folder and its exports (PEARL, ReDial; CRSLab and DialogueKit
of the run), byte for byte.

The scripted backend is game logic, not a model: these files pin what synth writes (records, drops, report,
exports) so that a refactor that changes any byte fails here. A commit that changes them on purpose says
which issue changes the behaviour and why; regenerate with SYNTH_UPDATE_GOLDEN=1.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from synth.config import GenerateConfig
from synth.export.card import CardOptions
from synth.export.exporters import export_run
from synth.filters.config import FilterConfig
from synth.filters.pipeline import filter_run
from synth.llm.scripted import ScriptedBackend, rule_following_script
from synth.runner import generate
from tests.helpers import first_candidate_script

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
UPDATE = os.environ.get("SYNTH_UPDATE_GOLDEN") == "1"
SHARES = {"train": 0.8, "validation": 0.1, "test": 0.1}


def sometimes_fooled(messages: list[dict[str, str]], schema: dict | None) -> str:
    """The rule-following script, except that the seeker also accepts one non-target suggestion in three
    (chosen by a hash of the prompt), as a backend that cannot hold to the schema might: the acceptance rule's
    check re-samples such a reply (a new prompt, a new hash), so most are turned around and a few are kept."""
    reply = rule_following_script(messages, schema)
    if "accept" in (schema or {}).get("properties", {}):
        if hashlib.sha256(messages[-1]["content"].encode()).digest()[0] % 3 == 0:
            return json.dumps({"utterance": "Sounds great!", "accept": True})
    return reply


def produce(root: Path) -> dict[str, Path]:
    """Every golden output, written under `root`: name in the golden folder -> file."""
    pearl, gorecdial, filtered = root / "pearl-run", root / "gorecdial-run", root / "filtered"
    human = root / "pearl-human-run"
    # The filtered run and the exports start from PEARL's fixed course, which the rule-following script
    # models; the default strategy's plans (human) are pinned on their own run. All in free wording, whose
    # prompts the scripts answer (decided wording's contents are pinned in test_content.py).
    free = {"wording": "free", "progress": False}
    asyncio.run(generate(GenerateConfig(n=8, seed=4, strategy="pearl", **free), pearl,
                         backend=ScriptedBackend(sometimes_fooled)))
    asyncio.run(generate(GenerateConfig(n=4, seed=4, **free), human, backend=ScriptedBackend(sometimes_fooled)))
    asyncio.run(generate(GenerateConfig(mode="gorecdial", n=3, seed=5, **free), gorecdial,
                         backend=ScriptedBackend(first_candidate_script)))
    asyncio.run(filter_run(pearl, filtered, FilterConfig()))
    outputs = {
        "pearl_run.dialogues.jsonl": pearl / "dialogues.jsonl",
        "pearl_human_run.dialogues.jsonl": human / "dialogues.jsonl",
        "gorecdial_run.dialogues.jsonl": gorecdial / "dialogues.jsonl",
        "filtered.dialogues.jsonl": filtered / "dialogues.jsonl",
        "filtered.dropped.jsonl": filtered / "dropped.jsonl",
    }
    exports = [(to, name, run) for to in ("pearl", "redial") for name, run in (("run", pearl), ("filtered", filtered))]
    for to, name, run in exports + [("crslab", "run", pearl), ("dialoguekit", "run", pearl)]:
        folder = root / f"export-{to}-{name}"
        for file in export_run(run, to, folder, shares=SHARES, options=CardOptions()).files:
            outputs[f"export_{to}_{name}.{file.name}"] = file
    return outputs


def report_without_paths(path: Path) -> bytes:
    """The filter report with the run's own input/output paths and timings left out (they vary per machine)."""
    report = json.loads(path.read_text())
    for key in ("input", "output", "started", "finished", "wall_s", "seconds", "dialogues_per_s"):
        report.pop(key, None)
    return (json.dumps(report, indent=2, sort_keys=True) + "\n").encode()


def test_outputs_match_the_golden_files(tmp_path):
    outputs = produce(tmp_path)
    produced = {name: file.read_bytes() for name, file in outputs.items()}
    produced["filtered.filter_report.json"] = report_without_paths(tmp_path / "filtered" / "filter_report.json")
    assert b"" not in {produced["filtered.dropped.jsonl"], produced["filtered.dialogues.jsonl"]}, \
        "the golden run must keep some dialogues and drop others"
    if UPDATE:
        shutil.rmtree(GOLDEN, ignore_errors=True)
        GOLDEN.mkdir(parents=True)
        for name, data in produced.items():
            (GOLDEN / name).write_bytes(data)
        pytest.skip(f"golden files rewritten in {GOLDEN}")
    expected = {file.name: file.read_bytes() for file in GOLDEN.iterdir()}
    assert sorted(produced) == sorted(expected)
    for name, data in produced.items():
        assert data == expected[name], f"{name} differs from tests/golden/{name}"
