"""The openai backend against a real OpenAI-compatible server: llama-cpp-python's own server."""

import json

import pytest

from synth.benchmarks.perf.servers import llama_cpp_server
from synth.llm.gguf_models import resolve_model
from tests.helpers import read_records, run_synth

pytestmark = pytest.mark.integration
SECRET = "sk-test-secret-do-not-log-4242"


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    model = resolve_model("packaged:smollm2-135m").path
    log = tmp_path_factory.mktemp("server") / "server.log"
    try:
        with llama_cpp_server(model, log, api_key=SECRET) as url:
            yield url
    except RuntimeError as exc:
        pytest.fail(f"llama_cpp.server: {exc}; see {log}")


def test_generates_through_an_openai_compatible_server(server_url, tmp_path):
    result = run_synth(
        "-v", "generate", "--backend", "openai", "--base-url", server_url, "--n", "2", "--concurrency", "2",
        "--max-utterances", "4", "--out", str(tmp_path), "--no-progress",
        env={"OPENAI_API_KEY": SECRET},
    )
    assert result.returncode == 0, result.stderr
    records = read_records(tmp_path)
    assert len(records) == 2
    for record in records:
        assert not record.errors, record.errors
        assert record.generation.backend == "openai"
        assert len(record.turns) >= 6 and record.generation.completion_tokens > 0
    recommending = [turn for record in records for turn in record.turns if turn.recommended_item]
    assert recommending, "no recommendation was made"
    for turn in recommending:  # the schema keeps every choice inside the retrieved candidates
        assert turn.recommended_item in {c.item_id for c in turn.candidates or []}
    manifest_text = (tmp_path / "manifest.json").read_text()
    manifest = json.loads(manifest_text)
    # llama_cpp.server answers json_schema with HTTP 500 and takes a schema inside json_object
    assert manifest["model"]["extra"]["structured"] == "json_object"
    assert manifest["model"]["source"] == server_url
    everything = manifest_text + (tmp_path / "dialogues.jsonl").read_text() + result.stdout + result.stderr
    assert SECRET not in everything


def test_wrong_key_is_a_clean_error(server_url, tmp_path):
    result = run_synth(
        "generate", "--backend", "openai", "--base-url", server_url, "--n", "1", "--out", str(tmp_path),
        env={"OPENAI_API_KEY": "sk-wrong"},
    )
    assert result.returncode == 2 and "refused the API key" in result.stderr
    assert "Traceback" not in result.stderr and "sk-wrong" not in result.stderr
