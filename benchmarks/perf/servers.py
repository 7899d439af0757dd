"""A real OpenAI-compatible server on 127.0.0.1 for benchmarks and tests: llama-cpp-python's own."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_serving(url: str, proc: subprocess.Popen, *, api_key: str | None, timeout_s: float) -> None:
    """Poll GET {url}/models until it answers 200; RuntimeError when the process dies or time runs out."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    deadline = time.monotonic() + timeout_s
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode} before answering")
        try:
            with urllib.request.urlopen(urllib.request.Request(f"{url}/models", headers=headers), timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server did not answer within {timeout_s:.0f} s") from None
            time.sleep(0.5)


# llama_cpp.server's entry point, its model loaded as synth loads it on this machine (synth.llm.engine_check: without
# llama.cpp's extra buffer types where they fault); with "fresh", Llama.generate starts from an empty cache every call
SERVER_LAUNCH = """
import runpy, sys
from pathlib import Path
from llama_cpp import Llama
from synth.llm.engine_check import engine_settings, model_params
if sys.argv.pop(1) == "fresh":
    generate = Llama.generate
    def generate_from_empty_cache(self, tokens, *args, **kwargs):
        self.reset()
        return generate(self, tokens, *args, **kwargs)
    Llama.generate = generate_from_empty_cache
with model_params(engine_settings(Path(sys.argv[sys.argv.index("--model") + 1])).extra_buffers):
    runpy.run_module("llama_cpp.server", run_name="__main__")
"""


@contextmanager
def llama_cpp_server(
    model: Path, log_path: Path, *, api_key: str | None = None, n_ctx: int = 4096, timeout_s: float = 120,
    fresh_state: bool = False,
) -> Iterator[str]:
    """Run llama_cpp.server (`python -m llama_cpp.server`, its model loaded as synth loads models here) on a free
    port; yields its /v1 base URL, stops it on exit. With `fresh_state`, every request is read from an empty KV
    cache, so its answer depends on the request alone: the server otherwise reuses the previous request's cache, and
    a prompt sent twice in a row (a format retry right after its failed try) is sampled from a one-token replay that
    can pick other tokens than a full read."""
    port = free_port()
    command = [sys.executable, "-c", SERVER_LAUNCH, "fresh" if fresh_state else "shared", "--model", str(model),
               "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx),
               "--n_threads", str(os.cpu_count() or 1)]  # its default: half the cores
    if api_key:
        command += ["--api_key", api_key]
    with log_path.open("w") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}/v1"
            wait_until_serving(url, proc, api_key=api_key, timeout_s=timeout_s)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
