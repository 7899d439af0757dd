"""A tiny reference CRS behind synth's HTTP JSON protocol (docs/evaluation.md), for the tests: it asks once,
then recommends the movies of its list in order, skipping those mentioned. `reply` replaces its answer (to
test answers outside the protocol)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler

from synth.benchmarks.perf.serving import serving


def list_crs(titles: list[str]) -> Callable[[dict], dict]:
    """Ask on the first turn, then recommend the first title of `titles` not mentioned yet."""
    def answer(request: dict) -> dict:
        if not any(m["role"] == "recommender" for m in request["conversation"]):
            return {"utterance": "What kind of movie are you in the mood for?", "items": titles}
        left = [t for t in titles if t not in request["mentioned"]]
        return {"utterance": f"You could try {left[0]}." if left else "I'm out of ideas.", "items": left}
    return answer


@contextmanager
def crs_server(answer: Callable[[dict], dict | str]) -> Iterator[tuple[str, list[dict]]]:
    """The server's URL and the requests it received, while the block runs."""
    received: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the http.server name
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            received.append(request)
            reply = answer(request)
            body = (reply if isinstance(reply, str) else json.dumps(reply)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return None

    with serving(Handler) as port:
        yield f"http://127.0.0.1:{port}/crs", received
