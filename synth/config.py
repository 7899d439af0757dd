"""Run configuration: pydantic models, loadable from YAML, every field overridable on the command line.

Naming rule for settings across synth: a pydantic model that a user sets (from YAML, `--set` or CLI options)
ends in `Config` (GenerateConfig, FilterConfig, ExpertConfig, ...); a dataclass that bundles a library
call's arguments in code ends in `Options` (CardOptions, ReportOptions, BenchmarkOptions, ...). No other
suffix (Settings, Params) names either kind."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from synth.domain import domain_in_effect
from synth.errors import SynthError

BackendName = Literal["llamacpp", "llamacpp-serial", "openai", "vllm"]
Strategy = Literal["human", "pearl", "free"]
Wording = Literal["decided", "free"]
ReviewFormat = Literal["amazon", "yelp", "goodreads"]  # public review formats, read by synth.data.formats
REVIEW_FORMATS: tuple[str, ...] = get_args(ReviewFormat)
NAMED_SOURCES = ("demo", "movielens+rt", "movielens")
ConfigT = TypeVar("ConfigT", bound=BaseModel)

# Options that change how fast a run goes, not what it writes: left out of the fingerprint.
NON_SEMANTIC_FIELDS = {
    "concurrency", "rpm", "tpm", "progress", "n_threads", "api_max_attempts", "request_timeout_s", "request_cache", "request_cache_path",
    "vllm_scheduling", "price_prompt_per_mtok", "price_completion_per_mtok", "price_cached_prompt_per_mtok", "max_cost_usd", "max_total_tokens",
}
# Settings added after runs were first written, with the values that play as synth did before them: at those
# values they are left out of the fingerprint, so a run started by an older synth keeps its fingerprint.
ADDED_FIELDS: dict[str, object] = {
    "ratings": None, "planner": "users", "allow_repeats": False, "persona_summaries": False, "strategy": "pearl",
    "reply_resamples": 0, "domain": None, "source_format": None, "max_source_reviews": None, "think": True,
    "wording": "free",
}
# Settings a manifest leaves out of its config at these values, so that a run at the defaults writes the
# manifest it wrote before the setting existed.
UNWRITTEN_DEFAULTS: dict[str, object] = {"domain": None}


# GoRecDial set difficulties: how close the correct movie is to the seeker's set and how far the others are.
# `paper` draws as Kang et al. (2019) describe: the unseen movie nearest the seeker's set is correct, the four
# others come from the far half of the catalog, no set is dropped for its margin. `moderate` (synth's default
# before issue #45) picks the correct movie among the 10 nearest and keeps middling margins; `hard` takes the
# others from nearer the set. Only `paper` is the field's; the other two are synth's, untuned.
SET_DIFFICULTIES: dict[str, dict[str, Any]] = {
    "paper": {"correct_pool": 1, "far_quantile": 0.5, "easy_margin": None, "hard_margin": None},
    "moderate": {"correct_pool": 10, "far_quantile": 0.5, "easy_margin": 0.7, "hard_margin": 0.45},
    "hard": {"correct_pool": 10, "far_quantile": 0.8, "easy_margin": 0.45, "hard_margin": 0.1},
}


class SetRules(BaseModel):
    """How sets are drawn, and which are too easy or too hard to keep. `difficulty` names a preset
    (SET_DIFFICULTIES) whose values fill the fields not given."""

    difficulty: Literal["paper", "moderate", "hard"] = "paper"
    set_size: int = 5
    n_far: int = 4
    like_threshold: float = 4.0  # on the ratings' own scale (MovieLens: 0.5-5)
    min_coherence: float = 0.2  # mean pairwise cosine inside the seeker set
    correct_pool: int = 1  # the correct movie is one of the unseen items nearest the set's mean
    far_quantile: float = 0.5  # far movies come from below this quantile of similarity to the mean
    easy_margin: float | None = None  # drop when correct - best far similarity is above this (too easy)
    hard_margin: float | None = None  # drop when it is below this (too hard)
    points_temperature: float = 0.1  # points = softmax(similarity / temperature) over the candidates

    @model_validator(mode="before")
    @classmethod
    def _from_difficulty(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("difficulty") in SET_DIFFICULTIES:
            return SET_DIFFICULTIES[data["difficulty"]] | data
        return data


class BackendConfig(BaseModel):
    """Which LLM answers and how it is reached (generation, and the LLM judge of `synth filter`)."""

    model_config = ConfigDict(extra="forbid")

    backend: BackendName = "llamacpp"
    model: str | None = None
    base_url: str | None = None
    structured: Literal["auto", "json_schema", "json_object", "none"] = "auto"
    n_ctx: int = 4096
    n_threads: int | None = None
    vllm_engine_args: dict[str, Any] = Field(
        default_factory=dict, description="extra vllm.LLM arguments, e.g. tensor_parallel_size, gpu_memory_utilization"
    )
    vllm_scheduling: Literal["continuous", "gathered"] = Field(
        "continuous",
        description="vllm: 'continuous' (each call joins the async engine's running batch and returns when its own "
        "sequence ends) or 'gathered' (the calls in flight go to one LLM.chat batch, which waits for its slowest)",
    )
    concurrency: int = Field(1, ge=1, description="dialogues (or judge calls) in flight at once")
    rpm: float | None = Field(None, gt=0, description="openai: requests per minute sent at most (a token bucket)")
    tpm: float | None = Field(None, gt=0, description="openai: tokens per minute (prompt + completion) sent at most")
    api_max_attempts: int = Field(10, ge=1, description="openai: tries of one request on transient faults")
    request_timeout_s: float = Field(120.0, gt=0, description="openai: seconds one request may take, whole answer in")

    @model_validator(mode="after")
    def _limits_need_a_server(self) -> "BackendConfig":
        if (self.rpm is not None or self.tpm is not None) and self.backend != "openai":
            raise ValueError("rpm and tpm limit requests to a server: they need backend 'openai'")
        return self


class GenerateConfig(BackendConfig):
    """Everything that decides which dialogues `synth generate` writes."""

    n: int = Field(3, ge=1, description="number of dialogues")
    seed: int = 0
    mode: Literal["pearl", "gorecdial"] = "pearl"
    # data: the bundled demo, MovieLens + Rotten Tomatoes critics, MovieLens alone, a folder in a public review
    # format (amazon:DIR, yelp:DIR, goodreads:DIR), or your own files
    source: str | None = None  # None: demo (pearl), movielens (gorecdial)
    catalog: Path | None = None
    reviews: Path | None = None
    source_format: ReviewFormat | None = Field(
        None, description="the public format of --catalog and --reviews (amazon, yelp or goodreads); none: synth's tables"
    )
    max_source_reviews: int | None = Field(
        None, ge=1, description="read at most this many reviews of a review-format source (the first in file order)"
    )
    ratings: Path | None = Field(None, description="a ratings table (user, item, rating, optional tags) for --catalog")
    rating_scale: str | None = Field(None, description="LOW-HIGH of the ratings in --reviews or --ratings, e.g. 1-10")
    movielens: Path | None = None  # default: `synth data fetch movielens-small`, else the shared data folder's copy
    rt_critics: Path | None = None  # default: `synth data fetch rt-critics`, else the shared data folder's copy
    skip_bad_lines: bool = False
    item_summaries: bool = Field(False, description="add LLM summaries of what reviewers liked/disliked (cached)")
    prompts_dir: Path | None = None
    domain: str | None = Field(
        None, min_length=1,
        description="movies, books, products, restaurants or a profile's YAML file: what the items are and how the "
        "prompts speak of them; by default the source's (books for goodreads, products for amazon, restaurants for "
        "yelp, else movies) (docs/generation.md#domains)",
    )
    # personas
    target_min_score: float = Field(
        0.75, ge=0, le=1, description="a target is an item the user rated at least this, on a 0-1 scale (8/10 = 0.78)"
    )
    general_reviews: int = Field(3, ge=1)
    planner: Literal["pairs", "users"] = Field(
        "pairs",
        description="'pairs': every (user, target) pair once before any twice; 'users': users in turn with a random "
        "target each game (synth before #25, pairs repeat; for resuming older runs)",
    )
    allow_repeats: bool = Field(False, description="play pairs again once every pair has been played (pairs planner)")
    persona_summaries: bool = Field(
        False, description="condense each seeker's likes and dislikes into a few sentences with the LLM (cached)"
    )
    # game
    strategy: Strategy = Field(
        "human", description="who decides each turn's move: 'human' a plan drawn from IARD's annotated ReDial "
        "dialogues (docs/generation.md#strategy), 'pearl' ask once then recommend every turn (synth before #26), "
        "'free' the recommender itself",
    )
    wording: Wording = Field(
        "decided", description="who decides what each turn says: 'decided' the seeker's state and the catalog decide "
        "each turn's content and the model only words it, verified (synth.content); 'free' the model decides and "
        "words each turn in one reply (docs/generation.md#wording)",
    )
    max_utterances: int | None = Field(None, ge=2, description="turn cap after the seed exchange (12 pearl, 20 gorecdial)")
    ask_turns: int = Field(1, ge=0, description="recommender turns that ask before the first recommendation (pearl)")
    k_schedule: list[int] = Field(default_factory=lambda: [3, 3, 3, 2, 1, 1])
    force_target_from: int = Field(3, ge=1, description="recommendation turn from which the target is a candidate")
    max_format_retries: int = Field(3, ge=0)
    think: bool = Field(
        False, description="the PEARL recommender writes a one-sentence private rationale before each message (the "
        "record's think; the guess_contradiction filter then judges it, else the recommender's messages); off, each "
        "recommender reply decodes about 20 fewer tokens (synth before #48: on)"
    )
    reply_resamples: int = Field(
        2, ge=0, description="times a reply the checks find a defect in is sampled again (0: keep it, defects recorded)"
    )
    # retrieval (pearl): which candidates the recommender may suggest
    retriever: Literal["bm25", "dense", "hybrid"] = "bm25"
    embedding_model: str = Field("all-MiniLM-L6-v2", description="sentence-transformers model of dense/hybrid")
    # gorecdial
    set_rules: SetRules = Field(default_factory=SetRules)
    embedding_dim: int = Field(32, ge=2)
    min_item_ratings: int = Field(20, ge=1, description="items rated fewer times are left out of the embeddings")
    # sampling
    temperature: float = Field(
        0.7, ge=0, description="sampling temperature of the simulators (0: greedy); chosen by measurement, see "
        "docs/measurements.md#sampling-temperature",
    )
    max_tokens: int = 160
    # throughput
    progress: bool = True
    request_cache: bool = Field(True, description="replay finished LLM calls from a SQLite cache (resume, repeats)")
    request_cache_path: Path | None = None  # default: OUT/requests.sqlite; share one path to reuse across folders
    # cost accounting (USD per million tokens; unset: tokens are counted, cost is not)
    price_prompt_per_mtok: float | None = Field(None, ge=0)
    price_completion_per_mtok: float | None = Field(None, ge=0)
    price_cached_prompt_per_mtok: float | None = Field(
        None, ge=0, description="USD per million prompt tokens the server served from its prefix cache"
    )
    # spending ceilings: no new dialogue starts once the spend so far, the dialogues in flight and one more would
    # pass them (a resume with a higher ceiling goes on where the run stopped)
    max_cost_usd: float | None = Field(None, gt=0)
    max_total_tokens: int | None = Field(None, gt=0)
    # several machines: this run plays every N-th game spec, starting at I (one run split N ways)
    shard: str | None = Field(None, pattern=r"^\d+/\d+$", description="I/N, 0 <= I < N")

    @field_validator("source")
    @classmethod
    def _known_source(cls, value: str | None) -> str | None:
        if value is None or value in NAMED_SOURCES or review_source(value) is not None:
            return value
        raise ValueError(
            f"unknown source {value!r}: use {', '.join(NAMED_SOURCES)}, or FORMAT:DIR with FORMAT one of "
            f"{', '.join(REVIEW_FORMATS)} (a folder of that format's files)"
        )

    @field_validator("k_schedule")
    @classmethod
    def _positive_schedule(cls, value: list[int]) -> list[int]:
        if not value or any(k < 1 for k in value):
            raise ValueError("k_schedule needs at least one value, all >= 1")
        return value

    @model_validator(mode="before")
    @classmethod
    def _source_domain_is_the_default(cls, data: Any) -> Any:
        """--domain naming the domain its source holds anyway is the default: the same run, the same fingerprint."""
        if isinstance(data, dict) and data.get("domain") is not None and data["domain"] == domain_in_effect(
            None, data.get("source"), data.get("source_format")
        ):
            return {key: value for key, value in data.items() if key != "domain"}
        return data

    @model_validator(mode="after")
    def _persona_summaries_need_personas(self) -> GenerateConfig:
        if self.persona_summaries and self.mode != "pearl":
            raise ValueError("persona_summaries condense PEARL seekers' ratings; gorecdial seekers hold movie sets")
        if self.persona_summaries and self.wording == "decided":
            raise ValueError("persona_summaries are the free seeker's taste in short: add --wording free to them (with "
                             "wording 'decided', the default, the seeker's state holds its taste)")
        return self

    @model_validator(mode="after")
    def _think_is_free_wording_s(self) -> GenerateConfig:
        if self.think and self.wording == "decided":
            raise ValueError("think is the free recommender's rationale: add --wording free to --think (with wording "
                             "'decided', the default, each turn's decided content, the record's content, says why)")
        return self

    @field_validator("shard")
    @classmethod
    def _shard_in_range(cls, value: str | None) -> str | None:
        if value is not None:
            index, count = map(int, value.split("/"))
            if not 0 <= index < count:
                raise ValueError(f"shard {value}: I must be in 0..N-1")
        return value

    @property
    def shard_parts(self) -> tuple[int, int]:
        """(I, N) of --shard I/N; (0, 1) for an unsharded run."""
        if self.shard is None:
            return 0, 1
        index, count = map(int, self.shard.split("/"))
        return index, count

    @property
    def domain_name(self) -> str:
        """The domain in effect: --domain, else the one a public review format holds, else movies."""
        return domain_in_effect(self.domain, self.source, self.source_format)

    @property
    def data_source(self) -> str:
        """The source in effect: own files when --catalog/--reviews are given, else by mode."""
        if self.catalog or self.reviews or self.ratings:
            return "files"
        return self.source or ("movielens" if self.mode == "gorecdial" else "demo")

    @property
    def review_source(self) -> tuple[str, Path] | None:
        """(format, folder) of a `FORMAT:DIR` source; None for the others."""
        return review_source(self.source) if self.source else None

    @property
    def turn_cap(self) -> int:
        return self.max_utterances or (20 if self.mode == "gorecdial" else 12)

    def cost_usd(self, prompt_tokens: int, completion_tokens: int, prompt_evaluated: int | None = None) -> float | None:
        """What these tokens cost at the configured prices; None when no price is set. With a cached-prompt price
        and `prompt_evaluated` known (the prompt tokens the server computed), the rest of the prompt tokens, served
        from the server's prefix cache, cost the cached price."""
        if self.price_prompt_per_mtok is None and self.price_completion_per_mtok is None:
            return None
        cached = 0
        if self.price_cached_prompt_per_mtok is not None and prompt_evaluated is not None:
            cached = max(0, prompt_tokens - prompt_evaluated)
        usd = (prompt_tokens - cached) * (self.price_prompt_per_mtok or 0)
        usd += cached * (self.price_cached_prompt_per_mtok or 0)
        usd += completion_tokens * (self.price_completion_per_mtok or 0)
        return usd / 1e6

    def fingerprint(self) -> str:
        """sha256 over the semantic fields: equal fingerprints mean the same dialogues. The shard is left
        out, so all shards of one run share it (the manifest records the shard beside it)."""
        semantic = self.model_dump(mode="json", exclude=NON_SEMANTIC_FIELDS | {"shard"})
        for name, before in ADDED_FIELDS.items():
            if semantic[name] == before:
                del semantic[name]
        del semantic["set_rules"]["difficulty"]  # the fields it fills say all it does
        if self.mode != "gorecdial":  # no sets are drawn: the rules older synths wrote, whatever they are now
            semantic["set_rules"] = SetRules(difficulty="moderate").model_dump(mode="json", exclude={"difficulty"})
        return hashlib.sha256(json.dumps(semantic, sort_keys=True).encode()).hexdigest()


def review_source(source: str) -> tuple[str, Path] | None:
    """'amazon:data/x' -> ('amazon', Path('data/x')); None when `source` is not FORMAT:DIR with a known format."""
    name, colon, folder = source.partition(":")
    return (name, Path(folder)) if colon and folder and name in REVIEW_FORMATS else None


def load_config(path: Path | None, overrides: dict[str, object], model: type[ConfigT] = GenerateConfig) -> ConfigT:  # type: ignore[assignment]
    """Config from an optional YAML file, with command-line values (non-None) on top; nested mappings
    (e.g. a filter's settings) are merged key by key."""
    values: dict[str, Any] = {}
    if path is not None:
        try:
            loaded = yaml.safe_load(path.read_text()) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise SynthError(f"cannot read config {path}: {exc}") from None
        if not isinstance(loaded, dict):
            raise SynthError(f"{path}: a config file must be a YAML mapping")
        values.update(loaded)
    merge_into(values, {k: v for k, v in overrides.items() if v is not None})
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"])
        source = f"{path}: " if path else ""
        raise SynthError(f"{source}config field '{field}': {err['msg']}") from None


def merge_into(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """`extra` merged into `base` in place: mappings recursively, everything else replaced."""
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            merge_into(base[key], value)
        else:
            base[key] = value
    return base
