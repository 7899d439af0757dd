"""The retry policy (synth.llm.retries) of the openai backend, start-up checks included, against a real local
HTTP server that fails on purpose."""

import asyncio
import json
import socket
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from synth.errors import SynthError
from synth.llm.openai_compat import RESENDS, OpenAIBackend
from synth.redaction import redact_url

COMPLETION = {
    "id": "x", "object": "chat.completion", "created": 0, "model": "m",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": '{"utterance": "hi"}'}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
}


@pytest.fixture
def flaky_server():
    """Answers each POST (and each GET of /models) with the next entry of its plan: a status (200 = a valid
    completion or model list), "drop" (the connection closed unanswered), "reset" (the same, with a TCP reset), "not-json" (an error page served as 200,
    typed JSON), "html-page" (the same, typed text/html), "retry-after" (429 asking to wait 0 s) or "format-500"
    (llama_cpp.server's 500 naming the response_format it cannot take). Every request's path and Authorization header are kept."""
    state = {"plan": [], "posts": 0, "get_plan": [], "gets": 0, "requests": []}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def answer(self, step, body):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            state["requests"].append((self.command, self.path, self.headers.get("Authorization")))
            if step == "drop":
                self.close_connection = True
                return self.connection.shutdown(2)
            if step == "reset":  # closed with a TCP reset, as a server that aborts an idle connection may
                self.close_connection = True
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                return self.connection.close()
            status = {"retry-after": 429, "not-json": 200, "html-page": 200, "format-500": 500}.get(step, step)
            message = "Input should be 'text' or 'json_object' at response_format.type" if step == "format-500" else "nope"
            payload = b"<html>proxy error</html>" if step in ("not-json", "html-page") else json.dumps(
                body if status == 200 else {"error": {"message": message}}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html" if step == "html-page" else "application/json")
            if step == "retry-after":
                self.send_header("Retry-After", "0")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_POST(self):
            step = state["plan"][state["posts"]] if state["posts"] < len(state["plan"]) else 200
            state["posts"] += 1
            self.answer(step, state.get("completion", COMPLETION))

        def do_GET(self):
            step = state["get_plan"][state["gets"]] if state["gets"] < len(state["get_plan"]) else 200
            state["gets"] += 1
            self.answer(step, {"object": "list", "data": [{"id": "m", "object": "model"}]})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", state
    server.shutdown()


def check(url, **options):
    """The backend's start-up checks (model list, structured-output probe); returns the backend."""
    backend = OpenAIBackend(base_url=url, api_key="sk-secret", max_attempts=4, backoff_max_s=0.05, **options)

    async def go():
        try:
            await backend.check()
        finally:
            await backend.aclose()

    asyncio.run(go())
    return backend


def quick_backend(url):
    """A backend that retries 4 times, quickly."""
    return OpenAIBackend("m", base_url=url, api_key="k", structured="none", max_attempts=4, backoff_max_s=0.05)


def complete(url, backend=None):
    backend = backend or quick_backend(url)

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


def test_prompt_tokens_the_server_served_from_its_cache_are_not_counted_as_evaluated(flaky_server):
    url, state = flaky_server
    assert complete(url).prompt_tokens_evaluated is None  # the server does not say
    state["completion"] = {**COMPLETION, "usage": {**COMPLETION["usage"], "prompt_tokens_details": {"cached_tokens": 5}}}
    assert complete(url).prompt_tokens_evaluated == 2


def test_faults_are_counted_by_kind_with_the_transports_own_error(flaky_server):
    url, state = flaky_server
    state["plan"] = [503] + ["drop"] * (RESENDS + 1) + [503]  # a connection closed once too often is a fault
    backend = quick_backend(url)
    complete(url, backend)
    kinds = backend.traffic.as_counts()["fault_kinds"]
    assert kinds.pop("HTTP 503") == 2 and backend.traffic.faults == 3
    # the SDK's error (aiohttp's dropped connection reaches it as a timeout), and the HTTP library's under it
    [(dropped, count)] = kinds.items()
    assert count == 1 and dropped in {"TimeoutError: ServerDisconnectedError", "ConnectionError: RemoteProtocolError"}


def test_a_request_that_meets_a_closed_connection_goes_out_again_at_once_not_as_a_fault(flaky_server):
    url, state = flaky_server
    state["plan"] = ["drop", "reset", "drop"]  # what a server's idle timeout does to a kept-alive connection
    backend = OpenAIBackend("m", base_url=url, api_key="k", structured="none", max_attempts=2, backoff_max_s=600)
    assert complete(url, backend).text == '{"utterance": "hi"}'
    counts = backend.traffic.as_counts()
    assert state["posts"] == 4 and counts["closed_connections"] == 3
    assert counts["faults"] == 0 and counts["attempts"] == 1  # no backoff (600 s at most) was waited


def test_client_errors_are_not_retried(flaky_server):
    import openai

    url, state = flaky_server
    state["plan"] = [400]
    with pytest.raises(openai.BadRequestError):
        complete(url)
    assert state["posts"] == 1


def test_retries_give_up_after_max_attempts_with_one_line_naming_the_endpoint(flaky_server):
    url, state = flaky_server
    state["plan"] = [502] * 10
    with pytest.raises(SynthError) as error:
        complete(url)
    assert state["posts"] == 4
    assert str(error.value) == f"the OpenAI-compatible endpoint {url}: no answer after 4 attempts (last error: HTTP 502)"


def test_faults_on_the_first_requests_are_retried_and_never_taken_for_an_answer(flaky_server):
    url, state = flaky_server
    # the model list: a dropped connection, then error pages as 200 (JSON-typed, then typed as the HTML it is)
    state["get_plan"] = ["drop", "not-json", "html-page"]
    state["plan"] = ["retry-after", "html-page", 500]  # the json_schema probe: 429, an error page, 500
    backend = check(url, structured="auto")
    assert backend.model_info.name == "m" and backend.model_info.extra == {"structured": "json_schema"}
    assert (state["gets"], state["posts"]) == (4, 4)


def test_a_client_error_is_the_servers_answer_about_a_structured_mode(flaky_server):
    url, state = flaky_server
    state["plan"] = [400, 503]  # json_schema refused; json_object's probe meets a transient fault, then passes
    assert check(url, structured="auto").model_info.extra == {"structured": "json_object"}
    assert state["posts"] == 3


def test_a_server_error_that_names_the_response_format_is_a_refusal_not_a_fault(flaky_server):
    url, state = flaky_server
    state["plan"] = [500, "format-500"]  # a transient 500 is retried; the 500 about response_format is an answer
    assert check(url, structured="auto").model_info.extra == {"structured": "json_object"}
    assert state["posts"] == 3


def test_start_up_checks_that_run_out_of_attempts_stop_with_one_line_and_no_key(flaky_server):
    url, state = flaky_server
    state["plan"] = ["drop"] * 100
    with pytest.raises(SynthError) as error:
        check(url, structured="auto")
    assert str(error.value).startswith(f"the OpenAI-compatible endpoint {url}: no answer after 4 attempts")
    assert "sk-secret" not in str(error.value) and state["posts"] == 4 * (RESENDS + 1)
    assert all(auth == "Bearer sk-secret" for _, _, auth in state["requests"])  # the key went only to the server


def test_redact_url_drops_credentials_and_query():
    assert redact_url("https://user:secret@host.example:8443/v1?key=abc") == "https://host.example:8443/v1"
