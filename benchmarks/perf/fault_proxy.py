"""A seeded fault-injecting HTTP proxy for the tests and the benchmarks: it stands in front of a real
OpenAI-compatible server and answers a share of the requests with a fault instead of the server's answer: a 429
with Retry-After, a 500, an error page served as 200, a dropped connection, or a stall before forwarding. Which
request meets which fault is decided by the seed and the request's number, so a run can be repeated; every
request is logged with the time it arrived."""

from __future__ import annotations

import http.client
import random
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from urllib.parse import urlsplit

from synth.benchmarks.perf.serving import serving

FAULTS = ("429", "500", "not-json", "drop", "stall")
FORWARDED_HEADERS = ("Authorization", "Content-Type", "Accept")


@dataclass(frozen=True)
class ProxiedRequest:
    arrived: float  # time.monotonic()
    method: str
    path: str
    fault: str | None


@dataclass
class FaultPlan:
    """`rate` of the requests meet a fault drawn from `faults`; the first requests meet `first` in order (None: no
    fault). A fault other than a stall never reaches the server, so the server sees what a fault-free run sends."""

    rate: float = 0.0
    seed: int = 0
    first: Sequence[str | None] = ()
    faults: Sequence[str] = FAULTS
    stall_s: float = 4.0
    retry_after_s: int = 1

    def fault(self, index: int) -> str | None:
        if index < len(self.first):
            return self.first[index]
        draw = random.Random(f"{self.seed}:{index}")
        return draw.choice(list(self.faults)) if draw.random() < self.rate else None


@dataclass
class ProxyLog:
    requests: list[ProxiedRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def faults(self) -> list[str]:
        return [r.fault for r in self.requests if r.fault is not None]

    def posts(self) -> list[ProxiedRequest]:
        return [r for r in self.requests if r.method == "POST"]


def _handler(upstream: str, plan: FaultPlan, log: ProxyLog) -> type[BaseHTTPRequestHandler]:
    target = urlsplit(upstream)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def answer(self, status: int, body: bytes, content_type: str = "application/json", **headers: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name.replace("_", "-"), value)
            self.end_headers()
            self.wfile.write(body)

        def forward(self, body: bytes) -> None:
            connection = http.client.HTTPConnection(target.hostname, target.port, timeout=900)
            try:
                headers = {name: self.headers[name] for name in FORWARDED_HEADERS if self.headers.get(name)}
                connection.request(self.command, self.path, body=body or None, headers=headers)
                response = connection.getresponse()
                payload = response.read()
                kept = {name: value for name, value in response.getheaders() if name.lower().startswith("x-ratelimit")}
                self.answer(response.status, payload, response.getheader("Content-Type", "application/json"), **kept)
            finally:
                connection.close()

        def handle_request(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))
            with log.lock:
                index = len(log.requests)
                fault = plan.fault(index)
                log.requests.append(ProxiedRequest(time.monotonic(), self.command, self.path, fault))
            if fault == "429":
                return self.answer(429, b'{"error": {"message": "rate limited"}}', Retry_After=str(plan.retry_after_s))
            if fault == "500":
                return self.answer(500, b'{"error": {"message": "internal error"}}')
            if fault == "not-json":
                return self.answer(200, b"<html><body>502 Bad Gateway</body></html>", "text/html")
            if fault == "drop":
                self.close_connection = True
                return self.connection.shutdown(2)
            if fault == "stall":
                time.sleep(plan.stall_s)
            try:
                self.forward(body)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client gave up waiting

        do_GET = do_POST = handle_request

    return Handler


@contextmanager
def fault_proxy(upstream: str, plan: FaultPlan) -> Iterator[tuple[str, ProxyLog]]:
    """Serve the proxy on a free port of 127.0.0.1 in front of `upstream` (a /v1 base URL); yields the proxy's
    /v1 base URL and its log."""
    log = ProxyLog()
    with serving(_handler(upstream, plan, log)) as port:
        yield f"http://127.0.0.1:{port}{urlsplit(upstream).path}", log
