"""Prompt templates as files: loaded from prompts/ (or a user's folder), rendered, and hashed."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import yaml

from synth.errors import SynthError

TEMPLATES = {
    "pearl": ("seeker_system", "seeker_turn", "recommender_system", "recommender_turn"),
    "gorecdial": ("gorecdial_seeker_system", "gorecdial_seeker_turn", "gorecdial_expert_system", "gorecdial_expert_turn"),
    "item_summary": ("item_summary",),
    "persona_summary": ("persona_summary",),
    "judge": ("judge_system", "judge_persona", "judge_guess", "judge_stance"),
    "benchmark": ("benchmark_recommend", "benchmark_respond"),
}
EXAMPLES = {"pearl": "pearl_examples"}  # a mode's example exchanges (YAML), drawn per dialogue by the game


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
    examples: dict[str, Any] = field(default_factory=dict)

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
        examples: dict[str, Any] = {}
        if mode in EXAMPLES:
            examples = load_examples(base / f"{EXAMPLES[mode]}.yaml")
            hashes[EXAMPLES[mode]] = prompt_hash((base / f"{EXAMPLES[mode]}.yaml").read_text(encoding="utf-8"))
        return cls(templates, hashes, str(base), examples)

    def render(self, name: str, **context: Any) -> str:
        """Render one template; a missing variable is a SynthError naming it."""
        try:
            return self.templates[name].render(**context).strip()
        except jinja2.UndefinedError as exc:
            raise SynthError(f"prompt template {name}.j2: {exc.message}") from None


def load_examples(path: Path) -> dict[str, Any]:
    """A mode's example exchanges: lists under 'seeker', 'recommender', 'openings' and 'styles'."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError:
        raise SynthError(f"prompt examples missing: {path}") from None
    except yaml.YAMLError as exc:
        raise SynthError(f"{path}: not valid YAML: {exc}") from None
    for key in ("seeker", "recommender", "openings", "styles"):
        if not isinstance(data, dict) or not isinstance(data.get(key), list) or not data[key]:
            raise SynthError(f"{path}: '{key}' must be a non-empty list")
    return data


def example_replies(examples: dict[str, Any]) -> tuple[str, ...]:
    """Every example reply the prompts may show (the seeker's and the recommender's), for the reply checks."""
    return tuple(e["reply"] for e in examples.get("seeker", [])) + tuple(e["utterance"] for e in examples.get("recommender", []))


def shipped_examples(mode: str = "pearl") -> dict[str, Any]:
    """The example exchanges shipped with synth for `mode`."""
    return load_examples(prompts_folder() / f"{EXAMPLES[mode]}.yaml")


@lru_cache(maxsize=None)
def shipped_example_replies(mode: str = "pearl") -> tuple[str, ...]:
    """`example_replies` of the examples shipped with synth, read once."""
    return example_replies(shipped_examples(mode))
