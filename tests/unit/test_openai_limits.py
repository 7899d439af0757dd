"""Whole runs of the openai backend against a real local HTTP server that limits them: a server with room for
two requests at a time (429 beyond), one that states its limits in x-ratelimit-* headers, --rpm, and a server
that trickles its answer (the request deadline). The replies are scripted: these test pacing, not generation."""

import asyncio
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from synth.config import GenerateConfig
from synth.llm.scripted import rule_following_script
from synth.runner import generate
from tests.helpers import read_records
from tests.unit.test_fault_injection import completion


@pytest.fixture
def limited_server():
    """A server whose `state` decides how it limits: `room` (requests it serves at once, 429 beyond), `stated`
    (x-ratelimit-* headers to send on every `stated_every`-th POST) and `trickle` (POSTs whose answer is sent a
    byte every 0.1 s). It keeps each POST's arrival time and the answers it gave."""
    state = {"room": None, "stated": {}, "stated_every": 0, "trickle": set(), "arrivals": [], "statuses": [],
             "busy": 0}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send(self, status, body: bytes, headers=()):
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            return body

        def do_GET(self):
            self.wfile.write(self.send(200, json.dumps({"object": "list", "data": [{"id": "m"}]}).encode()))

        def do_POST(self):
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            with lock:
                index = len(state["arrivals"])
                state["arrivals"].append(time.monotonic())
                crowded = state["room"] is not None and state["busy"] >= state["room"]
                state["busy"] += not crowded
            if crowded:
                state["statuses"].append(429)
                return self.wfile.write(self.send(429, b'{"error": {"message": "slow down"}}'))
            try:
                time.sleep(0.02)
                schema = (request.get("response_format") or {}).get("json_schema", {}).get("schema")
                body = json.dumps(completion(rule_following_script(request["messages"], schema))).encode()
                every = state["stated_every"]
                headers = state["stated"].items() if every and index % every == every - 1 else ()
                body = self.send(200, body, headers)
                if index in state["trickle"]:
                    for byte in body:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(0.1)
                else:
                    self.wfile.write(body)
                state["statuses"].append(200)
            except (BrokenPipeError, ConnectionResetError):
                state["statuses"].append("abandoned")
            finally:
                with lock:
                    state["busy"] -= 1

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", state
    server.shutdown()


def run(url, tmp_path, **settings):
    config = GenerateConfig(
        seed=2, backend="openai", base_url=url, structured="json_schema", progress=False, request_cache=False,
        **settings,
    )
    manifest = asyncio.run(generate(config, tmp_path))
    records = read_records(tmp_path)
    assert len(records) == config.n and manifest.counts.failed == 0, [r.errors for r in records]
    return manifest


def test_a_crowded_server_halves_the_concurrency_and_every_dialogue_is_written(limited_server, tmp_path):
    url, state = limited_server
    state["room"] = 2
    manifest = run(url, tmp_path, n=8, concurrency=8)
    requests = manifest.requests
    assert requests.rate_limited == state["statuses"].count(429) > 0
    assert requests.concurrency_ceiling == 8 and requests.concurrency_decreases >= 1
    assert requests.concurrency_lowest <= 4
    assert requests.attempts == len(state["arrivals"]) + 1  # every POST, and the GET of the model list
    assert requests.retries == requests.attempts - requests.requests >= requests.rate_limited
    saved = json.loads((tmp_path / "manifest.json").read_text())["requests"]
    assert saved["concurrency_decreases"] == requests.concurrency_decreases


def test_rpm_is_the_most_requests_sent_in_a_minute(limited_server, tmp_path):
    url, state = limited_server
    manifest = run(url, tmp_path, n=2, concurrency=4, rpm=1200, max_utterances=4)
    arrivals = state["arrivals"]
    sent_per_minute = 60 * (len(arrivals) - 1) / (arrivals[-1] - arrivals[0])
    assert len(arrivals) >= 10 and sent_per_minute <= 1200 * 1.02  # one every 50 ms at most (the GET came first)
    assert manifest.requests.waited_for_limits_s > 0


def test_the_servers_stated_limit_pauses_the_next_request_until_its_reset(limited_server, tmp_path):
    url, state = limited_server
    state.update(stated={"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "400ms"}, stated_every=5)
    run(url, tmp_path, n=1, max_utterances=6)
    arrivals = state["arrivals"]
    gaps_after_stated = [arrivals[i + 1] - arrivals[i] for i in range(4, len(arrivals) - 1, 5)]
    assert gaps_after_stated and min(gaps_after_stated) >= 0.4


def test_a_server_that_trickles_its_answer_meets_the_request_deadline(limited_server, tmp_path):
    url, state = limited_server
    state["trickle"] = {0}  # about 30 s at a byte per 0.1 s, each byte well inside httpx's read timeout
    started = time.monotonic()
    manifest = run(url, tmp_path, n=1, max_utterances=4, request_timeout_s=1.0)
    assert manifest.requests.faults == 1
    assert time.monotonic() - started < 20
