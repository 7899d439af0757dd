"""A whole run against a real local OpenAI-compatible HTTP server that answers 429, 500, too slowly,
by dropping the connection, with a body that is not JSON, and with a reply out of format, before it
plays properly: every dialogue is still written, none fails."""

import asyncio
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from synth.config import GenerateConfig
from synth.llm.retries import EndpointUnavailable
from synth.llm.scripted import rule_following_script
from synth.runner import generate
from tests.helpers import read_records

FAULTS = ["429", "500", "slow", "drop", "not-json", "out-of-format"]


def completion(text):
    return {
        "id": "x", "object": "chat.completion", "created": 0, "model": "rules",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16},
    }


@pytest.fixture
def faulty_server():
    state = {"posts": 0, "faults": [], "down_after": None}  # down_after: POSTs answered before an outage
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send(self, status, body: bytes):
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            self.send(200, json.dumps({"object": "list", "data": [{"id": "rules", "object": "model"}]}).encode())

        def do_POST(self):
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            with lock:
                index = state["posts"]
                state["posts"] += 1
            if state["down_after"] is not None and index >= state["down_after"]:
                return self.send(503, b'{"error": {"message": "down for maintenance"}}')
            fault = FAULTS[index // 2] if index % 2 == 1 and index // 2 < len(FAULTS) else None
            if fault:
                state["faults"].append(fault)
            if fault in ("429", "500"):
                return self.send(int(fault), b'{"error": {"message": "injected"}}')
            if fault == "slow":
                time.sleep(1.5)  # past the client's timeout
            if fault == "drop":
                self.close_connection = True
                return self.connection.shutdown(2)
            if fault == "not-json":
                return self.send(200, b"<html>proxy error</html>")
            schema = (request.get("response_format") or {}).get("json_schema", {}).get("schema")
            text = "sure!" if fault == "out-of-format" else rule_following_script(request["messages"], schema)
            self.send(200, json.dumps(completion(text)).encode())

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", state
    server.shutdown()


def test_a_run_survives_every_kind_of_fault(faulty_server, tmp_path):
    url, state = faulty_server
    config = GenerateConfig(
        n=3, seed=2, backend="openai", base_url=url, structured="json_schema", concurrency=2,
        request_timeout_s=0.5, api_max_attempts=6, progress=False,
    )
    manifest = asyncio.run(generate(config, tmp_path))
    assert state["faults"] == FAULTS  # every fault was served
    records = read_records(tmp_path)
    assert len(records) == 3 and manifest.counts.failed == 0, [r.errors for r in records]
    assert all(r.outcome.accepted_target for r in records)
    assert sum(r.generation.format_retries for r in records) >= 1  # the out-of-format reply was asked again


def test_a_server_that_stays_down_stops_the_run_and_a_resume_goes_on(faulty_server, tmp_path):
    url, state = faulty_server
    state["posts"] = len(FAULTS) * 2  # no injected faults: only the outage
    config = GenerateConfig(
        n=4, seed=2, backend="openai", base_url=url, structured="json_schema", concurrency=1,
        api_max_attempts=2, progress=False,
    )
    state["down_after"] = state["posts"] + 8  # a dialogue or two finish (about 4 requests each), then every request fails
    with pytest.raises(EndpointUnavailable, match=f"{url}: no answer after 2 attempts"):
        asyncio.run(generate(config, tmp_path))
    written = read_records(tmp_path)
    assert 1 <= len(written) < 4 and not any(r.errors for r in written)  # the outage wrote no failed dialogue
    assert json.loads((tmp_path / "manifest.json").read_text())["status"] == "failed"
    state["down_after"] = None  # the server is back: the same command goes on
    manifest = asyncio.run(generate(config, tmp_path))
    assert manifest.counts.written == 4 and manifest.counts.resumed_with == len(written) and manifest.counts.failed == 0

