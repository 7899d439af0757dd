"""The sentence encoder's cosine of the dialogue so far and each candidate's text (all-MiniLM-L6-v2 unless the run
names another): the dense recommendation baseline's score, and the third input of the expert's PREDICT
(`ExpertConfig.dialogue_cosine`), which so reads the dialogue through a pretrained model as well as through its
own GRU."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from synth.benchmarks.gorecdial.games import Game, Utterance, movie_text

CONTEXT_UTTERANCES = 8  # the latest utterances the dialogue's text holds


def dialogue_text(utterances: Sequence[Utterance]) -> str:
    """The dialogue so far as the sentence encoder reads it: its last `CONTEXT_UTTERANCES` utterances."""
    return " ".join(u.text for u in utterances[-CONTEXT_UTTERANCES:])


class DialogueCosines:
    """Cosines from `encoder` (`crs.baselines.base.Setup.encoder()`: unit vectors, `encode_queries` and
    `encode_documents`); each dialogue text and each game's candidates are embedded once per run, however many
    experts, folds and epochs read them."""

    def __init__(self, encoder: Any):
        self.encoder = encoder
        self._dialogues: dict[str, np.ndarray] = {}
        self._candidates: dict[tuple[str, ...], np.ndarray] = {}

    def __call__(self, game: Game, dialogues: Sequence[Sequence[Utterance]]) -> np.ndarray:
        """(len(dialogues), candidates): the cosine of each dialogue so far with each of the game's candidates."""
        texts = [dialogue_text(d) for d in dialogues]
        missing = [t for t in dict.fromkeys(texts) if t not in self._dialogues]
        if missing:
            self._dialogues.update(zip(missing, self.encoder.encode_queries(missing)))
        key = tuple(movie_text(c) for c in game.candidates)
        if key not in self._candidates:
            self._candidates[key] = self.encoder.encode_documents(list(key))
        if not texts:
            return np.zeros((0, len(game.candidates)), dtype=np.float32)
        return np.stack([self._dialogues[t] for t in texts]) @ self._candidates[key].T
