"""Response-generation metrics against one reference per response, all over `text.words` tokens.

BLEU is corpus-level (sacrebleu: clipped n-gram precisions up to n, geometric mean, brevity penalty) on a
0-1 scale; ROUGE-1/2/L are rouge-score F-measures averaged over responses; token F1 is the harmonic mean of
the bag-of-words precision and recall of each response without the articles a/an/the, averaged (SQuAD's and
ParlAI's F1; with the articles kept it would equal ROUGE-1)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from statistics import fmean

from synth.tokens import words


class _WordTokenizer:
    """rouge-score's tokenizer interface over this project's words."""

    def tokenize(self, text: str) -> list[str]:
        return words(text)


def bleu(hypotheses: Sequence[str], references: Sequence[str], n: int) -> float:
    """Corpus BLEU-n (uniform weights over 1..n-grams); 0.0 for no responses."""
    from sacrebleu.metrics import BLEU

    if not hypotheses:
        return 0.0
    joined = [" ".join(words(text)) for text in hypotheses]
    refs = [" ".join(words(text)) for text in references]
    scorer = BLEU(tokenize="none", max_ngram_order=n, smooth_method="none", effective_order=False)
    return scorer.corpus_score(joined, [refs]).score / 100


def rouge(hypotheses: Sequence[str], references: Sequence[str]) -> dict[str, float]:
    """Mean ROUGE-1, ROUGE-2 and ROUGE-L F-measures ({"rouge1", "rouge2", "rougeL"})."""
    from rouge_score.rouge_scorer import RougeScorer

    kinds = ("rouge1", "rouge2", "rougeL")
    if not hypotheses:
        return dict.fromkeys(kinds, 0.0)
    scorer = RougeScorer(list(kinds), tokenizer=_WordTokenizer())
    scores = [scorer.score(ref, hyp) for hyp, ref in zip(hypotheses, references)]
    return {kind: fmean(s[kind].fmeasure for s in scores) for kind in kinds}


ARTICLES = frozenset({"a", "an", "the"})


def token_f1(hypothesis: str, reference: str) -> float:
    """F1 of the shared words (counted with multiplicity, articles left out) of one response and its reference."""
    hyp = Counter(w for w in words(hypothesis) if w not in ARTICLES)
    ref = Counter(w for w in words(reference) if w not in ARTICLES)
    shared = sum((hyp & ref).values())
    if shared == 0:
        return 0.0
    precision, recall = shared / sum(hyp.values()), shared / sum(ref.values())
    return 2 * precision * recall / (precision + recall)


def mean_token_f1(hypotheses: Sequence[str], references: Sequence[str]) -> float:
    """`token_f1` averaged over responses."""
    return fmean(token_f1(h, r) for h, r in zip(hypotheses, references)) if hypotheses else 0.0
