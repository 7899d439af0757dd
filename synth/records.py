"""The dialogue record: one JSON line per generated dialogue."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, field_validator, model_serializer

RECORD_SCHEMA_VERSION = 1  # the record layout this synth writes; bump it when a field changes meaning
UNVERSIONED = 0  # records written before records carried a version
LEGACY_SCRIPTED_TURNS = 2  # unversioned records all open with the two-turn seed exchange


class Item(BaseModel):
    """One catalog item (a movie)."""

    id: str
    title: str
    year: int | None = None
    genres: list[str] = Field(default_factory=list)
    description: str = ""
    imdb_id: str | None = None  # "tt0114709"
    tmdb_id: str | None = None
    directors: list[str] = Field(default_factory=list)  # where the catalog has them (the demo's does)
    cast: list[str] = Field(default_factory=list)  # the leads, where the catalog has them

    @property
    def display(self) -> str:
        """Title with the year, as the simulators see it: 'Heat (1995)'."""
        return f"{self.title} ({self.year})" if self.year else self.title


class Review(BaseModel):
    """One user's review of one item: the rating as the source gave it, and `score` on 0-1."""

    user: str
    item: str
    rating: float
    text: str  # "" where the source has ratings only (MovieLens, --ratings)
    score: float | None = None  # (rating - scale low) / (scale high - scale low)
    scale: list[float] | None = None  # the source's [low, high], for "4.5/5" in prompts
    tags: list[str] = Field(default_factory=list)  # the user's own tags of the item (MovieLens tags.csv)

    @property
    def stars(self) -> str | None:
        """'4.5/5' on the source's scale, when the scale is known."""
        return f"{self.rating:g}/{self.scale[1]:g}" if self.scale else None


def verdict(review: Review) -> str:
    """The review's 0-1 score in words, so prompts read the same whatever the source's rating scale."""
    score = review.score if review.score is not None else 0.5
    if score >= 0.75:
        return "loved it"
    if score >= 0.55:
        return "liked it"
    if score >= 0.4:
        return "found it so-so"
    return "disliked it"


class Persona(BaseModel):
    """What the seeker simulator knows about itself."""

    user_id: str
    general: list[Review]
    target: Review
    summary: str | None = None  # the user's likes and dislikes in a few sentences (--persona-summaries)


class ScoredItem(BaseModel):
    item_id: str
    score: float


class TurnPlan(BaseModel):
    """The move a strategy asked of a turn (`--strategy human`): IARD act codes and a length in words.
    `sampled` is the strategy model's own draw when a game rule made the turn play something else."""

    acts: list[str]
    words: int
    sampled: list[str] | None = None


class RejectedReply(BaseModel):
    """A reply the turn loop's checks turned down, and why (synth.analysis.defects)."""

    text: str
    reasons: list[str]


class ReplyChecks(BaseModel):
    """What the reply checks did on a turn, where they did anything: the replies re-sampled away, in order, and
    the defects of the reply kept when the re-sample limit was reached (fewest found, first of those), and what
    was repaired in it (a recommendation that never named its movie gets the title put before its words)."""

    resampled: list[RejectedReply] = Field(default_factory=list)
    kept_defects: list[str] = Field(default_factory=list)
    repaired: list[str] = Field(default_factory=list)


class TurnContent(BaseModel):
    """What a turn was decided to say before any model wrote it (decided wording, synth.content): its `move`,
    each `point` in plain words, the titles its words must name, the people they may name, and who worded it:
    the model, or the content's own template where no model reply said it (after the re-samples)."""

    move: str  # "ask", "reveal", "offer", "answer", "accept", "decline", "inquire", "close", "greet"
    points: list[str]
    titles: list[str] = Field(default_factory=list)
    people: list[str] = Field(default_factory=list)
    worded_by: Literal["model", "template"] = "model"


class Turn(BaseModel):
    role: Literal["seeker", "recommender"]
    text: str
    think: str | None = None
    recommended_item: str | None = None
    candidates: list[ScoredItem] | None = None
    accepted: bool | None = None
    decision: Literal["speak", "recommend"] | None = None  # GoRecDial expert turns
    correct: bool | None = None  # GoRecDial: was the recommended item the correct one
    plan: TurnPlan | None = None  # the planned move (--strategy human)
    checks: ReplyChecks | None = None  # re-samples of this turn's reply, when its checks found a defect
    content: TurnContent | None = None  # what the turn was decided to say (--wording decided)

    @model_serializer(mode="wrap")
    def _content_where_decided(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """A turn of free wording is written as before decided wording existed: without a `content` key."""
        data = handler(self)
        if data.get("content") is None:
            data.pop("content", None)
        return data


class Outcome(BaseModel):
    """How the dialogue ended. turns_to_goal counts utterances after the seed exchange, acceptance included."""

    accepted_target: bool
    turns_to_goal: int | None = None
    ended_by: Literal["accepted", "wrong_acceptance", "target_rejected", "turn_cap", "error"]
    recommendations: int = 0
    score: float | None = None  # GoRecDial: points of the accepted item, discounted per recommendation


class GoRecDialGame(BaseModel):
    """Everything a model needs to learn from a GoRecDial game later."""

    seeker_items: list[Item]
    candidates: list[Item]
    correct_index: int
    similarities: list[float]
    points: list[float]
    coherence: float
    margin: float


class Generation(BaseModel):
    backend: str
    model: str
    prompt_hashes: dict[str, str]
    sampling: dict[str, float | int | None]
    seed: int
    retriever: str | None = None  # pearl: e.g. "bm25", "hybrid(bm25+dense(sentence-transformers/all-MiniLM-L6-v2))"
    prompt_tokens: int = 0
    prompt_tokens_evaluated: int | None = None  # embedded backend: prompt tokens not reused from the KV cache
    completion_tokens: int = 0
    completion_tokens_forced: int | None = None  # embedded backend: completion tokens the grammar forced (not decoded)
    llm_calls: int = 0
    latency_s: float = 0.0
    format_retries: int = 0
    reply_resamples: int = 0  # replies the checks turned down and sampled again (synth.analysis.defects)
    cost_usd: float | None = None  # at the run's configured prices


class DialogueRecord(BaseModel):
    """One generated dialogue. `scripted_turns`: how many opening turns the game wrote rather than the models
    (the seed exchange). Records without `schema_version` predate it and read as UNVERSIONED."""

    schema_version: int = UNVERSIONED
    id: str
    mode: Literal["pearl", "gorecdial"] = "pearl"
    user_id: str
    persona: Persona | None = None  # pearl
    target_item: Item  # pearl: the persona's target; gorecdial: the correct candidate
    gorecdial: GoRecDialGame | None = None
    scripted_turns: int = LEGACY_SCRIPTED_TURNS
    turns: list[Turn]
    outcome: Outcome
    generation: Generation
    errors: list[str] = Field(default_factory=list)

    @field_validator("schema_version")
    @classmethod
    def _known_version(cls, version: int) -> int:
        if version > RECORD_SCHEMA_VERSION:
            raise ValueError(
                f"record schema {version} is newer than this synth reads ({RECORD_SCHEMA_VERSION}): upgrade synth"
            )
        return version
