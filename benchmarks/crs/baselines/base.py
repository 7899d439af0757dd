"""The two baseline interfaces and what every baseline is given: the item space, the training data, a seed,
the shared sentence encoder, the LLM backend settings and how `lm-crs` fine-tunes its model."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from synth.benchmarks.crs.cases import RecommendationCase, ResponseCase
from synth.benchmarks.crs.datasets import Conversation
from synth.benchmarks.crs.items import ItemSpace
from synth.benchmarks.crs.lm.settings import LmSettings
from synth.config import BackendConfig

CONTEXT_WORDS = 128  # the latest words of the dialogue that text-based baselines read


@dataclass
class TrainingData:
    label: str
    fingerprint: str
    conversations: list[Conversation]
    recommendation: list[RecommendationCase]
    responses: list[ResponseCase]


@dataclass
class Setup:
    """Shared by every baseline of one benchmark run."""

    space: ItemSpace
    seed: int = 0
    embedding_model: str | None = None
    llm: BackendConfig = field(default_factory=BackendConfig)
    progress: bool = True
    cache_dir: Path | None = None  # fitted models and LLM requests
    lm: LmSettings = field(default_factory=LmSettings)
    _encoder: Any = None

    def encoder(self) -> Any:
        """The sentence encoder (dense extra), loaded once."""
        if self._encoder is None:
            from synth.retrievers.embeddings import DEFAULT_EMBEDDING_MODEL, SentenceEncoder

            self._encoder = SentenceEncoder(self.embedding_model or DEFAULT_EMBEDDING_MODEL, progress=self.progress)
        return self._encoder


class Recommender(Protocol):
    """Scores every item of the space for each case; higher is better, -inf means not ranked."""

    name: str
    trains: bool  # False: the training set is not used (one row per test set)

    def fit(self, data: TrainingData) -> None: ...

    def score_batch(self, cases: Sequence[RecommendationCase]) -> np.ndarray:
        """(len(cases), len(space)) scores."""
        ...

    def state(self) -> dict[str, Any]:
        """What `load_state` needs to skip `fit` (the fitted-model cache)."""
        ...

    def load_state(self, state: dict[str, Any]) -> None: ...


class Responder(Protocol):
    """Writes the recommender's next utterance for each case."""

    name: str
    trains: bool

    def fit(self, data: TrainingData) -> None: ...

    def respond(self, cases: Sequence[ResponseCase]) -> list[str]: ...

    def state(self) -> dict[str, Any]: ...

    def load_state(self, state: dict[str, Any]) -> None: ...


class Untrained:
    """Mixin of the baselines that do not learn from the training set."""

    trains = False

    def fit(self, data: TrainingData) -> None:
        return None

    def state(self) -> dict[str, Any]:
        return {}

    def load_state(self, state: dict[str, Any]) -> None:
        return None
