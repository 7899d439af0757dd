"""A trained neural recommender (PyTorch): the context is the mean of the representations of the items
mentioned so far plus a projection of the sentence embedding of its latest words; an item is a projection
of the embedding of its knowledge text plus a learned id vector and bias, so items never seen in training
still have a place. Softmax over the whole item space, cross-entropy on the training cases."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from synth.benchmarks.crs.baselines.base import CONTEXT_WORDS, Setup, TrainingData
from synth.benchmarks.crs.cases import RecommendationCase
from synth.benchmarks.crs.torch_support import require_torch, seeded_batches
from synth.errors import SynthError
from synth.retrievers.text import item_text

DIM, EPOCHS, BATCH, LR, WEIGHT_DECAY, DROPOUT = 128, 30, 128, 1e-3, 1e-4, 0.2


class NeuralRecommender:
    name = "neural"
    trains = True

    def __init__(self, setup: Setup):
        self.torch = require_torch()
        self.setup = setup
        self.encoder = setup.encoder()
        texts = [item_text(item) for item in setup.space.items.values()]
        self.item_text = self.torch.from_numpy(self.encoder.encode_documents(texts))
        self.model = _build(self.torch, self.item_text)

    def fit(self, data: TrainingData) -> None:
        torch = self.torch
        cases = data.recommendation
        if not cases:
            raise SynthError(f"'{data.label}' has no recommendation cases to train the neural recommender on")
        torch.manual_seed(self.setup.seed)
        self.model = _build(torch, self.item_text)
        text, bags, offsets = self._inputs(cases)
        targets = torch.tensor([self.setup.space.row(c.target) for c in cases])
        optimiser = torch.optim.AdamW(self.model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
        self.model.train()
        for batch in seeded_batches(len(cases), BATCH, EPOCHS, self.setup.seed, f"train neural on {data.label}",
                                    self.setup.progress):
            bag, offset = _sub_bags(torch, bags, offsets, batch)
            loss = torch.nn.functional.cross_entropy(self.model(text[batch], bag, offset), targets[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
        self.model.eval()

    def score_batch(self, cases: Sequence[RecommendationCase]) -> np.ndarray:
        text, bags, offsets = self._inputs(cases)
        with self.torch.no_grad():
            return self.model(text, bags, offsets).numpy()

    def state(self) -> dict[str, Any]:
        return {"model": self.model.state_dict()}

    def load_state(self, state: dict[str, Any]) -> None:
        self.model.load_state_dict(state["model"])
        self.model.eval()

    def _inputs(self, cases: Sequence[RecommendationCase]) -> tuple[Any, Any, Any]:
        torch, space = self.torch, self.setup.space
        text = torch.from_numpy(self.encoder.encode_documents([c.text(CONTEXT_WORDS) for c in cases]))
        bags = [space.row(i) for c in cases for i in c.mentioned]
        lengths = [len(c.mentioned) for c in cases]
        offsets = torch.tensor([0, *np.cumsum(lengths)[:-1].tolist()], dtype=torch.long)
        return text, torch.tensor(bags, dtype=torch.long), offsets


def _sub_bags(torch: Any, bags: Any, offsets: Any, batch: Any) -> tuple[Any, Any]:
    """The item bags of the cases in `batch`, re-packed for embedding_bag."""
    ends = torch.cat([offsets[1:], torch.tensor([len(bags)])])
    pieces = [bags[offsets[i] : ends[i]] for i in batch.tolist()]
    lengths = torch.tensor([len(p) for p in pieces])
    new_offsets = torch.cat([torch.zeros(1, dtype=torch.long), torch.cumsum(lengths, 0)[:-1]])
    return torch.cat(pieces) if pieces else bags[:0], new_offsets


def _build(torch: Any, item_text: Any) -> Any:
    nn = torch.nn

    class ContextItemModel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            items, width = item_text.shape
            self.register_buffer("item_text", item_text, persistent=False)
            self.item_projection = nn.Linear(width, DIM)
            self.item_id = nn.Embedding(items, DIM)
            nn.init.zeros_(self.item_id.weight)
            self.item_bias = nn.Parameter(torch.zeros(items))
            self.text_projection = nn.Linear(width, DIM)
            self.mix = nn.Sequential(nn.Dropout(DROPOUT), nn.Linear(2 * DIM, DIM), nn.Tanh())

        def forward(self, text: Any, bags: Any, offsets: Any) -> Any:
            items = self.item_projection(self.item_text) + self.item_id.weight
            mentioned = nn.functional.embedding_bag(bags, items, offsets, mode="mean")
            user = self.mix(torch.cat([mentioned, self.text_projection(text)], dim=1))
            return user @ items.T + self.item_bias

    return ContextItemModel()
