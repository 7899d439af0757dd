"""LangChain interop (the `langchain` extra): any synth retriever as a LangChain `BaseRetriever`, any
LangChain `VectorStore` as a synth retriever, and synth's sentence encoder as LangChain `Embeddings`."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from synth.errors import SynthError
from synth.records import Item, ScoredItem
from synth.retrievers.base import Retriever
from synth.retrievers.embeddings import SentenceEncoder
from synth.retrievers.text import item_text

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.embeddings import Embeddings
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.vectorstores import VectorStore
    from pydantic import ConfigDict
except ImportError:  # pragma: no cover - depends on the installed extras
    raise SynthError("LangChain interop needs the 'langchain' extra: pip install 'synth-crs[langchain]'") from None

ITEM_ID_KEY = "item_id"


def item_document(item: Item, score: float | None = None) -> Document:
    """An item as a LangChain Document: its retrieval text, with id, title and year (and score) as metadata."""
    metadata: dict[str, Any] = {ITEM_ID_KEY: item.id, "title": item.title, "year": item.year}
    if score is not None:
        metadata["score"] = score
    return Document(page_content=item_text(item), metadata=metadata)


class SynthLangChainRetriever(BaseRetriever):
    """A synth retriever in LangChain: `invoke(query)` returns the top-k items of `pool` (default: all)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    retriever: Any  # a synth Retriever (a Protocol, so not validated by pydantic)
    catalog: dict[str, Item]
    k: int = 4
    pool: frozenset[str] | None = None

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        pool = self.pool if self.pool is not None else self.catalog.keys()
        return [item_document(self.catalog[s.item_id], s.score) for s in self.retriever.search(query, pool, self.k)]


class VectorStoreRetriever:
    """A LangChain vector store as a synth retriever. Documents must carry the item id in metadata[id_key].

    The store's own order is kept (its contract is most similar first); raw scores are never re-sorted,
    since stores disagree on whether a larger score means closer (a distance) or not. The score is the
    store's relevance score (0-1, higher is closer) when it has one, else 1/rank. Without
    `search_kwargs_for_pool`, results are over-fetched and filtered to the pool."""

    def __init__(
        self,
        store: VectorStore,
        *,
        id_key: str = ITEM_ID_KEY,
        search_kwargs_for_pool: Callable[[Collection[str]], dict[str, Any]] | None = None,
        fetch_factor: int = 4,
    ):
        self.store, self.id_key = store, id_key
        self.search_kwargs_for_pool, self.fetch_factor = search_kwargs_for_pool, fetch_factor
        self.name = f"langchain({type(store).__name__})"

    def search(self, query: str, pool: Collection[str], k: int) -> list[ScoredItem]:
        pool = pool if isinstance(pool, (set, frozenset, dict)) else set(pool)
        k = min(k, len(pool))
        if k < 1:
            return []
        kwargs = self.search_kwargs_for_pool(pool) if self.search_kwargs_for_pool else {}
        fetch = k if self.search_kwargs_for_pool else k * self.fetch_factor
        while True:
            hits = self._ranked(query, fetch, kwargs)
            found = self._in_pool(hits, pool)
            if len(found) >= k or len(hits) < fetch:
                return found[:k]
            fetch *= max(2, self.fetch_factor)

    def _ranked(self, query: str, fetch: int, kwargs: dict[str, Any]) -> list[tuple[Document, float | None]]:
        try:
            return list(self.store.similarity_search_with_relevance_scores(query, k=fetch, **kwargs))
        except NotImplementedError:  # the store has no relevance function: keep its order only
            return [(doc, None) for doc in self.store.similarity_search(query, k=fetch, **kwargs)]

    def _in_pool(self, hits: list[tuple[Document, float | None]], pool: Collection[str]) -> list[ScoredItem]:
        found: list[ScoredItem] = []
        seen: set[str] = set()
        for rank, (doc, relevance) in enumerate(hits, start=1):
            item_id = str(doc.metadata.get(self.id_key))
            if item_id in pool and item_id not in seen:
                seen.add(item_id)
                found.append(ScoredItem(item_id=item_id, score=float(relevance) if relevance is not None else 1.0 / rank))
        return found


class SentenceEmbeddings(Embeddings):
    """synth's sentence encoder (cached, unit-length vectors) as LangChain Embeddings."""

    def __init__(self, encoder: SentenceEncoder):
        self.encoder = encoder

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.encoder.encode_documents(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.encoder.encode_queries([text])[0].tolist()


def catalog_documents(catalog: dict[str, Item]) -> list[Document]:
    """Every catalog item as a Document, ready for `SomeVectorStore.from_documents`."""
    return [item_document(item) for item in catalog.values()]


def as_langchain(retriever: Retriever, catalog: dict[str, Item], k: int = 4, pool: Collection[str] | None = None) -> SynthLangChainRetriever:
    """Wrap a synth retriever for LangChain chains."""
    return SynthLangChainRetriever(retriever=retriever, catalog=catalog, k=k, pool=frozenset(pool) if pool is not None else None)
