"""Near-duplicates (`dedup`): a dialogue that says nearly what an earlier kept dialogue said is dropped, with
the kept one's id and their similarity. Unlike the other basic filters it is stateful across dialogues: one
`DedupPass` per run sees the dialogues in the input file's order, after every other selected filter, and
compares only those they all kept (a dialogue dropped for another reason never costs a good one its place).

The comparison is synth.analysis.near_duplicates: MinHash LSH (datasketch) over word shingles of the
model-written utterances finds candidates, the exact Jaccard of the shingle sets decides."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from synth.analysis.near_duplicates import (
    DEFAULT_NUM_PERM,
    DEFAULT_SHINGLE,
    DEFAULT_THRESHOLD,
    NearDuplicate,
    NearDuplicateFinder,
    Sketch,
    sketch_text,
    utterances_text,
)
from synth.filters.base import KEEP, Verdict
from synth.filters.dialogue import FilterDialogue


class Dedup(BaseModel):
    """The near-duplicate filter's settings; `start()` gives the pass that judges one run."""

    model_config = ConfigDict(extra="forbid")
    name: ClassVar[str] = "dedup"

    threshold: float = Field(
        DEFAULT_THRESHOLD, gt=0, le=1, description="Jaccard similarity of the shingle sets from which a dialogue is a near-duplicate"
    )
    shingle: int = Field(DEFAULT_SHINGLE, ge=1, le=10, description="words per shingle")
    num_perm: int = Field(DEFAULT_NUM_PERM, ge=16, le=1024, description="MinHash permutations (the LSH index's size)")

    def sketch(self, dialogue: FilterDialogue) -> Sketch:
        """The sketch of the dialogue's model-written utterances (a pure function: Ray workers compute it)."""
        return sketch_text(text_of(dialogue), self.shingle, self.num_perm)

    def sketches(self, chunk: list[FilterDialogue], verdicts: list[dict[str, Verdict]]) -> list[Sketch | None]:
        """The sketch of each dialogue of a chunk that every other filter kept; None for the others."""
        return [self.sketch(d) if all(v.keep for v in found.values()) else None for d, found in zip(chunk, verdicts)]

    def start(self) -> DedupPass:
        return DedupPass(self)

    def verdict(self, found: NearDuplicate | None) -> Verdict:
        if found is None:
            return KEEP
        return Verdict.drop(
            f"near-duplicate of {found.kept_id} (Jaccard {found.similarity:.2f} over {self.shingle}-word shingles)",
            score=round(found.similarity, 3),
        )


class DedupPass:
    """One run's near-duplicate state: feed it every chunk in file order."""

    def __init__(self, settings: Dedup):
        self.settings = settings
        self.finder = NearDuplicateFinder(settings.threshold, settings.shingle, settings.num_perm)

    def judge(self, ids: list[str], sketches: list[Sketch | None], verdicts: list[dict[str, Verdict]]) -> None:
        """Add the dedup verdict of each dialogue sketched (those every other filter kept) to `verdicts`."""
        for id, sketch, found in zip(ids, sketches, verdicts):
            if sketch is not None:
                found[self.settings.name] = self.settings.verdict(self.finder.add_sketch(id, sketch))


def text_of(dialogue: FilterDialogue) -> str:
    """The text compared: the utterances after the game's scripted opening (all of a PEARL dialogue's)."""
    return utterances_text(turn.text for turn in dialogue.turns[dialogue.first_free_turn :])
