"""Self-BLEU (Zhu et al., 2018, Texygen): how much each text of a set repeats the others' n-grams, as the mean
sentence BLEU of every text against all the others as references (sacrebleu's sentence BLEU: 13a tokens,
n-grams up to 4, exponential smoothing, effective order; 0-100). Higher means more alike.

`sacrebleu`'s own `sentence_score(text, others)` extracts every reference's n-grams again for each text (k^2
extractions for k texts); here each text's n-grams are extracted once and the best reference count of an
n-gram is the largest count among the other texts (kept as the two largest per n-gram), which gives the same
number in linear time.
"""

from __future__ import annotations

from collections.abc import Sequence

from sacrebleu.metrics.bleu import BLEU
from sacrebleu.metrics.helpers import extract_all_word_ngrams

MAX_ORDER = 4


def self_bleu(texts: Sequence[str]) -> float:
    """The mean sentence BLEU (0-100) of each text against all the other texts; needs at least two texts."""
    if len(texts) < 2:
        raise ValueError("self-BLEU needs at least two texts")
    bleu = BLEU(effective_order=True)
    extracted = [extract_all_word_ngrams(bleu.tokenizer(text.rstrip()), 1, MAX_ORDER) for text in texts]
    best = _two_largest_counts([counts for counts, _ in extracted])
    lengths = [length for _, length in extracted]
    scores = []
    for index, (counts, length) in enumerate(extracted):
        correct, total = [0] * MAX_ORDER, [0] * MAX_ORDER
        for gram, count in counts.items():
            first, owner, second = best[gram]
            total[len(gram) - 1] += count
            correct[len(gram) - 1] += min(count, second if owner == index else first)
        reference_length = min((abs(length - other), other) for j, other in enumerate(lengths) if j != index)[1]
        score = BLEU.compute_bleu(correct, total, length, reference_length, smooth_method=bleu.smooth_method,
                                  effective_order=True, max_ngram_order=MAX_ORDER)
        scores.append(score.score)
    return sum(scores) / len(scores)


def _two_largest_counts(all_counts: list) -> dict[tuple[str, ...], tuple[int, int, int]]:
    """n-gram -> (largest count, the index of a text that has it, second largest count over the other texts)."""
    best: dict[tuple[str, ...], tuple[int, int, int]] = {}
    for index, counts in enumerate(all_counts):
        for gram, count in counts.items():
            first, owner, second = best.get(gram, (0, -1, 0))
            if count > first:
                best[gram] = (count, index, first)
            elif count > second:
                best[gram] = (first, owner, count)
    return best
