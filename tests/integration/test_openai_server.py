"""The openai backend against a real OpenAI-compatible server: llama-cpp-python's own server."""

import json
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from synth.llm.gguf_models import resolve_model
from tests.helpers import read_records, run_synth

pytestmark = pytest.mark.integration
SECRET = "sk-test-secret-do-not-log-4242"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    model = resolve_model("packaged:smollm2-135m").path
    port = free_port()
    log = (tmp_path_factory.mktemp("server") / "server.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", "4096", "--api_key", SECRET],
        stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {proc.returncode}; see {log.name}")
            try:
                request = urllib.request.Request(f"{url}/models", headers={"Authorization": f"Bearer {SECRET}"})
                with urllib.request.urlopen(request, timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("llama_cpp.server did not come up in 120 s")
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def test_generates_through_an_openai_compatible_server(server_url, tmp_path):
    result = run_synth(
        "-v", "generate", "--backend", "openai", "--base-url", server_url, "--n", "2", "--concurrency", "2",
        "--out", str(tmp_path), "--no-progress",
        env={"OPENAI_API_KEY": SECRET},
    )
    assert result.returncode == 0, result.stderr
    records = read_records(tmp_path)
    assert len(records) == 2
    for record in records:
        assert not record.errors, record.errors
        assert record.generation.backend == "openai"
        assert len(record.turns) >= 6 and record.generation.completion_tokens > 0
        for turn in record.turns:
            if turn.recommended_item:
                assert turn.recommended_item in {c.item_id for c in turn.candidates}
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
