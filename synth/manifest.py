"""The run manifest: what was asked, with what, and what came out."""

from __future__ import annotations

import json
import os
import platform
import sys
from dataclasses import asdict
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

from synth.config import GenerateConfig
from synth.llm.base import ModelInfo
from synth.llm.openai_compat import redact_url

TRACKED_PACKAGES = ("synth-crs", "llama-cpp-python", "openai", "rank-bm25", "pydantic", "jinja2", "huggingface_hub")


def package_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in TRACKED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def build_manifest(
    config: GenerateConfig,
    *,
    model: ModelInfo,
    prompt_hashes: dict[str, str],
    counts: dict[str, int],
    tokens: dict[str, int],
    cost_usd: float | None = None,
    started: str,
    wall_s: float,
    status: str,
) -> dict[str, Any]:
    """A JSON-ready manifest; holds no API key (the config has none, URLs are redacted)."""
    settings = config.model_dump(mode="json")
    if settings.get("base_url"):
        settings["base_url"] = redact_url(settings["base_url"])
    return {
        "status": status,
        "config": settings,
        "fingerprint": config.fingerprint(),
        "model": asdict(model),
        "prompt_hashes": prompt_hashes,
        "counts": counts,
        "tokens": tokens,
        "cost_usd": None if cost_usd is None else round(cost_usd, 6),
        "started": started,
        "finished": now(),
        "wall_s": round(wall_s, 2),
        "packages": package_versions(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
    }


def write_manifest(path: Path, manifest: dict[str, Any]) -> None:
    """Write atomically, so a crash never leaves half a manifest."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(manifest, indent=2) + "\n")
    os.replace(tmp, path)
