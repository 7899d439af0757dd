"""The preference filters with the real offline default model as the LLM judge (packaged
Qwen2.5-Coder-1.5B through llama.cpp): each catches its planted contradiction and keeps the clean
dialogue, through `synth filter`."""

from __future__ import annotations

import json

import pytest

from tests.helpers import clean_turns, record, replace, run_synth, write_run

pytestmark = pytest.mark.integration
SELF_CONTRADICTION = "I adore slow films where nothing much happens; the slower the better."
WRONG_GUESS = "The seeker dislikes slow films, so I will pick a fast one."  # after SELF_CONTRADICTION


def test_llm_judge_catches_planted_contradictions_and_keeps_the_clean_dialogue(tmp_path):
    clean = record(clean_turns(), rid="clean")
    planted = record(replace(replace(clean_turns(), 1, text=SELF_CONTRADICTION), 4, think=WRONG_GUESS), rid="planted")
    run = write_run(tmp_path / "run", [clean, planted])
    out = tmp_path / "out"
    result = run_synth(
        "filter", str(run), "--out", str(out), "--filters", "preference", "--no-progress", "--json", timeout=1200
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert [json.loads(line)["id"] for line in (out / "dialogues.jsonl").read_text().splitlines()] == ["clean"]
    (entry,) = [json.loads(line) for line in (out / "dropped.jsonl").read_text().splitlines()]
    drops = {d["filter"]: d for d in entry["drops"]}
    assert entry["id"] == "planted" and set(drops) == {"persona_contradiction", "guess_contradiction"}
    assert drops["persona_contradiction"]["evidence"] == SELF_CONTRADICTION
    assert "review 1, disliked it" in drops["persona_contradiction"]["reason"]
    assert drops["guess_contradiction"]["evidence"] == WRONG_GUESS and drops["guess_contradiction"]["turn"] == 6
    assert report["preference_method"].startswith("llm judge (llamacpp: qwen2.5-coder-1.5b")
    assert all(row["judge_errors"] == 0 for row in report["filters"].values())
    assert (out / "judge_requests.sqlite").exists()
