"""The recommendation and response metrics of `synth benchmark` against values computed by hand."""

import math

import numpy as np
import pytest

from synth.analysis.metrics.generation import bleu, mean_token_f1, rouge, token_f1
from synth.analysis.metrics.ranking import mrr, ndcg_at, recall_at
from synth.analysis.metrics.text import crslab_distinct, distinct_n
from synth.benchmarks.crs.evaluate import recommendation_metrics, response_metrics, target_rank

HYP, REF = "The cat sat on the mat.", "the cat is on the mat"


def test_ranking_metrics_with_one_relevant_item_per_case():
    ranks = [1, 3, None, 60]
    assert recall_at(ranks, 1) == 0.25
    assert recall_at(ranks, 10) == 0.5
    assert recall_at(ranks, 50) == 0.5
    assert mrr(ranks, 50) == pytest.approx((1 + 1 / 3) / 4)  # rank 60 is below the cutoff
    assert ndcg_at(ranks, 50) == pytest.approx((1 + 1 / math.log2(4)) / 4)  # 1/log2(1+1) = 1, 1/log2(3+1) = 0.5
    assert ndcg_at([2], 1) == 0.0 and ndcg_at([], 10) == 0.0
    assert recommendation_metrics([2]) == pytest.approx(
        {"recall@1": 0.0, "recall@10": 1.0, "recall@50": 1.0, "mrr@50": 0.5, "ndcg@50": 1 / math.log2(3)}
    )


def test_target_rank_breaks_ties_by_row_and_honours_exclusions():
    scores = np.array([0.5, 0.9, 0.5, 0.1])
    assert target_rank(scores, 2) == 3  # 0.9 above, the tied row 0 before it
    assert target_rank(scores, 0) == 2  # the tied row 2 comes after
    assert target_rank(scores, 2, excluded=[1]) == 2
    assert target_rank(scores, 2, excluded=[0, 1]) == 1
    assert target_rank(scores, 1, excluded=[1]) is None
    assert target_rank(np.array([1.0, -np.inf]), 1) is None  # not ranked by the model (an LLM's unlisted item)


def test_bleu_is_corpus_level_with_the_brevity_penalty():
    # unigrams: 5 of 6 match; bigrams: "the cat", "on the", "the mat" of 5 -> sqrt(5/6 * 3/5); lengths equal
    assert bleu([HYP], [REF], 2) == pytest.approx(math.sqrt(5 / 6 * 3 / 5))
    # a 2-word answer: both precisions 1, brevity penalty exp(1 - 6/2)
    assert bleu(["the cat"], [REF], 2) == pytest.approx(math.exp(-2))
    # the corpus sums the counts: p1 = 7/8, p2 = 4/6, length 8 vs 12
    assert bleu([HYP, "the cat"], [REF, REF], 2) == pytest.approx(math.exp(1 - 12 / 8) * math.sqrt(7 / 8 * 4 / 6))
    assert bleu([HYP], [REF], 4) == 0.0  # no 4-gram in common, no smoothing
    assert bleu([], [], 2) == 0.0


def test_rouge_and_token_f1():
    scores = rouge([HYP], [REF])
    assert scores["rouge1"] == pytest.approx(5 / 6)  # the x2, cat, on, mat
    assert scores["rouge2"] == pytest.approx(3 / 5)  # the cat, on the, the mat
    assert scores["rougeL"] == pytest.approx(5 / 6)  # LCS "the cat on the mat"
    # token F1 leaves the articles out (SQuAD / ParlAI): cat sat on mat vs cat is on mat -> 3 of 4 each way
    assert token_f1(HYP, REF) == pytest.approx(3 / 4)
    assert token_f1("x x y", "x z") == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))  # "x" shared once
    assert token_f1("", REF) == 0.0 and token_f1("the", "the") == 0.0
    assert mean_token_f1([HYP, "dog"], [REF, REF]) == pytest.approx(3 / 8)


def test_crslab_distinct_counts_character_ngrams_per_response_unlike_dist_n():
    texts = ["hello", "help", ""]
    # character bigrams: he el ll lo | he el lp -> 5 distinct, over 2 non-empty responses
    assert crslab_distinct(texts, 2) == pytest.approx(5 / 2)
    assert crslab_distinct(texts, 3) == pytest.approx(4 / 2)  # hel ell llo | hel elp
    assert distinct_n([["hello"], ["help"]], 1) == 1.0  # word Dist-1 of the same responses


def test_response_metrics_labels_the_crslab_variant_separately():
    plain = response_metrics([HYP], [REF])
    assert set(plain) == {"dist-1", "dist-2", "dist-3", "dist-4", "bleu-2", "bleu-4", "rouge-1", "rouge-2", "rouge-l", "f1"}
    assert plain["dist-1"] == pytest.approx(5 / 6)  # "the" twice among 6 words
    compat = response_metrics([HYP], [REF], crslab_compat=True)
    assert compat["crslab-dist@1"] == len(set(HYP)) and compat["dist-1"] == plain["dist-1"]
