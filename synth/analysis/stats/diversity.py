"""How different a corpus's dialogues are from one another, measured beside the other corpora of one `synth
stats` call (definitions: docs/statistics.md#diversity): distinct targets and (user, target) pairs, the
near-duplicate rate, self-BLEU over the same number of dialogues in every corpus, Dist-n over the same number
of words in every corpus, and the share of the ReDial and INSPIRED test targets a generated run covers.

Each corpus is read once more after `measure`: the near-duplicates need every dialogue's text, and the
equal-size sample needs every corpus's size first. Memory stays bounded: only the self-BLEU sample's texts, the
run's distinct targets and pairs, and the near-duplicate index are kept.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
from pydantic import BaseModel

from synth.analysis.metrics.similarity import sample_indices
from synth.analysis.metrics.text import DistinctNgrams
from synth.analysis.near_duplicates import dialogue_text, near_duplicates, utterances_text
from synth.analysis.stats.corpus import Corpus, Pair, utterance_text
from synth.analysis.stats.self_bleu import self_bleu
from synth.data.dialogues import Dialogue, Unit, in_unit
from synth.data.paths import MissingDataset
from synth.data.reference_targets import target_coverage
from synth.domain import DEFAULT_DOMAIN
from synth.errors import InputError
from synth.records import Item
from synth.runs.layout import dialogues_file
from synth.runs.records import domain_beside
from synth.tokens import words

COVERAGE_OF = ("redial-test", "inspired-test")  # reference sets whose target coverage a generated run shows
SELF_BLEU_SAMPLE = 200  # dialogues per corpus (fewer when a compared corpus is smaller)
DIST_N = (1, 2, 3, 4)  # the Dist-n orders of every statistics table


class TargetCoverage(BaseModel):
    total: int  # the reference set's distinct targets
    covered: int
    share: float
    uncovered_examples: list[str]


class Diversity(BaseModel):
    distinct_targets: int | None  # None: not a generated run
    distinct_user_target_pairs: int | None
    near_duplicates: int  # dialogues that nearly repeat an earlier one of the same corpus
    near_duplicate_rate: float
    self_bleu: float | None  # 0-100; None: fewer than two dialogues
    self_bleu_dialogues: int  # the seeded sample, the same size in every compared corpus
    equal_size_words: int  # the words Dist-n is counted over, the same in every compared corpus
    dist_equal_size: dict[str, float]
    target_coverage: dict[str, TargetCoverage | None]  # reference set -> coverage (None: its file is missing)
    coverage_note: str | None = None  # why a coverage is missing


def measure_diversity(
    corpora: Sequence[Corpus],
    dialogue_words: Sequence[Sequence[int]],
    whole_dist: Sequence[dict[str, float]],
    *,
    seed: int = 0,
    self_bleu_sample: int = SELF_BLEU_SAMPLE,
    coverage_of: Sequence[str] = COVERAGE_OF,
    unit: Unit = "turn",
) -> list[Diversity]:
    """The diversity of each corpus, in order. `dialogue_words[i]` holds the words of each dialogue of corpus i
    and `whole_dist[i]` its Dist-n over all of them, as `measure` counted them in `unit` (the smallest corpus's
    Dist-n at equal size is its whole Dist-n; n-grams never cross utterances, so the unit matters)."""
    words_each = min((sum(counts) for counts in dialogue_words), default=0)
    bleu_size = min((len(counts) for counts in dialogue_words), default=0)
    bleu_size = min(bleu_size, self_bleu_sample)
    return [
        _diversity(corpus, counts, dist if sum(counts) <= words_each else None, words_each, bleu_size, seed,
                   coverage_of, unit)
        for corpus, counts, dist in zip(corpora, dialogue_words, whole_dist)
    ]


def _diversity(
    corpus: Corpus,
    counts: Sequence[int],
    whole_dist: dict[str, float] | None,
    words_each: int,
    bleu_size: int,
    seed: int,
    coverage_of: Sequence[str],
    unit: Unit,
) -> Diversity:
    plan = {} if whole_dist is not None else _equal_size_plan(counts, words_each, seed)
    second = _SecondPass(plan, set(sample_indices(len(counts), bleu_size, seed)), unit)
    repeats = sum(1 for _ in near_duplicates(second.texts(corpus)))
    domain = domain_beside(dialogues_file(corpus.path)) if second.records else None
    if domain is not None and domain.name != DEFAULT_DOMAIN:  # the reference sets' targets are movies
        note = f"the reference sets' targets are movies, the targets of {corpus.name} are {domain.plural}"
        coverage = dict.fromkeys(coverage_of)
    else:
        coverage, note = _coverages(second.targets, coverage_of) if second.records else ({}, None)
    return Diversity(
        distinct_targets=len(second.targets) if second.records else None,
        distinct_user_target_pairs=len(second.pairs) if second.records else None,
        near_duplicates=repeats,
        near_duplicate_rate=repeats / second.dialogues if second.dialogues else 0.0,
        self_bleu=self_bleu(second.bleu_texts) if len(second.bleu_texts) > 1 else None,
        self_bleu_dialogues=len(second.bleu_texts),
        equal_size_words=words_each,
        dist_equal_size=whole_dist or {str(n): counter.ratio() for n, counter in second.dist.items()},
        target_coverage=coverage,
        coverage_note=note,
    )


def _equal_size_plan(counts: Sequence[int], budget: int, seed: int) -> dict[int, int]:
    """Dialogue position -> words taken from it: whole dialogues in a seeded order until `budget` words, the
    last one cut."""
    taken: dict[int, int] = {}
    for position in np.random.default_rng(seed).permutation(len(counts)).tolist():
        if budget <= 0:
            break
        if counts[position]:
            taken[position] = min(counts[position], budget)
            budget -= taken[position]
    return taken


@dataclass
class _SecondPass:
    """What the second reading of a corpus collects while the near-duplicate search reads its texts."""

    equal_size: dict[int, int]  # position -> words taken (see _equal_size_plan)
    bleu_at: set[int]  # positions of the self-BLEU sample
    unit: Unit  # Dist-n's utterances: merged turns or chat messages, as `measure` counted them
    dialogues: int = 0
    records: bool = False  # whether the corpus is a generated run
    bleu_texts: list[str] = field(default_factory=list)
    targets: dict[str, Item] = field(default_factory=dict)
    pairs: set[tuple[str, str]] = field(default_factory=set)
    dist: dict[int, DistinctNgrams] = field(default_factory=lambda: {n: DistinctNgrams(n) for n in DIST_N})

    def texts(self, corpus: Corpus) -> Iterator[tuple[str, str]]:
        """(id, text) of every dialogue, in order, collecting the rest on the way."""
        for position, (dialogue, record) in enumerate(corpus):
            self._count_words(dialogue, self.equal_size.get(position, 0))
            text = _text((dialogue, record))
            if position in self.bleu_at:
                self.bleu_texts.append(text)
            if record is not None:
                self.records = True
                self.targets.setdefault(record.target_item.id, record.target_item)
                self.pairs.add((record.user_id, record.target_item.id))
            self.dialogues += 1
            yield dialogue.id, text

    def _count_words(self, dialogue: Dialogue, left: int) -> None:
        if left <= 0:
            return
        for turn in in_unit(dialogue, self.unit).turns:
            if left <= 0:
                return
            tokens = words(utterance_text(dialogue, turn))[:left]
            left -= len(tokens)
            for counter in self.dist.values():
                counter.add(tokens)


def _text(pair: Pair) -> str:
    """A dialogue as one text, as the near-duplicate filter reads it: a generated one without its scripted
    opening, a human one whole."""
    dialogue, record = pair
    if record is not None:
        return dialogue_text(record)
    return utterances_text(utterance_text(dialogue, turn) for turn in dialogue.turns)


def _coverages(
    targets: dict[str, Item], coverage_of: Sequence[str]
) -> tuple[dict[str, TargetCoverage | None], str | None]:
    found: dict[str, TargetCoverage | None] = {}
    missing = []
    for reference in coverage_of:
        try:
            coverage = target_coverage(targets.values(), reference)
        except (InputError, MissingDataset) as error:  # the shared data is not here: shown as "–" with this note
            found[reference] = None
            missing.append(str(error))
            continue
        found[reference] = TargetCoverage(
            total=coverage.total, covered=coverage.covered, share=coverage.share,
            uncovered_examples=list(coverage.uncovered),
        )
    return found, "; ".join(missing) or None
