"""Whether llama.cpp runs on this machine, asked of a child process before this one loads a model.

llama-cpp-python compiles llama.cpp for the processor it is built on (`-march=native`). Two builds die of
"Illegal instruction" on their first matrix product: a wheel built on another processor (a shared pip cache),
and a build with Intel AMX on a virtual machine that lists AMX in /proc/cpuinfo but faults on its first tile
instruction. llama.cpp reaches AMX only through its extra buffer types (weights repacked for a faster kernel),
so a model loaded without them never runs a tile instruction.

`engine_settings(model)` loads the model in a child process and runs a prompt long enough to take the
batched matrix product, then a few decoded tokens: with the extra buffer types, and, when that child died of
SIGILL, without them. Only when both die does it stop, with one line that names the fix. The answer is kept per
llama.cpp build, processor and model file in synth's cache, so only the first load of a model on a machine
pays for the check. `python -m synth.llm.engine_check MODEL.gguf` is that child.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from synth.data.paths import cache_root
from synth.errors import SynthError
from synth.llm.native_faults import exit_with_line_on_illegal_instruction

log = logging.getLogger(__name__)

CHECKS_FILE = "engine-checks.json"  # under synth's cache: one verdict per (build, processor, model file)
CHILD_TIMEOUT_S = 600
# About 100 tokens: llama.cpp takes its batched (tile) kernel for a prompt, its vector one for a decoded token.
PROBE_PROMPT = ("Recommend one movie to a friend who likes quiet dramas about families, long walks, old houses and "
                "letters never sent, and say in a sentence why it fits. " * 3)
_loading = threading.Lock()  # load_llama swaps a module attribute while a model loads


class EngineFault(SynthError):
    """llama.cpp dies of an illegal instruction on this machine whatever synth sets."""

    def __init__(self, signal_name: str) -> None:
        super().__init__(fault_line(signal_name))
        self.signal_name = signal_name


@dataclass(frozen=True)
class EngineSettings:
    """How this machine loads a model: `extra_buffers` False keeps llama.cpp off its AMX and repacked kernels.
    `faulted` names the signal (SIGILL) that killed the child with them, when one did."""

    extra_buffers: bool = True
    faulted: str | None = None


def llama_cpp_version() -> str:
    try:
        return metadata.version("llama-cpp-python")
    except metadata.PackageNotFoundError:
        return "not installed"


def _cpuinfo(key: str) -> str | None:
    """The first value of `key` in /proc/cpuinfo (None where Linux does not list it)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith(key):
            return line.partition(":")[2].strip()
    return None


def cpu_flags() -> set[str]:
    """The processor's feature flags as Linux lists them (empty elsewhere)."""
    return set((_cpuinfo("flags") or "").split())


def cpu_model() -> str | None:
    """The processor's name as Linux lists it (None elsewhere)."""
    return _cpuinfo("model name")


def rebuild_command() -> str:
    """The pip command that builds llama-cpp-python for this machine (without AMX where the processor lists it)."""
    flags = ""
    if "amx_tile" in cpu_flags():
        no_amx = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
        flags = f"CMAKE_ARGS=\"-DCMAKE_C_FLAGS='{no_amx}' -DCMAKE_CXX_FLAGS='{no_amx}'\" "
    return (f"{flags}pip install --force-reinstall --no-cache-dir --no-deps "
            f"'llama-cpp-python=={llama_cpp_version()}'")


def fault_line(signal_name: str) -> str:
    """The one line a user reads when llama.cpp dies of `signal_name` on this machine."""
    return (f"llama.cpp dies of {signal_name} on this processor (llama-cpp-python was built for another one): "
            f"rebuild it here with {rebuild_command()}")


def _build_files() -> list[Path]:
    try:
        dist = metadata.distribution("llama-cpp-python")
    except metadata.PackageNotFoundError:
        return []
    return sorted(Path(str(dist.locate_file(f))) for f in dist.files or [] if ".so" in f.name or f.suffix == ".dll")


def _check_key(model_path: Path) -> str:
    """What the verdict depends on: the llama.cpp libraries, the processor and the model file."""
    parts: list[Any] = [llama_cpp_version(), sorted(cpu_flags())]
    for path in [*_build_files(), model_path]:
        stat = path.stat() if path.exists() else None
        parts.append([str(path), stat.st_size if stat else None, stat.st_mtime_ns if stat else None])
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:24]


def _read_checks(path: Path) -> dict[str, Any]:
    try:
        checks = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return checks if isinstance(checks, dict) else {}


def _illegal_instruction(returncode: int) -> bool:
    """Whether a child died of SIGILL (or exited with the shell's 132 for it, as synth's own handler does). Other
    deaths (out of memory, a crash) are not the processor's: the model's own load here reports them."""
    return returncode in (-signal.SIGILL, 128 + signal.SIGILL)


def run_child(model_path: Path, extra_buffers: bool) -> subprocess.CompletedProcess:
    """Load `model_path` and run the probe prompt in a child process."""
    command = [sys.executable, "-m", "synth.llm.engine_check", str(model_path),
               "--extra-buffers" if extra_buffers else "--no-extra-buffers"]
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise SynthError(f"llama.cpp took over {CHILD_TIMEOUT_S} s to answer a short prompt on {model_path}") from None


def check_engine(model_path: Path) -> EngineSettings:
    """Ask a child process whether `model_path` runs here, with llama.cpp's extra buffer types and, if that child
    died of a signal, without them; EngineFault, naming the fix, when both die. A child that fails otherwise (a model
    llama.cpp cannot read, say) leaves the settings as they are: loading it here reports that error itself."""
    started = time.perf_counter()
    if not _illegal_instruction(run_child(model_path, extra_buffers=True).returncode):
        settings = EngineSettings()
    else:
        if _illegal_instruction(run_child(model_path, extra_buffers=False).returncode):
            raise EngineFault("SIGILL")
        settings = EngineSettings(extra_buffers=False, faulted="SIGILL")
        log.warning("llama.cpp dies of SIGILL here with its extra buffer types (the AMX or repacked kernels); synth "
                    "loads models without them (decoding about 15%% slower). For full speed: %s", rebuild_command())
    log.info("llama.cpp checked in a child process in %.1f s: %s", time.perf_counter() - started, settings)
    return settings


def engine_settings(model_path: Path) -> EngineSettings:
    """This machine's settings for `model_path`, from synth's cache or, the first time, from `check_engine`."""
    path = cache_root() / CHECKS_FILE
    key = _check_key(model_path)
    checks = _read_checks(path)
    if isinstance(checks.get(key), dict):
        return EngineSettings(**checks[key])
    settings = check_engine(model_path)
    checks = _read_checks(path)  # another process may have written its own verdict meanwhile
    checks[key] = asdict(settings)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.part")
        partial.write_text(json.dumps(checks, indent=1), encoding="utf-8")
        partial.replace(path)
    except OSError as exc:
        log.warning("%s: cannot keep the engine check's verdict (%s); the next run checks again", path, exc)
    return settings


@contextmanager
def model_params(extra_buffers: bool) -> Iterator[None]:
    """Models loaded by llama_cpp.Llama in the block load with (`extra_buffers`) or without llama.cpp's extra buffer
    types: Llama takes no option for them, so its default model parameters lose them here."""
    import llama_cpp.llama_cpp as low_level

    defaults = low_level.llama_model_default_params

    def without_extra_buffers() -> Any:
        params = defaults()
        params.use_extra_bufts = False
        return params

    with _loading:
        if not extra_buffers:
            low_level.llama_model_default_params = without_extra_buffers
        try:
            yield
        finally:
            low_level.llama_model_default_params = defaults


def load_llama(model_path: str | Path, *, settings: EngineSettings | None = None, **options: Any) -> Any:
    """`llama_cpp.Llama(model_path, **options)` loaded the way this machine runs it: with `settings`, else with
    `engine_settings(model_path)`, and then an illegal instruction later in this process ends it with one line
    naming the fix instead of a core dump."""
    from llama_cpp import Llama

    if settings is None:
        settings = engine_settings(Path(model_path))
        exit_with_line_on_illegal_instruction(fault_line("SIGILL"))
    with model_params(settings.extra_buffers):
        return Llama(model_path=str(model_path), **options)


def main(argv: list[str] | None = None) -> None:
    """The child: load the model, read the probe prompt, decode four tokens; exit 0 when all ran. A fault here
    leaves no core file behind."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--extra-buffers", action=argparse.BooleanOptionalAction, default=True)
    args = parser.parse_args(argv)
    settings = EngineSettings(extra_buffers=args.extra_buffers)
    llm = load_llama(args.model, settings=settings, n_ctx=512, n_batch=128, verbose=False)
    llm(PROBE_PROMPT, max_tokens=4)
    print(f"llama.cpp runs {args.model.name} here (extra buffer types {'on' if args.extra_buffers else 'off'})")


if __name__ == "__main__":
    main()
