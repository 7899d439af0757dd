"""`synth stats`: load each dataset, measure it, and hand back what the table, JSON and plots need."""

from __future__ import annotations

import logging

from synth.analysis.stats.corpus import Corpus, load_corpus
from synth.analysis.stats.defects import measure_defects
from synth.analysis.stats.diversity import SELF_BLEU_SAMPLE, measure_diversity
from synth.analysis.stats.measures import DatasetStats, Encoder, Profile, measure
from synth.data.dialogues import Unit
from synth.errors import SynthError
from synth.progress import progress_bar

log = logging.getLogger(__name__)


def similarity_encoder(model: str | None) -> Encoder | None:
    """The sentence encoder for inter-dialogue similarity; None when switched off (model None) or when the
    'dense' extra is not installed (then the similarity is reported as null, with a warning)."""
    if model is None:
        return None
    from synth.retrievers.embeddings import DENSE_EXTRA_HINT, SentenceEncoder

    try:
        return SentenceEncoder(model)
    except SynthError as error:
        if str(error) != DENSE_EXTRA_HINT:
            raise
        log.warning("inter-dialogue similarity left out: %s", DENSE_EXTRA_HINT)
        return None


def open_corpora(specs: list[str], format: str | None = None, *, sample: int | None = None, seed: int = 0) -> list[Corpus]:
    """Every dataset in `specs` ('LABEL=PATH' or 'PATH'), opened once, in order."""
    return [load_corpus(spec, format, sample=sample, seed=seed) for spec in specs]


def collect_stats(
    corpora: list[Corpus],
    *,
    seed: int = 0,
    encoder: Encoder | None = None,
    similarity_sample: int = 500,
    self_bleu_sample: int = SELF_BLEU_SAMPLE,
    unit: Unit = "turn",
    progress: bool = False,
) -> tuple[list[DatasetStats], list[Profile]]:
    """Statistics and profiles of every opened dataset, in order, with their diversity measured side by side
    (self-BLEU and Dist-n at the same size in each) and their utterance defects; an utterance is a speaker's
    turn, or each message. With `progress`, a bar counts the dialogues measured, with an ETA."""
    all_stats, profiles = [], []
    with progress_bar(progress, "measuring dialogues", eta=True, transient=True) as bar:
        task = bar.add_task("measuring", total=sum(corpus.size for corpus in corpora))
        for corpus in corpora:
            stats, found = measure(corpus, encoder, similarity_sample=similarity_sample, seed=seed, unit=unit,
                                   advance=lambda: bar.advance(task))
            all_stats.append(stats)
            profiles.append(found)
    words, dist = [found.dialogue_words for found in profiles], [stats.dist for stats in all_stats]
    diversities = measure_diversity(corpora, words, dist, seed=seed, self_bleu_sample=self_bleu_sample, unit=unit)
    for stats, diversity, corpus in zip(all_stats, diversities, corpora):
        stats.diversity = diversity
        stats.defects = measure_defects(corpus, unit)
    return all_stats, profiles
