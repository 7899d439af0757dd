"""`synth evaluate` with the real seeker (the packaged SmolLM2 through llama.cpp) on ReDial test cases: against
the oracle, random and an HTTP CRS (tests/crs_server.py), then the same command again, which resumes."""

import json

import pytest

from tests.crs_server import crs_server, list_crs
from tests.helpers import SMOLLM, invoke_synth, read_records, run_synth

pytestmark = pytest.mark.integration


def test_the_real_seeker_talks_to_four_crss_and_a_second_run_resumes(tmp_path):
    out = tmp_path / "evaluate"
    with crs_server(list_crs(["Toy Story (1995)", "Heat (1995)", "The Matrix (1999)"])) as (url, received):
        args = ["evaluate", "--test", "redial-test", "--crs", "oracle", "--crs", "random", "--crs", f"http:{url}",
                "--crs", "synth-llm", "--n", "1", "--turns", "2", "--seeker-model", SMOLLM, "--out", str(out),
                "--no-progress"]
        first = run_synth(*args)
        assert first.returncode == 0, first.stderr
        asked = len(received)
        again = invoke_synth(*args)  # in this process: no new interpreter to start for a run with nothing to play
        assert again.returncode == 0, again.stderr
    results = json.loads((out / "results.json").read_text())
    assert results["cases"]["played"] == 1 and results["settings"]["seeker_model"] == "packaged:smollm2-135m"
    oracle, chance = results["systems"]["oracle"], results["systems"]["random"]
    assert oracle["success"]["mean"] == oracle["success_at_first_recommendation"] == 1.0
    assert chance["expected_by_chance"]["success"] < 0.01
    assert all(s["leaks_reaching_crs"] == 0 and s["errors"] == 0 for s in results["systems"].values())
    for folder in ("oracle", "random"):
        records = read_records(out / folder)
        assert len(records) == 1 and all(r.generation.backend == "llamacpp" for r in records)
        for record in records:  # the seeker's messages are the model's, never its target's title
            said = [t.text for t in record.turns[record.scripted_turns:] if t.role == "seeker"]
            assert said and all(text.strip() for text in said)
    # synth's own recommender, on the seeker's model: it asks first, then recommends one of its candidates
    for record in read_records(out / "synth-llm"):
        crs_turns = [t for t in record.turns[record.scripted_turns:] if t.role == "recommender"]
        assert len(crs_turns) == 2 and all(t.text.strip() for t in crs_turns)
    assert results["systems"]["synth-llm"]["conversations"] == 1
    assert asked == 1 + 2 and len(received) == asked + 1  # a probe, then 2 turns of the case; the rerun: a probe
    assert (out / "results.md").read_text().count("| oracle |") == 1 and (out / "success_by_turn.png").exists()


def test_bad_crs_and_test_sets_are_one_line_each(tmp_path, scripted_run):
    for test, args, message in [
        ("redial-test", ["--crs", "nonsense"], "unknown CRS 'nonsense'"),
        ("redial-test", ["--crs", "http://127.0.0.1:9/crs"], "cannot be reached"),
        ("redial-test", ["--crs", "popularity"], "give --train"),
        # a run of the demo catalog: none of its targets is a MovieLens movie
        (str(scripted_run), ["--crs", "oracle"], "has no target in the catalog (20 targets; the catalog is MovieLens"),
    ]:
        # in this process: four refusals, no new interpreter each (the test above starts the console script)
        result = invoke_synth("evaluate", "--test", test, *args, "--n", "1", "--seeker-model", SMOLLM,
                              "--out", str(tmp_path / "x"), "--no-progress")
        assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert not (tmp_path / "x" / "results.json").exists()
