"""The statistics of one corpus, with the definitions of docs/statistics.md (see synth/analysis/metrics)."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
from pydantic import BaseModel

from synth.analysis.metrics.similarity import mean_pairwise_cosine, sample_indices
from synth.analysis.metrics.text import DistinctNgrams, distinct_count
from synth.analysis.stats.corpus import Corpus, utterance_text
from synth.analysis.stats.defects import DefectRate
from synth.analysis.stats.diversity import DIST_N, Diversity
from synth.data.dialogues import Dialogue, Unit, in_unit
from synth.records import DialogueRecord
from synth.tokens import words

SPECIFICITY_N = (2, 3, 4)
UNMARKED_ITEMS = {"pearl"}  # formats whose utterances carry no item annotations


class Encoder(Protocol):
    name: str

    def encode_documents(self, texts: Sequence[str]) -> np.ndarray: ...


class Similarity(BaseModel):
    model: str
    dialogues: int  # sampled dialogues with seeker text; every pair of them is compared
    pairs: int
    seed: int


class GenerationStats(BaseModel):
    """Outcome and cost figures only a synth run has."""

    acceptance_rate: float
    turns_to_goal_mean: float | None
    turns_to_goal_median: float | None
    recommendations_per_dialogue: float
    failure_rate: float
    tokens_per_dialogue: float


class DatasetStats(BaseModel):
    name: str
    path: str
    format: str
    dialogues: int
    dialogues_in_file: int
    unit: Unit  # what `utterances` and the words per utterance count: merged turns or chat messages
    utterances: int
    utterances_per_dialogue: float
    distinct_users: int | None  # None: the dataset names no users (INSPIRED, PEARL)
    distinct_items: int | None  # None: the format marks no item mentions (PEARL)
    words_per_seeker_utterance: float
    words_per_recommender_utterance: float
    ngram_specificity: dict[str, float]
    inter_dialogue_similarity: float | None
    similarity: Similarity | None
    dist: dict[str, float]
    generation: GenerationStats | None = None
    diversity: Diversity | None = None  # measured beside the other datasets (synth.analysis.stats.diversity)
    defects: dict[str, DefectRate] | None = None  # measure name -> rate (synth.analysis.stats.defects)


@dataclass
class Profile:
    """What the plots and the equal-size diversity measures need, kept per utterance and per dialogue as plain
    numbers."""

    seeker_lengths: list[int] = field(default_factory=list)  # words per seeker utterance
    recommender_lengths: list[int] = field(default_factory=list)
    turns_to_goal: list[int] = field(default_factory=list)  # synth runs: accepted dialogues
    dialogue_words: list[int] = field(default_factory=list)  # words per dialogue, both roles


class _Tally:
    """Everything measured, added one dialogue at a time: memory grows with distinct n-grams, not dialogues."""

    def __init__(self, keep_text_at: set[int], unit: Unit):
        self.unit, self.profile = unit, Profile()
        self.dialogues = self.utterances = 0
        self.users: set[str] = set()
        self.unnamed_users = False
        self.items: set[str] = set()
        self.specificity = dict.fromkeys(SPECIFICITY_N, 0)
        self.dist = {n: DistinctNgrams(n) for n in DIST_N}
        self.keep_text_at, self.seeker_texts = keep_text_at, []
        self.records = _RecordTally()

    def add(self, dialogue: Dialogue, record: DialogueRecord | None) -> None:
        dialogue = in_unit(dialogue, self.unit)
        seeker_texts, dialogue_words = [], 0
        for turn in dialogue.turns:
            text = utterance_text(dialogue, turn)
            tokens = words(text)
            dialogue_words += len(tokens)
            for counter in self.dist.values():
                counter.add(tokens)
            if turn.role == "seeker":
                self.profile.seeker_lengths.append(len(tokens))
                seeker_texts.append(text)
            else:
                self.profile.recommender_lengths.append(len(tokens))
            self.items.update(turn.items)
        self.profile.dialogue_words.append(dialogue_words)
        seeker_side = " ".join(seeker_texts)
        document = words(seeker_side)
        for n in SPECIFICITY_N:
            self.specificity[n] += distinct_count(document, n)
        if self.dialogues in self.keep_text_at and seeker_side.strip():
            self.seeker_texts.append(seeker_side)
        if dialogue.seeker_id is None:
            self.unnamed_users = True
        else:
            self.users.add(dialogue.seeker_id)
        self.dialogues += 1
        self.utterances += len(dialogue.turns)
        if record is not None:
            self.records.add(record)
            if record.outcome.accepted_target and record.outcome.turns_to_goal:
                self.profile.turns_to_goal.append(record.outcome.turns_to_goal)


class _RecordTally:
    def __init__(self) -> None:
        self.count = self.accepted = self.recommendations = self.failed = self.tokens = 0

    def add(self, record: DialogueRecord) -> None:
        self.count += 1
        self.accepted += record.outcome.accepted_target
        self.recommendations += record.outcome.recommendations
        self.failed += bool(record.errors)
        self.tokens += record.generation.prompt_tokens + record.generation.completion_tokens

    def stats(self, turns_to_goal: list[int]) -> GenerationStats | None:
        if not self.count:
            return None
        return GenerationStats(
            acceptance_rate=self.accepted / self.count,
            turns_to_goal_mean=statistics.fmean(turns_to_goal) if turns_to_goal else None,
            turns_to_goal_median=statistics.median(turns_to_goal) if turns_to_goal else None,
            recommendations_per_dialogue=self.recommendations / self.count,
            failure_rate=self.failed / self.count,
            tokens_per_dialogue=self.tokens / self.count,
        )


def measure(
    corpus: Corpus,
    encoder: Encoder | None,
    *,
    similarity_sample: int = 500,
    seed: int = 0,
    unit: Unit = "turn",
    advance: Callable[[], object] | None = None,
) -> tuple[DatasetStats, Profile]:
    """Every statistic of `corpus` in one pass, and the numbers its plots are drawn from; an utterance is a
    speaker's turn (consecutive messages merged) or, with unit 'message', each message. The similarity is
    None without an encoder or with fewer than two dialogues that have seeker text. `advance` is called once
    per dialogue read (a progress bar's)."""
    tally = _Tally(set(sample_indices(corpus.size, similarity_sample, seed)) if encoder else set(), unit)
    for dialogue, record in corpus:
        tally.add(dialogue, record)
        if advance is not None:
            advance()
    found, count = tally.profile, max(tally.dialogues, 1)
    stats = DatasetStats(
        name=corpus.name,
        path=str(corpus.path),
        format=corpus.format,
        dialogues=tally.dialogues,
        dialogues_in_file=corpus.total,
        unit=unit,
        utterances=tally.utterances,
        utterances_per_dialogue=tally.utterances / count,
        distinct_users=None if tally.unnamed_users or not tally.dialogues else len(tally.users),
        distinct_items=None if corpus.format in UNMARKED_ITEMS else len(tally.items),
        words_per_seeker_utterance=_mean(found.seeker_lengths),
        words_per_recommender_utterance=_mean(found.recommender_lengths),
        ngram_specificity={str(n): tally.specificity[n] / count for n in SPECIFICITY_N},
        **_similarity(tally.seeker_texts, encoder, seed),
        dist={str(n): counter.ratio() for n, counter in tally.dist.items()},
        generation=tally.records.stats(found.turns_to_goal),
    )
    return stats, found


def _similarity(texts: list[str], encoder: Encoder | None, seed: int) -> dict:
    if encoder is None or len(texts) < 2:
        return {"inter_dialogue_similarity": None, "similarity": None}
    vectors = encoder.encode_documents(texts)
    info = Similarity(model=encoder.name, dialogues=len(texts), pairs=len(texts) * (len(texts) - 1) // 2, seed=seed)
    return {"inter_dialogue_similarity": mean_pairwise_cosine(vectors), "similarity": info}


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else 0.0
