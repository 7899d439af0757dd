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
        env={"OPENAI_API_KEY": "sk-never-printed"},
    )
    assert_clean_error(result, "cannot reach the OpenAI-compatible endpoint http://127.0.0.1:9/v1")
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
    assert error.startswith("error: no user has a review scored")


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
