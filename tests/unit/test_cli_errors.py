"""Bad input ends with one line naming the problem, exit code 2 and no traceback."""

import json

import pytest

from synth.data.demo import demo_path
from synth.errors import SynthError
from tests.helpers import run_synth


def assert_clean_error(result, *needles):
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for needle in needles:
        assert needle in lines[0]


def test_missing_model_file(tmp_path):
    result = run_synth("generate", "--n", "1", "--out", str(tmp_path), "--model", str(tmp_path / "gone.gguf"))
    assert_clean_error(result, "model file not found", "gone.gguf")
    assert json.loads((tmp_path / "manifest.json").read_text())["status"] == "failed"


def test_unreachable_base_url(tmp_path):
    result = run_synth(
        "generate", "--n", "1", "--out", str(tmp_path), "--backend", "openai", "--base-url", "http://127.0.0.1:9/v1",
        "--set", "api_max_attempts=4", env={"OPENAI_API_KEY": "sk-never-printed"},
    )
    assert_clean_error(result, "the OpenAI-compatible endpoint http://127.0.0.1:9/v1: no answer after 4 attempts")
    assert "sk-never-printed" not in result.stderr + result.stdout


GOOD = '{"user": "u1", "item": "m001", "rating": 9, "text": "fine"}\n'


@pytest.mark.parametrize(
    "content, needles",
    [
        ("", ["reviews.jsonl", "columns found: none"]),
        (GOOD + '{"user": "u1", "item"\n', ["reviews.jsonl, line 2", "JSON"]),
        (GOOD + '{"user": "u1", "item": "m002", "rating": "great", "text": "x"}\n', ["line 2", "field 'rating'"]),
        ('{"user": "u1", "item": "m001", "text": "no rating"}\n', ["field 'rating'", "missing"]),
        (GOOD + '{"user": "u1", "item": "zzz", "rating": 9, "text": "x"}\n', ["field 'item'", "'zzz'"]),
    ],
    ids=["empty", "malformed", "bad-value", "missing-column", "unknown-item"],
)
def test_bad_review_file(tmp_path, content, needles):
    reviews = tmp_path / "reviews.jsonl"
    reviews.write_text(content)
    catalog = str(demo_path("catalog.jsonl"))
    result = run_synth("generate", "--n", "1", "--out", str(tmp_path / "out"), "--catalog", catalog, "--reviews", str(reviews))
    assert_clean_error(result, *needles)
    assert not (tmp_path / "out").exists()


def test_skip_bad_lines_counts_instead_of_failing(tmp_path):
    reviews = tmp_path / "reviews.jsonl"
    reviews.write_text(GOOD + '{"user": "u1", "item"\n')
    result = run_synth(
        "generate", "--n", "1", "--out", str(tmp_path / "out"), "--catalog", str(demo_path("catalog.jsonl")),
        "--reviews", str(reviews), "--skip-bad-lines",
    )
    # the bad line becomes a warning naming it; the one good review cannot make a persona: a clean error
    assert result.returncode == 2 and "Traceback" not in result.stderr
    warning, error = [line for line in result.stderr.splitlines() if line.strip()]
    assert warning.startswith("WARNING") and "skipped" in warning and "reviews.jsonl, line 2" in warning
    assert error.startswith("error: no user has a review or rating scored")


def test_bad_option_value(tmp_path):
    result = run_synth("generate", "--out", str(tmp_path), "--backend", "nope")
    assert_clean_error(result, "config field 'backend'")


def test_unknown_retriever(tmp_path):
    result = run_synth("generate", "--n", "1", "--out", str(tmp_path), "--retriever", "tfidf")
    assert_clean_error(result, "config field 'retriever'", "'bm25', 'dense' or 'hybrid'")


def test_unloadable_embedding_model(tmp_path):
    result = run_synth(
        "generate", "--n", "1", "--out", str(tmp_path), "--retriever", "dense", "--model", "packaged:smollm2-135m",
        "--embedding-model", "no-such-org/no-such-model", env={"HF_HUB_OFFLINE": "1"},
    )
    assert_clean_error(result, "cannot load embedding model 'no-such-org/no-such-model'")


def test_ray_without_the_extra_says_how_to_install_it(monkeypatch):
    import sys

    from synth.ray_cluster import RAY_HINT, connect

    monkeypatch.setitem(sys.modules, "ray", None)  # as if the 'ray' extra were not installed
    with pytest.raises(SynthError, match=r"pip install 'synth-crs\[ray\]'") as raised:
        connect("auto")
    assert str(raised.value) == RAY_HINT


def test_a_bad_ratings_file_names_file_line_and_field_and_skipping_counts_it(tmp_path):
    ratings = tmp_path / "ratings.csv"
    rows = [f"u{u},m00{i},{4.5 if i < 4 else 1}" for u in (1, 2) for i in range(1, 6)]
    ratings.write_text("user,item,rating\n" + "\n".join(rows[:4] + ["u1,m001,7.5"] + rows[4:]) + "\n")
    args = ("generate", "--n", "2", "--out", str(tmp_path / "out"), "--catalog", str(demo_path("catalog.jsonl")),
            "--ratings", str(ratings), "--rating-scale", "0.5-5", "--model", str(tmp_path / "gone.gguf"))
    assert_clean_error(run_synth(*args), "ratings.csv", "line 6", "rating 7.5 is outside 0.5-5", "rating")
    skipped = run_synth(*args, "--skip-bad-lines")  # the bad line counted: the plan goes on to the model
    assert "model file not found" in skipped.stderr and "line 6" in skipped.stderr
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["counts"]["bad_lines_skipped"] == 1
