"""LangChain both ways: a synth retriever inside LangChain, and a LangChain vector store inside synth."""

import pytest
from langchain_core.runnables import RunnableLambda
from langchain_core.vectorstores import InMemoryVectorStore

from synth.retrievers.bm25 import BM25Retriever
from synth.retrievers.dense import DenseRetriever
from synth.retrievers.embeddings import EmbeddingCache, SentenceEncoder
from synth.retrievers.langchain import (
    SentenceEmbeddings,
    VectorStoreRetriever,
    as_langchain,
    catalog_documents,
)
from tests.helpers import QUERIES, SMALL

MATRIX_QUERY = "hacker simulation kung-fu rebels philosophy"


@pytest.fixture(scope="module")
def encoder(tmp_path_factory):
    return SentenceEncoder("all-MiniLM-L6-v2", cache=EmbeddingCache(tmp_path_factory.mktemp("lc") / "e.sqlite"))


@pytest.fixture(scope="module")
def store(catalog, encoder):
    return InMemoryVectorStore.from_documents(catalog_documents(catalog), SentenceEmbeddings(encoder))


class CosineStore(InMemoryVectorStore):
    """The same store with a relevance function declared (its scores are cosine similarities)."""

    def _select_relevance_score_fn(self):
        return lambda score: score


def test_synth_retriever_in_a_langchain_chain(catalog):
    lc = as_langchain(BM25Retriever(catalog), catalog, k=3)
    docs = lc.invoke(MATRIX_QUERY)
    assert [d.metadata["title"] for d in docs][0] == "The Matrix" and len(docs) == 3
    assert docs[0].metadata["score"] >= docs[1].metadata["score"] >= docs[2].metadata["score"]
    chain = lc | RunnableLambda(lambda found: [d.metadata["item_id"] for d in found])
    assert chain.batch([MATRIX_QUERY, "x"])[0][0] == docs[0].metadata["item_id"]
    pool = {d.metadata["item_id"] for d in docs[1:]}
    restricted = as_langchain(BM25Retriever(catalog), catalog, k=5, pool=pool).invoke(MATRIX_QUERY)
    assert {d.metadata["item_id"] for d in restricted} == pool


def test_dense_retriever_in_langchain_keeps_the_most_similar_first(encoder):
    lc = as_langchain(DenseRetriever(SMALL, encoder), SMALL, k=3)
    for query, best in QUERIES.items():
        assert lc.invoke(query)[0].metadata["item_id"] == best


@pytest.mark.parametrize("store_class", [InMemoryVectorStore, CosineStore])
def test_langchain_store_as_synth_retriever_matches_synth_dense(store_class, catalog, encoder):
    store = store_class.from_documents(catalog_documents(catalog), SentenceEmbeddings(encoder))
    from_langchain = VectorStoreRetriever(store)
    ours = DenseRetriever(catalog, encoder, query_max_words=None)
    ids = sorted(catalog)
    pool = set(ids[::3])
    for query in [MATRIX_QUERY, "funny animated family film", "slow romantic drama"]:
        theirs = from_langchain.search(query, pool, 5)
        assert [s.item_id for s in theirs] == [s.item_id for s in ours.search(query, pool, 5)]
        assert all(s.item_id in pool for s in theirs)
        assert [s.score for s in theirs] == sorted((s.score for s in theirs), reverse=True)


def test_langchain_store_most_similar_first_and_pool_pushdown(encoder):
    store = InMemoryVectorStore.from_documents(catalog_documents(SMALL), SentenceEmbeddings(encoder))
    plain = VectorStoreRetriever(store, fetch_factor=1)  # fetches k first, so small pools need the widening loop
    pushed = VectorStoreRetriever(store, search_kwargs_for_pool=lambda pool: {"filter": lambda d: d.metadata["item_id"] in pool})
    for query, best in QUERIES.items():
        assert plain.search(query, set(SMALL), 3)[0].item_id == best
        others = set(SMALL) - {best}
        assert {s.item_id for s in plain.search(query, others, 1)} <= others
        assert [s.item_id for s in pushed.search(query, others, 2)] == [s.item_id for s in plain.search(query, others, 2)]
    assert plain.search("ghost", set(), 2) == []
    assert plain.name == "langchain(InMemoryVectorStore)"
