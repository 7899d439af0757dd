"""The run manifest (manifest.json): what was asked, with what, and what came out; typed, versioned, read
from older runs (a manifest without `schema_version` is version 0) and written atomically."""

from __future__ import annotations

import json
import platform
import sys
from collections import Counter
from collections.abc import Mapping
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, model_serializer

from synth.config import ADDED_FIELDS, NON_SEMANTIC_FIELDS, UNWRITTEN_DEFAULTS, GenerateConfig
from synth.data.readers import validate
from synth.errors import InputError, SynthError
from synth.redaction import redact_url
from synth.runs.atomic import write_json_atomic
from synth.runs.filtering import FilterSummary

SCHEMA_VERSION = 1  # 0: manifests written before the field existed (same fields otherwise)
TRACKED_PACKAGES = ("synth-crs", "llama-cpp-python", "openai", "rank-bm25", "pydantic", "jinja2", "huggingface_hub")
Status = Literal["running", "finished", "failed", "interrupted", "budget"]  # budget: stopped at its spending ceiling


class _Sparse(BaseModel):
    """A model whose fields named in `omit_when_none` are left out of the JSON while they are None (sections
    that only some runs have, counts that only some runs keep)."""

    omit_when_none: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _leave_out_none(self, handler: Any) -> dict[str, Any]:
        data = handler(self)
        return {key: value for key, value in data.items() if not (value is None and key in self.omit_when_none)}


class ModelRecord(BaseModel):
    """The model the run used (the backend's ModelInfo)."""

    name: str
    source: str  # a path, 'hf:REPO/FILE', a package name or a URL
    sha256: str | None = None
    extra: dict[str, Any] = {}


class Counts(_Sparse):
    """What a run counted, by source: its dialogues (typed fields, summed over dialogues and over shards by
    `add_counts`), the request cache (typed) and the data source, plan and summaries (extra keys that vary by
    source and mode: persona_users_*, sets_*, bad_lines_skipped, ...; joined by `with_source_counts`)."""

    model_config = ConfigDict(extra="allow")
    omit_when_none = frozenset({"resumed_with", "filtered_out", "llm_calls_from_cache", "llm_calls_to_model", "defects_kept",
                                "wrong_acceptances", "format_retries", "reply_resamples", "replies_kept_with_defects",
                                "replies_repaired"})

    requested: int = 0
    written: int = 0
    accepted_target: int = 0
    failed: int = 0  # dialogues an error ended
    # dialogues that ended on the seeker accepting a movie other than its target: failures too (None: a run from
    # before synth counted them)
    wrong_acceptances: int | None = None
    defects_kept: dict[str, int] | None = None  # replies kept with a defect at the re-sample limit, per detector
    resumed_with: int | None = None  # records a resumed run found already written
    filtered_out: int | None = None  # a filtered folder: dialogues the filters dropped
    llm_calls_from_cache: int | None = None
    llm_calls_to_model: int | None = None
    # the reply checks and format retries, summed over dialogues (None: a run from before synth counted them)
    format_retries: int | None = None
    reply_resamples: int | None = None
    replies_kept_with_defects: int | None = None
    replies_repaired: int | None = None

    @property
    def extra(self) -> dict[str, Any]:
        """The counts of the data source (keys vary by source and mode)."""
        return dict(self.model_extra or {})


# The dialogue counts that shards add up (the rest are the run's: the data source's, the cache's, the filter's).
SUMMED_COUNTS = ("requested", "written", "accepted_target", "failed", "wrong_acceptances", "format_retries",
                 "reply_resamples", "replies_kept_with_defects", "replies_repaired")


def add_counts(total: Counts, part: Counts) -> None:
    """Add `part`'s dialogue counts and kept defects to `total` (a count that `part` lacks adds nothing; one that
    `total` lacks starts from `part`'s)."""
    for name in SUMMED_COUNTS:
        value = getattr(part, name)
        if value is not None:
            setattr(total, name, (getattr(total, name) or 0) + value)
    if part.defects_kept:
        kept = Counter(total.defects_kept or {}) + Counter(part.defects_kept)
        total.defects_kept = dict(sorted(kept.items()))


def with_source_counts(counts: Counts, *sources: Mapping[str, int]) -> Counts:
    """`counts` with the counts of the data source, plan, summaries and cache added as their keys; a key that two
    sources give, or that names a typed count, is a bug, never silently overwritten."""
    joined: dict[str, int] = {}
    for source in sources:
        clash = (set(source) & set(joined)) | (set(source) & set(Counts.model_fields))
        if clash:
            raise ValueError(f"manifest counts given twice: {sorted(clash)}")
        joined.update(source)
    return counts.model_copy(update=joined)


class Tokens(_Sparse):
    omit_when_none = frozenset({"prompt_evaluated", "completion_forced"})

    prompt: int = 0
    completion: int = 0
    prompt_evaluated: int | None = None  # prompt tokens computed, not reused from a KV cache (embedded model)
    completion_forced: int | None = None  # completion tokens the grammar forced, read not decoded (embedded model)


class RequestCounts(BaseModel):
    """What a server backend's requests met in this process (`--backend openai`; a resumed run counts its own)."""

    requests: int  # calls the games made
    attempts: int  # HTTP requests sent for them
    retries: int
    faults: int  # attempts that met a transient fault: 429, 5xx, timeout, dropped connection, not a completion
    rate_limited: int  # of the faults, 429s
    concurrency_ceiling: int  # --concurrency
    concurrency_decreases: int  # times a 429 halved the requests allowed in flight
    concurrency_lowest: int
    waited_for_limits_s: float  # summed over requests: waits for --rpm, --tpm and the server's stated limits
    fault_kinds: dict[str, int] = {}  # faults by kind ("HTTP 503", "ConnectionError: ServerDisconnectedError")
    closed_connections: int = 0  # sends that met a kept-alive connection the server had closed (sent again at once)


class RayWorkerFigures(BaseModel):
    worker: str
    shards: int
    dialogues: int
    tokens: int
    busy_s: float
    dialogues_per_s: float | None


class RaySummary(BaseModel):
    """How a `--ray` run was played."""

    address: str
    shards: int
    workers: list[RayWorkerFigures]
    shards_played: int
    wall_s: float


class Manifest(_Sparse):
    """manifest.json. Holds no API key: the config has none and its URLs are redacted."""

    model_config = ConfigDict(extra="allow")
    omit_when_none = frozenset({"status", "fingerprint", "model", "started", "finished", "wall_s", "python", "platform",
                                "merged_from", "ray", "filter", "requests"})

    schema_version: int = SCHEMA_VERSION
    status: Status | None = None
    config: dict[str, Any] = {}  # the GenerateConfig as JSON (kept as written: older configs stay readable)
    fingerprint: str | None = None
    model: ModelRecord | None = None
    prompt_hashes: dict[str, str] = {}
    counts: Counts = Counts()
    tokens: Tokens = Tokens()
    cost_usd: float | None = None
    started: str | None = None
    finished: str | None = None
    wall_s: float | None = None
    packages: dict[str, str | None] = {}
    python: str | None = None
    platform: str | None = None
    merged_from: list[str] | None = None  # `synth merge`: the shard folders
    ray: RaySummary | None = None  # `synth generate --ray`
    filter: FilterSummary | None = None  # `synth filter`: what the filters did
    requests: RequestCounts | None = None  # a server backend's requests

    @property
    def shard(self) -> str | None:
        """The run's --shard I/N, None for a whole run."""
        return self.config.get("shard")

    @property
    def complete(self) -> bool:
        """Whether the run finished and wrote every dialogue it was asked for."""
        return self.status == "finished" and self.counts.written == self.counts.requested


def now() -> str:
    """The time stamp manifests and reports use (UTC, seconds)."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def package_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in TRACKED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def new_manifest(
    config: GenerateConfig,
    *,
    model: ModelRecord,
    prompt_hashes: dict[str, str],
    counts: Counts,
    tokens: Tokens,
    cost_usd: float | None = None,
    started: str,
    wall_s: float,
    status: Status,
    requests: RequestCounts | None = None,
) -> Manifest:
    """The manifest of a generation run, stamped with this machine's packages, Python and platform."""
    settings = config.model_dump(mode="json")
    for name, value in UNWRITTEN_DEFAULTS.items():
        if settings.get(name) == value:
            del settings[name]
    if settings.get("base_url"):
        settings["base_url"] = redact_url(settings["base_url"])
    return Manifest(
        status=status,
        config=settings,
        fingerprint=config.fingerprint(),
        model=model,
        prompt_hashes=prompt_hashes,
        counts=counts,
        tokens=tokens,
        cost_usd=None if cost_usd is None else round(cost_usd, 6),
        started=started,
        finished=now(),
        wall_s=round(wall_s, 2),
        packages=package_versions(),
        python=sys.version.split()[0],
        platform=platform.platform(),
        requests=requests,
    )


def read_manifest(path: Path) -> Manifest:
    """A manifest.json of this or an older synth. Bad JSON or a bad field is an InputError naming it; a
    manifest from a newer synth is refused (a SynthError saying to upgrade)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(path, f"cannot open: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not JSON ({exc.msg})", line=exc.lineno) from None
    if not isinstance(data, dict):
        raise InputError(path, "not a run's manifest (expected a JSON object)")
    version = data.setdefault("schema_version", 0)
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise SynthError(
            f"{path}: written by a newer synth (manifest schema {version}; this synth reads up to "
            f"{SCHEMA_VERSION}): upgrade synth (pip install -U synth-crs) to read this run"
        )
    return validate(Manifest, data, path, None, kind="a run's manifest")


def write_manifest(path: Path, manifest: Manifest) -> None:
    """Write atomically, in this synth's schema, so a crash never leaves half a manifest."""
    current = manifest.model_copy(update={"schema_version": SCHEMA_VERSION})
    write_json_atomic(path, current.model_dump(mode="json"))


def check_same_run(manifest_path: Path, config: GenerateConfig) -> None:
    """Refuse to add to a folder whose run had another configuration (non-semantic options may differ).
    The fingerprint is compared as it was written, so a run started by an older synth still resumes."""
    if not manifest_path.exists():
        return
    try:
        earlier = read_manifest(manifest_path)
    except InputError as exc:
        raise SynthError(f"{exc}; cannot read the earlier run's manifest: pass --overwrite to start again") from None
    if earlier.fingerprint == config.fingerprint():
        if earlier.shard != config.shard:
            raise SynthError(
                f"{manifest_path.parent} holds shard {earlier.shard or 'none'} of this run, not {config.shard or 'the whole run'}; "
                "give each shard its own --out"
            )
        return
    ours = config.model_dump(mode="json", exclude=NON_SEMANTIC_FIELDS)
    theirs = earlier.config
    theirs = {**ADDED_FIELDS, **theirs}  # an older run played the added settings at their earlier values
    changed = sorted(k for k in ours if k != "base_url" and theirs.get(k) != ours[k])
    detail = ", ".join(f"{k}: {theirs.get(k)!r} -> {ours[k]!r}" for k in changed[:5]) or "prompts or settings"
    raise SynthError(
        f"{manifest_path.parent} holds a run with another configuration ({detail}); "
        "use the same settings to resume it, another --out, or --overwrite to replace it"
    )
