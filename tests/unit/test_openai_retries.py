"""Retry policy of the openai backend against a real local HTTP server that fails on purpose."""

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from synth.llm.openai_compat import OpenAIBackend
from synth.redaction import redact_url

COMPLETION = {
    "id": "x", "object": "chat.completion", "created": 0, "model": "m",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": '{"utterance": "hi"}'}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
}


@pytest.fixture
def flaky_server():
    """Answers each POST with the next status from `plan` (200 = a valid completion)."""
    state = {"plan": [], "posts": 0}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            status = state["plan"][state["posts"]] if state["posts"] < len(state["plan"]) else 200
            state["posts"] += 1
            body = json.dumps(COMPLETION if status == 200 else {"error": {"message": "nope"}}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", state
    server.shutdown()


def complete(url):
    backend = OpenAIBackend("m", base_url=url, api_key="k", structured="none", max_attempts=4, backoff_max_s=0.05)

    async def go():
        try:
            return await backend.complete([{"role": "user", "content": "hi"}], max_tokens=8)
        finally:
            await backend.aclose()

    return asyncio.run(go())


def test_rate_limits_and_server_errors_are_retried(flaky_server):
    url, state = flaky_server
    state["plan"] = [429, 503, 500]
    completion = complete(url)
    assert state["posts"] == 4
    assert (completion.text, completion.prompt_tokens, completion.completion_tokens) == ('{"utterance": "hi"}', 7, 3)


def test_client_errors_are_not_retried(flaky_server):
    import openai

    url, state = flaky_server
    state["plan"] = [400]
    with pytest.raises(openai.BadRequestError):
        complete(url)
    assert state["posts"] == 1


def test_retries_give_up_after_max_attempts(flaky_server):
    import openai

    url, state = flaky_server
    state["plan"] = [502] * 10
    with pytest.raises(openai.InternalServerError):
        complete(url)
    assert state["posts"] == 4


def test_redact_url_drops_credentials_and_query():
    assert redact_url("https://user:secret@host.example:8443/v1?key=abc") == "https://host.example:8443/v1"
