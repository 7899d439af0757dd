"""The report's first section: how the run was made (model, configuration, prompts) and what it cost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from synth.domain import Domain, domain_for_run
from synth.errors import SynthError
from synth.prompting import EXAMPLES, domain_examples, domain_text, prompt_hash, prompts_folder
from synth.redaction import redact_url
from synth.runs.manifest import Manifest

SECRET_KEYS = ("key", "token", "secret", "password")  # never shown, whatever the manifest holds
NOT_PRICED = "not priced (--price-prompt, --price-completion)"


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


def overview(manifest: Manifest | None, dialogues: int) -> Overview:
    """The manifest's story of the run (None: the folder has no manifest); `dialogues` is how many the folder
    holds (kept and dropped)."""
    config = manifest.config if manifest else {}
    folder = prompts_folder(Path(config["prompts_dir"]) if config.get("prompts_dir") else None)
    model = manifest.model if manifest else None
    return Overview(
        status=manifest.status if manifest else None,
        model=model.model_dump(exclude={"extra"}) if model else {},
        figures=_figures(manifest, dialogues),
        config=_flatten(config),
        prompts=_prompts(manifest.prompt_hashes if manifest else {}, folder, domain_for_run(config)),
        prompts_folder=str(folder),
    )


def _figures(manifest: Manifest | None, dialogues: int) -> list[tuple[str, str]]:
    figures = [("dialogues in this folder", f"{dialogues:,}")]
    if manifest is None:
        return figures + [("cost", NOT_PRICED)]
    counts, tokens = manifest.counts, manifest.tokens
    for label, count in (("requested", counts.requested), ("written", counts.written),
                         ("accepted target", counts.accepted_target), ("ended on a wrong acceptance", counts.wrong_acceptances),
                         ("failed", counts.failed),
                         ("filtered out", counts.filtered_out), ("llm calls to model", counts.llm_calls_to_model)):
        if count is not None:
            figures.append((label, f"{count:,}"))
    for label, count in (("format retries", counts.format_retries),
                         ("replies re-sampled by the reply checks", counts.reply_resamples),
                         ("replies kept with a defect at the re-sample limit", counts.replies_kept_with_defects),
                         ("recommendations repaired to name their item", counts.replies_repaired)):
        if count is not None:
            figures.append((label, f"{count:,}"))
    for name, kept in (counts.defects_kept or {}).items():
        figures.append((f"replies kept with {name}", f"{kept:,}"))
    for label, count in (("prompt tokens", tokens.prompt), ("completion tokens", tokens.completion),
                         ("prompt tokens computed (not reused from the KV cache)", tokens.prompt_evaluated),
                         ("completion tokens the grammar forced (read, not decoded)", tokens.completion_forced)):
        if count is not None:
            figures.append((label, f"{count:,}"))
    generated = counts.written + (counts.filtered_out or 0)
    if generated:
        figures.append(("tokens per dialogue", f"{(tokens.prompt + tokens.completion) / generated:,.0f}"))
    cost = manifest.cost_usd
    figures.append(("cost", f"${cost:,.4f}" if cost is not None else NOT_PRICED))
    if manifest.wall_s:
        figures.append(("wall time", f"{manifest.wall_s / 60:,.1f} min"))
        if generated:
            figures.append(("dialogues per hour", f"{generated / manifest.wall_s * 3600:,.1f}"))
    for label, stamp in (("started", manifest.started), ("finished", manifest.finished)):
        if stamp:
            figures.append((label, stamp))
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


def _prompts(hashes: dict[str, str], folder: Path, domain: Domain) -> list[PromptView]:
    views = []
    for name, run_hash in hashes.items():
        text, file_hash = _prompt_text(name, folder, domain)
        views.append(PromptView(name=name, text=text, run_hash=run_hash, file_hash=file_hash))
    return views


def _prompt_text(name: str, folder: Path, domain: Domain) -> tuple[str | None, str | None]:
    """A prompt as the run's domain renders it from `folder` today, and its hash as a manifest gives it; (None,
    None) when the file is gone."""
    try:
        path = folder / f"{name}.j2"
        if path.exists():
            text = domain_text(path, domain)
            return text, prompt_hash(text)
        if name == EXAMPLES["pearl"] and not isinstance(domain.pearl_examples, str):  # the profile's own mapping
            examples, digest = domain_examples(folder, domain)
            return yaml.safe_dump(examples, sort_keys=False, allow_unicode=True, width=120), digest
        text = (folder / (domain.pearl_examples if name == EXAMPLES["pearl"] else f"{name}.yaml")).read_text(encoding="utf-8")
        return text, prompt_hash(text)
    except (OSError, SynthError):
        return None, None
