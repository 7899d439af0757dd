"""The openai backend against a real OpenAI-compatible server: llama-cpp-python's own; directly, and through a
seeded fault-injecting proxy with faults on the very first requests (the model list and the structured-output
probe), a kill -9 in the middle of the run and a resume: exactly n dialogues, the same records as the fault-free
run, and the API key in no file or output."""

import json
import os
import signal
import subprocess

import pytest

from synth.benchmarks.perf.fault_proxy import FaultPlan, fault_proxy
from synth.benchmarks.perf.servers import llama_cpp_server
from synth.llm.gguf_models import resolve_model
from tests.helpers import comparable, read_records, requantized, run_synth, synth_command, wait_for_first_dialogue

pytestmark = pytest.mark.integration
SECRET = "sk-test-secret-do-not-log-4242"
GENERATE = ["generate", "--backend", "openai", "--n", "2", "--concurrency", "2", "--max-utterances", "4",
            "--reply-resamples", "0", "--no-progress",  # the server and its faults are tested, not the reply checks
            # a deadline no busy machine reaches: a request it cut would be sent again while the server still
            # answers the first, a fault the fault-free run did not meet (seen on a loaded 2-core machine)
            "--set", "request_timeout_s=900"]
# the model list dropped, then answered; the json_schema probe meets a 429, an error page and a 500 before
# llama_cpp.server's own answer (a 500 naming response_format: the mode is refused, json_object is taken)
FIRST_FAULTS = ("drop", None, "429", "not-json", "500")


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    folder = tmp_path_factory.mktemp("server")
    # SmolLM2's weights re-encoded from the package's Q4_1 to Q8_0 by llama.cpp's own quantizer: the server reads
    # every prompt whole (fresh_state), and Q8_0 prompts take llama.cpp's fast matrix kernels (these tests 28% faster)
    model = requantized(resolve_model("packaged:smollm2-135m").path, folder / "smollm2-135m.q8_0.gguf")
    log = folder / "server.log"
    try:
        with llama_cpp_server(model, log, api_key=SECRET, fresh_state=True) as url:  # answers as the fault-free run's
            yield url
    except RuntimeError as exc:
        pytest.fail(f"llama_cpp.server: {exc}; see {log}")


@pytest.fixture(scope="module")
def fault_free(server_url, tmp_path_factory):
    """A run straight to the server: its folder and the command's result."""
    out = tmp_path_factory.mktemp("fault-free")
    result = run_synth("-v", *GENERATE, "--base-url", server_url, "--out", str(out), env={"OPENAI_API_KEY": SECRET})
    return out, result


def everything_written(folder, *outputs):
    """Every file under `folder` and the given outputs, as one text."""
    texts = [path.read_bytes().decode("utf-8", "replace") for path in folder.rglob("*") if path.is_file()]
    return "\n".join(texts + [o.decode() if isinstance(o, bytes) else o for o in outputs])


def test_generates_through_an_openai_compatible_server(server_url, fault_free):
    out, result = fault_free
    assert result.returncode == 0, result.stderr
    records = read_records(out)
    assert len(records) == 2
    for record in records:
        assert not record.errors, record.errors
        assert record.generation.backend == "openai"
        assert len(record.turns) >= 6 and record.generation.completion_tokens > 0
    recommending = [turn for record in records for turn in record.turns if turn.recommended_item]
    assert recommending, "no recommendation was made"
    for turn in recommending:  # the schema keeps every choice inside the retrieved candidates
        assert turn.recommended_item in {c.item_id for c in turn.candidates or []}
    manifest = json.loads((out / "manifest.json").read_text())
    # llama_cpp.server answers json_schema with HTTP 500 and takes a schema inside json_object
    assert manifest["model"]["extra"]["structured"] == "json_object"
    assert manifest["model"]["source"] == server_url
    assert manifest["requests"]["faults"] == 0 and manifest["requests"]["attempts"] == manifest["requests"]["requests"]
    assert SECRET not in everything_written(out, result.stdout, result.stderr)


def test_faults_from_the_first_request_and_a_kill_9_leave_the_run_as_if_nothing_happened(
    server_url, fault_free, tmp_path
):
    plan = FaultPlan(rate=0.3, seed=13, first=FIRST_FAULTS, stall_s=1.0)
    env = {"OPENAI_API_KEY": SECRET}
    with fault_proxy(server_url, plan) as (proxy_url, proxy_log):
        args = [*GENERATE, "--base-url", proxy_url, "--out", str(tmp_path)]
        process = subprocess.Popen([synth_command(), *args], env={**os.environ, **env}, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
        dialogues = tmp_path / "dialogues.jsonl"
        wait_for_first_dialogue(process, dialogues)
        os.kill(process.pid, signal.SIGKILL)
        killed_out, killed_err = process.communicate()
        kept = [line for line in dialogues.read_text().splitlines(keepends=True) if line.endswith("\n")]
        assert len(kept) == 1

        resumed = run_synth(*args, env=env)
        assert resumed.returncode == 0, resumed.stderr

    assert [r.fault for r in proxy_log.requests[: len(FIRST_FAULTS)]] == list(FIRST_FAULTS)
    assert len(proxy_log.faults()) > len([f for f in FIRST_FAULTS if f])  # faults went on during the run
    records = read_records(tmp_path)
    assert len(records) == len({r.id for r in records}) == 2
    assert dialogues.read_text().startswith("".join(kept))
    assert comparable(records) == comparable(read_records(fault_free[0]))  # llama_cpp.server answers one at a time
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["status"] == "finished" and manifest["counts"]["failed"] == 0
    assert manifest["model"]["extra"]["structured"] == "json_object" and manifest["model"]["source"] == proxy_url
    assert manifest["requests"]["faults"] >= 1
    assert SECRET not in everything_written(tmp_path, killed_out, killed_err, resumed.stdout, resumed.stderr)


def test_wrong_key_is_a_clean_error(server_url, tmp_path):
    result = run_synth(
        "generate", "--backend", "openai", "--base-url", server_url, "--n", "1", "--out", str(tmp_path),
        env={"OPENAI_API_KEY": "sk-wrong"},
    )
    assert result.returncode == 2 and "refused the API key" in result.stderr
    assert "Traceback" not in result.stderr and "sk-wrong" not in result.stderr


def test_a_chat_model_behind_the_server_is_a_crs_of_synth_evaluate(server_url, tmp_path):
    """`synth evaluate --crs openai:URL`: the real seeker (in process) talks to the model behind the server, whose
    titles are read from its words; its conversation is a dialogue record, and the key is written nowhere."""
    crs = f"openai:{server_url}"
    result = run_synth("evaluate", "--test", "redial-test", "--crs", crs, "--crs-model", "smollm2-135m", "--n", "1",
                       "--turns", "2", "--seeker-model", "packaged:smollm2-135m", "--reply-resamples", "0",
                       "--out", str(tmp_path), "--no-progress", env={"OPENAI_API_KEY": SECRET})
    assert result.returncode == 0, result.stderr
    scores = json.loads((tmp_path / "results.json").read_text())["systems"]["openai:smollm2-135m"]
    assert scores["errors"] == 0 and scores["leaks_reaching_crs"] == 0
    (record,) = read_records(tmp_path / "openai_smollm2-135m")
    spoken = [t.text for t in record.turns[record.scripted_turns:] if t.role == "recommender"]
    assert len(spoken) == 2 and all(text.strip() for text in spoken)  # the model's own words, one per CRS turn
    assert SECRET not in everything_written(tmp_path, result.stdout, result.stderr)
