"""The report's first section: how the run was made (model, configuration, prompts) and what it cost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from synth.llm.openai_compat import redact_url
from synth.prompting import prompt_hash, prompts_folder

SECRET_KEYS = ("key", "token", "secret", "password")  # never shown, whatever the manifest holds


class PromptView(BaseModel):
    name: str
    text: str | None  # None: the template file is gone
    run_hash: str
    file_hash: str | None

    @property
    def matches(self) -> bool:
        """Whether the file shown is the one the run used."""
        return self.file_hash == self.run_hash


class Overview(BaseModel):
    status: str | None
    model: dict[str, Any]
    figures: list[tuple[str, str]]  # label, value: dialogues, tokens, cost, time
    config: list[tuple[str, str]]  # dotted key, value
    prompts: list[PromptView]
    prompts_folder: str


def overview(manifest: dict[str, Any], dialogues: int) -> Overview:
    """The manifest's story of the run; `dialogues` is how many the folder holds (kept and dropped)."""
    config = manifest.get("config") or {}
    folder = prompts_folder(Path(config["prompts_dir"]) if config.get("prompts_dir") else None)
    return Overview(
        status=manifest.get("status"),
        model={k: v for k, v in (manifest.get("model") or {}).items() if k != "extra"},
        figures=_figures(manifest, dialogues),
        config=_flatten(config),
        prompts=_prompts(manifest.get("prompt_hashes") or {}, folder),
        prompts_folder=str(folder),
    )


def _figures(manifest: dict[str, Any], dialogues: int) -> list[tuple[str, str]]:
    counts, tokens = manifest.get("counts") or {}, manifest.get("tokens") or {}
    figures = [("dialogues in this folder", f"{dialogues:,}")]
    for key in ("requested", "written", "accepted_target", "failed", "filtered_out", "llm_calls_to_model"):
        if key in counts:
            figures.append((key.replace("_", " "), f"{counts[key]:,}"))
    for key, label in (("prompt", "prompt tokens"), ("completion", "completion tokens"),
                       ("prompt_evaluated", "prompt tokens computed (not reused from the KV cache)")):
        if tokens.get(key) is not None:
            figures.append((label, f"{tokens[key]:,}"))
    generated = counts.get("written") if "filtered_out" not in counts else counts["written"] + counts["filtered_out"]
    if generated and tokens.get("prompt") is not None:
        per = (tokens["prompt"] + tokens.get("completion", 0)) / generated
        figures.append(("tokens per dialogue", f"{per:,.0f}"))
    cost = manifest.get("cost_usd")
    figures.append(("cost", f"${cost:,.4f}" if cost is not None else "not priced (--price-prompt, --price-completion)"))
    if manifest.get("wall_s"):
        figures.append(("wall time", f"{manifest['wall_s'] / 60:,.1f} min"))
        if generated:
            figures.append(("dialogues per hour", f"{generated / manifest['wall_s'] * 3600:,.1f}"))
    for key in ("started", "finished"):
        if manifest.get(key):
            figures.append((key, str(manifest[key])))
    return figures


def _flatten(value: Any, prefix: str = "") -> list[tuple[str, str]]:
    """Nested settings as (dotted key, value) rows; credentials never shown, URLs without their secrets."""
    if isinstance(value, dict) and value:
        rows = []
        for key, inner in value.items():
            rows += _flatten(inner, f"{prefix}.{key}" if prefix else str(key))
        return rows
    name = prefix.rsplit(".", 1)[-1].lower()
    if any(word in name for word in SECRET_KEYS) and value:
        return [(prefix, "(hidden)")]
    if name.endswith("url") and isinstance(value, str):
        return [(prefix, redact_url(value))]
    return [(prefix, "–" if value is None else str(value))]


def _prompts(hashes: dict[str, str], folder: Path) -> list[PromptView]:
    views = []
    for name, run_hash in hashes.items():
        try:
            text = (folder / f"{name}.j2").read_text(encoding="utf-8")
        except OSError:
            text = None
        views.append(PromptView(name=name, text=text, run_hash=run_hash, file_hash=prompt_hash(text) if text else None))
    return views
