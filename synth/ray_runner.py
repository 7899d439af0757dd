"""`synth generate --ray`: the run's game specs split into shards (the `--shard I/N` split), each shard
played by a Ray actor that owns its backend (a vLLM engine per GPU, an OpenAI-compatible client, or the
embedded model) into `OUT/shards/I-of-N/`, with the local runner's resume and fingerprint rules; when every
shard has finished they are merged into `OUT` (`dialogues.jsonl`, `manifest.json`, `items.jsonl`), the
layout of a local run. A re-run plays only what is missing: finished shards are skipped, a shard cut short
resumes from its own file. A worker that dies is restarted by Ray and its shard resumes."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import socket
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from synth.config import GenerateConfig
from synth.errors import InputError, SynthError
from synth.llm.base import ChatBackend
from synth.progress import progress_bar
from synth.ray_cluster import connect
from synth.runs.layout import DIALOGUES_FILE, ITEMS_FILE, MANIFEST_FILE, PLAN_FILE, SHARDS_DIR, shard_folder
from synth.runs.lock import LOCK_FILE, writing_to
from synth.runs.manifest import Manifest, RaySummary, RayWorkerFigures, check_same_run, read_manifest, write_manifest
from synth.runs.records import count_records
from synth.shards import merge_runs

log = logging.getLogger(__name__)
SHARDS_PER_WORKER = 4  # default split: small enough shards that a lost worker costs little
RESTARTS = 3  # times Ray restarts a dead worker (and retries its shard) before the run fails
BackendFactory = Callable[[], ChatBackend]


class _KeptOpen:
    """The worker's backend lent to one shard's run: the run's aclose() does not close it."""

    def __init__(self, backend: ChatBackend):
        self._backend = backend
        self.name = backend.name

    @property
    def model_info(self) -> Any:
        return self._backend.model_info

    async def complete(self, messages: list, **options: Any) -> Any:
        return await self._backend.complete(messages, **options)

    async def check(self) -> None:
        await self._backend.check()

    async def aclose(self) -> None:
        return None


class GameWorker:
    """A Ray actor: builds its backend once, then plays the shards it is given, one at a time."""

    def __init__(self, config_json: str, backend_factory: BackendFactory | None = None):
        from synth.llm.factory import make_backend

        self.config = GenerateConfig.model_validate_json(config_json)
        self.backend = backend_factory() if backend_factory else make_backend(self.config)
        self.loop = asyncio.new_event_loop()  # one loop for the actor's life: clients stay bound to it
        self.name = f"{socket.gethostname()}:{os.getpid()}"

    def pid(self) -> int:
        return os.getpid()

    def play(self, index: int, count: int, folder: str, progress: Any) -> dict[str, Any]:
        """Play (or finish) shard `index` of `count` into `folder`; returns what the driver aggregates."""
        from synth.runner import generate

        config = self.config.model_copy(update={"shard": f"{index}/{count}", "progress": False})
        started = time.perf_counter()
        manifest = self.loop.run_until_complete(
            generate(config, Path(folder), backend=_KeptOpen(self.backend),
                     on_record=lambda record: progress.add.remote(self.name))
        )
        return {
            "shard": index,
            "worker": self.name,
            "seconds": time.perf_counter() - started,
            "written": manifest.counts.written - (manifest.counts.resumed_with or 0),
            "tokens": manifest.tokens.prompt + manifest.tokens.completion,
        }


class ProgressCounter:
    """A Ray actor the workers report each written dialogue to."""

    def __init__(self) -> None:
        self.written: Counter[str] = Counter()

    def add(self, worker: str) -> None:
        self.written[worker] += 1

    def total(self) -> int:
        return sum(self.written.values())


def _finished(folder: Path) -> bool:
    """Whether the folder's run finished and its file still holds every record its manifest counts."""
    path = folder / MANIFEST_FILE
    if not path.exists():
        return False
    try:
        manifest = read_manifest(path)
    except InputError:
        return False
    return manifest.complete and count_records(folder / DIALOGUES_FILE) == manifest.counts.written


def plan_shards(out_dir: Path, config: GenerateConfig, requested: int | None, workers: int) -> int:
    """How many shards the run is split into: fixed by the first run of this folder (a re-run must split the
    same way, or shards would overlap), else `requested`, else SHARDS_PER_WORKER per worker."""
    path = out_dir / SHARDS_DIR / PLAN_FILE
    if path.exists():
        plan = json.loads(path.read_text())
        if plan["fingerprint"] != config.fingerprint():
            raise SynthError(f"{path.parent} holds shards of a run with another configuration: use another --out or "
                             "--overwrite")
        if requested not in (None, plan["shards"]):
            raise SynthError(f"{path.parent} splits this run into {plan['shards']} shards, not {requested}: "
                             "re-run with the same --ray-shards")
        return int(plan["shards"])
    count = max(1, min(config.n, requested or SHARDS_PER_WORKER * workers))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"fingerprint": config.fingerprint(), "shards": count}) + "\n")
    return count


def ray_generate(
    config: GenerateConfig,
    out_dir: Path,
    *,
    address: str = "auto",
    workers: int | None = None,
    shards: int | None = None,
    cpus_per_worker: float = 1,
    gpus_per_worker: float = 0,
    overwrite: bool = False,
    backend_factory: BackendFactory | None = None,
    on_workers: Callable[[list[int]], None] | None = None,
) -> Manifest:
    """Generate `config.n` dialogues on a Ray cluster into `out_dir`; returns the merged manifest.

    `workers` defaults to what the cluster holds (its GPUs / gpus_per_worker, else its CPUs /
    cpus_per_worker). `backend_factory` builds each worker's backend (default: from the config);
    `on_workers` is told the workers' process ids once they are up (tests kill one). The run folder is locked
    for the whole run, as a local run's is (its shards are each locked by the worker that plays it)."""
    if config.shard is not None:
        raise SynthError("--ray splits the run itself: leave out --shard")
    with writing_to(out_dir):
        return _ray_generate(config, out_dir, address, workers, shards, cpus_per_worker, gpus_per_worker, overwrite,
                             backend_factory, on_workers)


def _ray_generate(config: GenerateConfig, out_dir: Path, address: str, workers: int | None, shards: int | None,
                  cpus_per_worker: float, gpus_per_worker: float, overwrite: bool,
                  backend_factory: BackendFactory | None, on_workers: Callable[[list[int]], None] | None) -> Manifest:
    ray = connect(address)
    if overwrite:
        shutil.rmtree(out_dir / SHARDS_DIR, ignore_errors=True)
        for name in (DIALOGUES_FILE, MANIFEST_FILE, ITEMS_FILE):
            (out_dir / name).unlink(missing_ok=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    merged = out_dir / DIALOGUES_FILE
    if merged.exists() and merged.stat().st_size:
        check_same_run(out_dir / MANIFEST_FILE, config)
        if _finished(out_dir):
            return read_manifest(out_dir / MANIFEST_FILE)
        raise SynthError(f"{merged} holds dialogues of a local run: resume it without --ray, or use another --out")
    wanted = _worker_count(ray.cluster_resources(), workers, cpus_per_worker, gpus_per_worker)
    count = plan_shards(out_dir, config, shards, wanted)
    folders = [shard_folder(out_dir, i, count) for i in range(count)]
    todo = [i for i in range(count) if not _finished(folders[i])]
    started = time.perf_counter()
    results = _play_shards(ray, config, todo, count, folders, min(wanted, max(len(todo), 1)), cpus_per_worker,
                           gpus_per_worker, backend_factory, on_workers)
    staging = out_dir / SHARDS_DIR / ".merged"
    shutil.rmtree(staging, ignore_errors=True)
    manifest = merge_runs(folders, staging)
    manifest.ray = RaySummary(
        address=address,
        shards=count,
        workers=_per_worker(results),
        shards_played=len(todo),
        wall_s=round(time.perf_counter() - started, 2),
    )
    manifest.wall_s = manifest.ray.wall_s
    write_manifest(staging / MANIFEST_FILE, manifest)
    for name in (ITEMS_FILE, MANIFEST_FILE, DIALOGUES_FILE):  # the dialogues last: their presence means done
        if (staging / name).exists():
            os.replace(staging / name, out_dir / name)
    (staging / LOCK_FILE).unlink(missing_ok=True)  # merge_runs held it while it wrote there
    staging.rmdir()
    return manifest


def _worker_count(resources: dict[str, float], requested: int | None, cpus: float, gpus: float) -> int:
    """The workers the cluster can hold at once (more would wait for resources that never come)."""
    kind, each = ("GPU", gpus) if gpus else ("CPU", cpus)
    fits = int(resources.get(kind, 0) // each) if each else requested or 1
    if fits < 1:
        raise SynthError(f"the Ray cluster has {resources.get(kind, 0):g} {kind}s: not enough for one worker "
                         f"holding {each:g}")
    if requested and requested > fits:
        log.warning("the Ray cluster holds %d workers of %g %s each, not %d: using %d", fits, each, kind, requested, fits)
    return min(requested or fits, fits)


def _play_shards(
    ray: Any,
    config: GenerateConfig,
    todo: list[int],
    count: int,
    folders: list[Path],
    worker_count: int,
    cpus: float,
    gpus: float,
    backend_factory: BackendFactory | None,
    on_workers: Callable[[list[int]], None] | None,
) -> list[dict[str, Any]]:
    """Hand the shards to the workers as they become free; returns each shard's result."""
    if not todo:
        return []
    worker_class = ray.remote(GameWorker).options(
        num_cpus=cpus, num_gpus=gpus, max_restarts=RESTARTS, max_task_retries=RESTARTS
    )
    actors = [worker_class.remote(config.model_dump_json(), backend_factory) for _ in range(worker_count)]
    counter = ray.remote(ProgressCounter).options(num_cpus=0).remote()
    if on_workers is not None:
        on_workers(ray.get([actor.pid.remote() for actor in actors]))
    already = sum(count_records(folders[i] / DIALOGUES_FILE) for i in range(count))
    pending = list(todo)
    running: dict[Any, Any] = {}
    results: list[dict[str, Any]] = []
    with progress_bar(config.progress, "[bold]dialogues (ray)", "{task.fields[note]}") as bar:
        task = bar.add_task("ray", total=config.n, completed=already, note=f"{worker_count} workers, {count} shards")
        idle = list(actors)
        try:
            while pending or running:
                while pending and idle:
                    actor, index = idle.pop(), pending.pop(0)
                    running[actor.play.remote(index, count, str(folders[index]), counter)] = actor
                done, _ = ray.wait(list(running), num_returns=1, timeout=0.5)
                for ref in done:
                    idle.append(running.pop(ref))
                    results.append(ray.get(ref))
                bar.update(task, completed=already + ray.get(counter.total.remote()))
        except ray.exceptions.RayError as exc:
            raise SynthError(f"a Ray worker failed ({type(exc).__name__}: {str(exc).splitlines()[0]}); re-run the "
                             "same command to finish the missing shards") from None
        finally:
            for actor in actors:
                ray.kill(actor)
            ray.kill(counter)
    return results


def _per_worker(results: list[dict[str, Any]]) -> list[RayWorkerFigures]:
    """Each worker's shards, dialogues, tokens, busy seconds and throughput."""
    workers: dict[str, dict[str, Any]] = {}
    for result in results:
        row = workers.setdefault(result["worker"], {"worker": result["worker"], "shards": 0, "dialogues": 0,
                                                    "tokens": 0, "busy_s": 0.0})
        row["shards"] += 1
        row["dialogues"] += result["written"]
        row["tokens"] += result["tokens"]
        row["busy_s"] += result["seconds"]
    for row in workers.values():
        row["busy_s"] = round(row["busy_s"], 2)
        row["dialogues_per_s"] = round(row["dialogues"] / row["busy_s"], 3) if row["busy_s"] else None
    return [RayWorkerFigures(**row) for row in sorted(workers.values(), key=lambda row: row["worker"])]
