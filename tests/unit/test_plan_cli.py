"""`synth generate --plan` and the planner's stop, on the shared MovieLens ratings (no model is loaded)."""

import json

from typer.testing import CliRunner

from synth.cli import app

NO_MODEL = ["--model", "/no/such/model.gguf"]  # any attempt to load a model would fail with this path


def invoke(*args: str):
    return CliRunner().invoke(app, ["generate", *args])


def test_plan_json_on_movielens_ratings_has_40000_distinct_pairs_and_personas(tmp_path):
    result = invoke("--n", "40000", "--source", "movielens", "--plan", "--json", "--out", str(tmp_path / "r"), *NO_MODEL)
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert plan["n"] == plan["distinct_user_target_pairs"] == plan["distinct_personas"] == 40000
    assert plan["available_pairs"] == 48580  # ml-latest-small: ratings of 4 stars or more
    assert plan["distinct_users"] == 609 and 0 < plan["target_gini"] < 1  # 1 of the 610 users rated nothing 4+
    assert plan["max_games_per_user"] < 2698  # users take turns: the heaviest rater's 4+ ratings are not all used
    assert not (tmp_path / "r").exists(), "a plan writes nothing"


def test_too_many_games_stop_before_any_model_call_with_the_number_available(tmp_path):
    result = invoke("--n", "200000", "--source", "movielens", "--out", str(tmp_path / "r"), *NO_MODEL)
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "48,580 distinct (user, target) pairs" in lines[0], result.stderr
    assert "--allow-repeats" in lines[0] and "--target-min-score" in lines[0]
    assert not (tmp_path / "r" / "dialogues.jsonl").exists()


def test_allow_repeats_plans_past_the_pairs(tmp_path):
    result = invoke("--n", "100", "--plan", "--json", "--allow-repeats", "--out", str(tmp_path / "r"), *NO_MODEL)
    plan = json.loads(result.stdout)
    assert plan["n"] == 100 and plan["distinct_user_target_pairs"] == plan["available_pairs"] == 69
    assert plan["distinct_personas"] > 69  # a pair played again draws its general taste anew


def test_plan_table_and_reference_coverage(tmp_path):
    result = invoke(
        "--n", "2000", "--source", "movielens", "--plan", "--coverage-of", "redial-test", "--out", str(tmp_path / "r"),
        *NO_MODEL,
    )
    assert result.exit_code == 0, result.output
    assert "distinct user target pairs" in result.stdout and "targets of redial-test covered" in result.stdout
    figures = json.loads(invoke("--n", "2000", "--source", "movielens", "--plan", "--json", "--coverage-of",
                                "redial-test", "--out", str(tmp_path / "r"), *NO_MODEL).stdout)
    coverage = figures["coverage"]["redial-test"]
    assert 0 < coverage["covered"] < coverage["total"] and coverage["share"] == coverage["covered"] / coverage["total"]


def test_plan_of_gorecdial_games(tmp_path):
    result = invoke("--mode", "gorecdial", "--n", "5", "--plan", "--json", "--out", str(tmp_path / "r"), *NO_MODEL)
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert plan["mode"] == "gorecdial" and plan["n"] == 5 and plan["available_pairs"] is None
    assert 1 <= plan["distinct_users"] <= 5 and plan["distinct_personas"] == 5
