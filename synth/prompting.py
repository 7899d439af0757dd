"""Prompt templates as files: loaded from prompts/ (or a user's folder), rendered, and hashed."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import yaml

from synth.domain import Domain, load_domain
from synth.errors import SynthError

TEMPLATES = {
    "pearl": ("seeker_system", "seeker_turn", "recommender_system", "recommender_turn"),
    "gorecdial": ("gorecdial_seeker_system", "gorecdial_seeker_turn", "gorecdial_expert_system", "gorecdial_expert_turn"),
    "item_summary": ("item_summary",),
    "persona_summary": ("persona_summary",),
    "judge": ("judge_system", "judge_persona", "judge_guess", "judge_stance"),
    "benchmark": ("benchmark_recommend", "benchmark_respond"),
}
WORDING_TEMPLATES = ("word_system", "word_turn")  # decided wording's (synth.content.wording), in either game mode
EXAMPLES = {"pearl": "pearl_examples"}  # a mode's example exchanges (YAML), drawn per dialogue by the game
# The first pass renders the domain profile into a template's text with delimiters no template uses otherwise
# ("[[ domain.noun ]]", "[% if ... %]"); the second, the template proper, sees the domain's words as text.
_DOMAIN_PASS = jinja2.Environment(
    variable_start_string="[[", variable_end_string="]]", block_start_string="[%", block_end_string="%]",
    comment_start_string="[#", comment_end_string="#]", undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
    autoescape=False,
)


def prompts_folder(folder: Path | None = None) -> Path:
    """`folder`, or the folder of the templates shipped with synth."""
    return folder if folder is not None else Path(str(resources.files("synth.prompts")))


def prompt_hash(text: str) -> str:
    """The short sha256 of a template's text, as manifests and records give it."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def domain_text(path: Path, domain: Domain) -> str:
    """A template file's text with the domain's words put in: the text that is hashed and compiled. A file
    written without the profile's marks comes back unchanged."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        raise SynthError(f"prompt template missing: {path}") from None
    try:
        return _DOMAIN_PASS.from_string(text).render(domain=domain)
    except jinja2.TemplateSyntaxError as exc:
        raise SynthError(f"{path}, line {exc.lineno}: template error: {exc.message}") from None
    except jinja2.UndefinedError as exc:
        raise SynthError(f"{path}: domain profile: {exc.message}") from None


@dataclass(frozen=True)
class PromptSet:
    """A mode's simulator templates, rendered for one domain, and the sha256 of each template's text."""

    templates: dict[str, jinja2.Template]
    hashes: dict[str, str]
    source: str
    examples: dict[str, Any] = field(default_factory=dict)
    domain: Domain = field(default_factory=load_domain)

    @classmethod
    def load(
        cls, folder: Path | None = None, mode: str = "pearl", domain: Domain | None = None, *, wording: bool = False
    ) -> PromptSet:
        """The templates of one game mode, from `folder` or the ones shipped with synth, for `domain` (movies
        by default), with decided wording's where `wording`. The hashes are those of the texts with the domain's
        words in: the prompts really used."""
        base, domain = prompts_folder(folder), domain or load_domain()
        env = jinja2.Environment(
            undefined=jinja2.StrictUndefined, keep_trailing_newline=False, autoescape=False
        )
        templates, hashes = {}, {}
        for name in (*TEMPLATES[mode], *(WORDING_TEMPLATES if wording else ())):
            path = base / f"{name}.j2"
            text = domain_text(path, domain)
            try:
                templates[name] = env.from_string(text)
            except jinja2.TemplateSyntaxError as exc:
                raise SynthError(f"{path}, line {exc.lineno}: template error: {exc.message}") from None
            hashes[name] = prompt_hash(text)
        examples: dict[str, Any] = {}
        if mode in EXAMPLES:
            examples, hashes[EXAMPLES[mode]] = domain_examples(base, domain)
        return cls(templates, hashes, str(base), examples, domain)

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
    return check_examples(data, str(path))


def check_examples(data: Any, where: str) -> dict[str, Any]:
    """`data` when it holds the four non-empty lists of example exchanges; a SynthError naming `where` if not."""
    for key in ("seeker", "recommender", "openings", "styles"):
        if not isinstance(data, dict) or not isinstance(data.get(key), list) or not data[key]:
            raise SynthError(f"{where}: '{key}' must be a non-empty list")
    return data


def domain_examples(folder: Path, domain: Domain) -> tuple[dict[str, Any], str]:
    """The domain's PEARL example exchanges and their hash: a file named by the profile (in `folder`, the
    prompts folder, unless absolute) or the mapping the profile holds."""
    if isinstance(domain.pearl_examples, str):
        path = folder / domain.pearl_examples
        examples = load_examples(path)
        return examples, prompt_hash(path.read_text(encoding="utf-8"))
    checked = check_examples(domain.pearl_examples, f"domain profile '{domain.name}', field 'pearl_examples'")
    return checked, prompt_hash(json.dumps(checked, sort_keys=True))


def example_replies(examples: dict[str, Any]) -> tuple[str, ...]:
    """Every example reply the prompts may show (the seeker's and the recommender's), for the reply checks."""
    return tuple(e["reply"] for e in examples.get("seeker", [])) + tuple(e["utterance"] for e in examples.get("recommender", []))


def shipped_examples(domain: str = "movies") -> dict[str, Any]:
    """The PEARL example exchanges shipped with synth for a built-in domain."""
    return domain_examples(prompts_folder(), load_domain(domain))[0]


@lru_cache(maxsize=None)
def shipped_example_replies(domain: str = "movies") -> tuple[str, ...]:
    """`example_replies` of the examples shipped with synth for a domain, read once."""
    return example_replies(shipped_examples(domain))
