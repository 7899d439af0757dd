"""The corpus metrics against values computed by hand."""

import numpy as np
import pytest

from synth.analysis.metrics.similarity import mean_pairwise_cosine, sample_indices
from synth.analysis.metrics.text import DistinctNgrams, distinct_n, ngram_specificity, ngrams
from synth.tokens import words


def test_words_are_lower_cased_word_runs_keeping_inner_apostrophes():
    assert words("Don't watch HEAT (1995)... it's long!") == ["don't", "watch", "heat", "1995", "it's", "long"]
    assert words("— ... !") == []


def test_dist_n_is_distinct_over_all_word_ngrams_of_the_corpus():
    corpus = [["a", "b", "a", "b"], ["a", "b"]]
    # unigrams: 6 in all, {a, b} distinct -> 2/6; bigrams: ab ba ab | ab -> 4 in all, {ab, ba} -> 2/4
    assert distinct_n(corpus, 1) == pytest.approx(2 / 6)
    assert distinct_n(corpus, 2) == pytest.approx(2 / 4)
    assert distinct_n(corpus, 3) == pytest.approx(2 / 2)  # "a b a", "b a b"; none crosses the utterance end
    assert distinct_n([["a"]], 2) == 0.0


def test_ngram_specificity_averages_distinct_ngrams_per_document():
    documents = [["i", "like", "i", "like"], ["so", "so"]]
    # bigrams: doc 1 {i like, like i} -> 2; doc 2 {so so} -> 1; mean 1.5
    assert ngram_specificity(documents, 2) == pytest.approx(1.5)
    assert list(ngrams(["a", "b", "c"], 2)) == [("a", "b"), ("b", "c")]


def test_mean_pairwise_cosine_matches_the_pairs_one_by_one():
    vectors = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 3.0]])
    # cos(v1, v2) = 0, cos(v1, v3) = cos(v2, v3) = 1/sqrt(2): mean over 3 pairs
    assert mean_pairwise_cosine(vectors) == pytest.approx((0 + 2 / np.sqrt(2)) / 3)
    with pytest.raises(ValueError):
        mean_pairwise_cosine(vectors[:1])


def test_sample_indices_are_seeded_and_distinct():
    first = sample_indices(100, 10, seed=4)
    assert first == sample_indices(100, 10, seed=4) and len(set(first)) == 10
    assert first != sample_indices(100, 10, seed=5)
    assert sample_indices(3, 10, seed=4) == [0, 1, 2]


def test_distinct_ngrams_counts_the_same_across_flushes(monkeypatch):
    corpus = [words(f"movie {i % 7} is good and movie {i % 5} is fine") for i in range(200)]
    expected = len({gram for tokens in corpus for gram in ngrams(tokens, 2)})
    monkeypatch.setattr(DistinctNgrams, "FLUSH", 16)  # merge into the sorted array many times
    counter = DistinctNgrams(2)
    for tokens in corpus:
        counter.add(tokens)
    assert counter.distinct() == expected and counter.total == sum(len(t) - 1 for t in corpus)
