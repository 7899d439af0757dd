"""Utterance features: the sentence embedding of the utterance, that of the utterance before it (the
dialogue context), and flags of position, movie mentions and questions."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from synth.analysis.acts.utterances import Utterance

_TITLE_YEAR = re.compile(r"\(\d{4}\)")  # "Heat (1995)": a movie is named
FLAGS = 7


class Encoder(Protocol):
    name: str
    dim: int

    def encode_documents(self, texts: Sequence[str]) -> np.ndarray: ...

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray: ...


def utterance_features(utterances: Sequence[Utterance], encoder: Encoder, *, cache: bool = False) -> np.ndarray:
    """(n, 2·dim + FLAGS) float32: [embedding, previous utterance's embedding (zeros at the start), first
    utterance of the dialogue, first of its speaker, same speaker as the previous utterance, names a
    movie, the previous one names a movie, asks a question, the previous one asks one].

    `cache` keeps the vectors in synth's embedding cache (for the training data, embedded again at every
    training); the dialogues being tagged are embedded without it."""
    texts = list(dict.fromkeys(t for u in utterances for t in (u.text, u.previous) if t))
    encode = encoder.encode_documents if cache else encoder.encode_queries
    vectors = dict(zip(texts, encode(texts))) if texts else {}
    zero = np.zeros(encoder.dim, dtype=np.float32)
    rows = [
        np.concatenate(
            [
                vectors.get(u.text, zero),
                vectors.get(u.previous, zero),
                np.array(_flags(u), dtype=np.float32),
            ]
        )
        for u in utterances
    ]
    return np.stack(rows).astype(np.float32) if rows else np.zeros((0, 2 * encoder.dim + FLAGS), dtype=np.float32)


def _flags(u: Utterance) -> list[bool]:
    return [
        not u.previous,
        u.first_of_role,
        u.same_speaker,
        bool(_TITLE_YEAR.search(u.text)),
        bool(_TITLE_YEAR.search(u.previous)),
        "?" in u.text,
        "?" in u.previous,
    ]
