"""Which filters run and with which settings: a pydantic model, loadable from YAML, each field
overridable on the command line."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from synth.config import BackendConfig
from synth.filters.acceptance import WrongAcceptance
from synth.filters.dedup import Dedup
from synth.filters.form import Form
from synth.filters.preference import GuessContradiction, PersonaContradiction
from synth.filters.quality import Quality
from synth.filters.recommender_faults import RecommenderFaults
from synth.filters.repetition import Repetition
from synth.filters.satisfaction import Satisfaction
from synth.filters.target_leak import TargetLeak

# The filter registry: name -> class, in the order filters report. Basic filters are pure functions of a
# dialogue; preference filters ask a judge; model filters (opt-in by name) score chunks of dialogues; corpus
# filters compare a dialogue with the ones before it, after every other filter (dedup, part of `basic`).
BASIC_FILTERS: dict[str, type] = {
    cls.name: cls for cls in (Repetition, TargetLeak, WrongAcceptance, RecommenderFaults, Form)
}
CORPUS_FILTERS: dict[str, type] = {cls.name: cls for cls in (Dedup,)}
# The reply detectors of the turn loop, after the fact: a filter of its own (`--filters quality`), in `all`.
QUALITY_FILTERS: dict[str, type] = {cls.name: cls for cls in (Quality,)}
PREFERENCE_FILTERS: dict[str, type] = {cls.name: cls for cls in (PersonaContradiction, GuessContradiction)}
MODEL_FILTERS: dict[str, type] = {cls.name: cls for cls in (Satisfaction,)}
FILTERS: dict[str, type] = BASIC_FILTERS | QUALITY_FILTERS | CORPUS_FILTERS | PREFERENCE_FILTERS | MODEL_FILTERS
GROUPS: dict[str, tuple[str, ...]] = {
    "basic": (*BASIC_FILTERS, *CORPUS_FILTERS),
    "preference": tuple(PREFERENCE_FILTERS),
    "all": (*BASIC_FILTERS, *QUALITY_FILTERS, *CORPUS_FILTERS, *PREFERENCE_FILTERS),
}
DEFAULT_NLI_MODEL = "cross-encoder/nli-deberta-v3-xsmall"


class FilterConfig(BaseModel):
    """Everything `synth filter` needs besides its input and output."""

    model_config = ConfigDict(extra="forbid")

    filters: list[str] = Field(
        default_factory=lambda: ["basic"],
        description="filter names or groups (basic, preference, all)",
    )
    repetition: Repetition = Field(default_factory=Repetition)
    target_leak: TargetLeak = Field(default_factory=TargetLeak)
    wrong_acceptance: WrongAcceptance = Field(default_factory=WrongAcceptance)
    recommender_faults: RecommenderFaults = Field(default_factory=RecommenderFaults)
    form: Form = Field(default_factory=Form)
    quality: Quality = Field(default_factory=Quality)
    dedup: Dedup = Field(default_factory=Dedup)
    satisfaction: Satisfaction = Field(default_factory=Satisfaction)
    # preference filters
    judge: Literal["llm", "nli"] = Field(
        "llm",
        description="how contradictions are found: an LLM judge (default; no NLI model ships offline) or an NLI cross-encoder",
    )
    nli_model: str = Field(
        DEFAULT_NLI_MODEL,
        description="sentence-transformers CrossEncoder: hub name or folder",
    )
    nli_threshold: float = Field(
        0.8,
        ge=0,
        le=1,
        description="contradiction probability from which a pair is a contradiction",
    )
    nli_batch_size: int = Field(32, ge=1)
    llm: BackendConfig = Field(default_factory=BackendConfig, description="the LLM judge's backend")
    llm_max_tokens: int = Field(200, ge=16)
    llm_retries: int = Field(2, ge=0)
    llm_screen: bool = Field(
        False, description="one screening call per dialogue picks the pair to check (fewer calls; for strong models)"
    )
    prompts_dir: Path | None = None
    preference_on: Literal["kept", "all"] = Field(
        "kept",
        description="judge only the dialogues the basic filters kept (cheaper), or all of them (full overlap figures)",
    )
    examples: int = Field(3, ge=0, description="example drops per filter in the report")

    @field_validator("filters")
    @classmethod
    def _known(cls, names: list[str]) -> list[str]:
        unknown = [n for n in names if n not in GROUPS and n not in FILTERS]
        if unknown:
            raise ValueError(f"unknown filter {unknown[0]!r}; known: {', '.join((*GROUPS, *FILTERS))}")
        if not names:
            raise ValueError("name at least one filter")
        return names

    @property
    def selected(self) -> list[str]:
        """The filters to run, groups expanded, in their canonical order."""
        wanted = {name for entry in self.filters for name in GROUPS.get(entry, (entry,))}
        return [name for name in FILTERS if name in wanted]

    @property
    def basic(self) -> list:
        """The selected basic filters, configured."""
        return [getattr(self, name) for name in self.selected if name in BASIC_FILTERS or name in QUALITY_FILTERS]

    @property
    def batched(self) -> list:
        """The selected filters that judge a chunk of dialogues at once, configured."""
        return [getattr(self, name) for name in self.selected if name in MODEL_FILTERS]

    @property
    def near_duplicates(self) -> Dedup | None:
        """The near-duplicate filter, configured, when it is selected."""
        return self.dedup if Dedup.name in self.selected else None

    @property
    def preference(self) -> list[str]:
        return [name for name in self.selected if name in PREFERENCE_FILTERS]
