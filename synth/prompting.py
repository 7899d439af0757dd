"""Prompt templates as files: loaded from prompts/ (or a user's folder), rendered, and hashed."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from synth.errors import SynthError

TEMPLATES = {
    "pearl": ("seeker_system", "seeker_turn", "recommender_system", "recommender_turn"),
    "gorecdial": ("gorecdial_seeker_system", "gorecdial_seeker_turn", "gorecdial_expert_system", "gorecdial_expert_turn"),
    "item_summary": ("item_summary",),
    "persona_summary": ("persona_summary",),
    "judge": ("judge_system", "judge_persona", "judge_guess", "judge_stance"),
    "benchmark": ("benchmark_recommend", "benchmark_respond"),
}


def prompts_folder(folder: Path | None = None) -> Path:
    """`folder`, or the folder of the templates shipped with synth."""
    return folder if folder is not None else Path(str(resources.files("synth.prompts")))


def prompt_hash(text: str) -> str:
    """The short sha256 of a template's text, as manifests and records give it."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class PromptSet:
    """A mode's simulator templates and the sha256 of each file's text."""

    templates: dict[str, jinja2.Template]
    hashes: dict[str, str]
    source: str

    @classmethod
    def load(cls, folder: Path | None = None, mode: str = "pearl") -> PromptSet:
        """The templates of one game mode, from `folder` or the ones shipped with synth."""
        base = prompts_folder(folder)
        env = jinja2.Environment(
            undefined=jinja2.StrictUndefined, keep_trailing_newline=False, autoescape=False
        )
        templates, hashes = {}, {}
        for name in TEMPLATES[mode]:
            path = base / f"{name}.j2"
            try:
                text = path.read_text(encoding="utf-8")
            except OSError:
                raise SynthError(f"prompt template missing: {path}") from None
            try:
                templates[name] = env.from_string(text)
            except jinja2.TemplateSyntaxError as exc:
                raise SynthError(f"{path}, line {exc.lineno}: template error: {exc.message}") from None
            hashes[name] = prompt_hash(text)
        return cls(templates, hashes, str(base))

    def render(self, name: str, **context: Any) -> str:
        """Render one template; a missing variable is a SynthError naming it."""
        try:
            return self.templates[name].render(**context).strip()
        except jinja2.UndefinedError as exc:
            raise SynthError(f"prompt template {name}.j2: {exc.message}") from None
