"""A small attentive seq2seq model trained from scratch (PyTorch), as the GoRecDial and ReDial baselines:
a GRU reads the context's latest words, a GRU decoder with dot-product attention over them writes the
recommender's next utterance, greedily. Words are `metrics.text.words` (lower case, no punctuation), the
most frequent ones of the training set; embeddings are tied between input and output."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from synth.benchmarks.crs.baselines.base import Setup, TrainingData
from synth.benchmarks.crs.cases import ResponseCase
from synth.benchmarks.crs.torch_support import require_torch, seeded_batches
from synth.errors import SynthError
from synth.progress import track
from synth.tokens import words

PAD, UNK, BOS, SEP, EOS = range(5)
SPECIALS = ["<pad>", "<unk>", "<bos>", "<sep>", "<eos>"]
VOCAB, CONTEXT, RESPONSE, MIN_COUNT = 3000, 48, 30, 2
DIM, HIDDEN = 96, 128
EPOCHS, BATCH, LR = 4, 128, 3e-3
DECODE_BATCH = 512


class Seq2SeqResponder:
    name = "seq2seq"
    trains = True

    def __init__(self, setup: Setup):
        self.torch = require_torch()
        self.setup = setup
        self._set_vocabulary(list(SPECIALS))
        self.model: Any = None

    def fit(self, data: TrainingData) -> None:
        torch = self.torch
        if not data.responses:
            raise SynthError(f"'{data.label}' has no recommender responses to train the seq2seq model on")
        counts = Counter(w for c in data.responses for w in words(c.text(CONTEXT)) + words(c.reference))
        self._set_vocabulary(SPECIALS + [w for w, n in counts.most_common(VOCAB - len(SPECIALS)) if n >= MIN_COUNT])
        torch.manual_seed(self.setup.seed)
        self.model = _build(torch, len(self.vocabulary))
        sources = torch.tensor([self._source(c) for c in data.responses])
        targets = torch.tensor([self._target(c) for c in data.responses])
        optimiser = torch.optim.Adam(self.model.parameters(), lr=LR)
        self.model.train()
        for batch in seeded_batches(len(sources), BATCH, EPOCHS, self.setup.seed, f"train seq2seq on {data.label}",
                                    self.setup.progress):
            target = targets[batch]
            logits = self.model(sources[batch], target[:, :-1])
            loss = torch.nn.functional.cross_entropy(
                logits.reshape(-1, logits.shape[-1]), target[:, 1:].reshape(-1), ignore_index=PAD
            )
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            optimiser.step()
        self.model.eval()

    def respond(self, cases: Sequence[ResponseCase]) -> list[str]:
        torch = self.torch
        answers: list[str] = []
        starts = range(0, len(cases), DECODE_BATCH)
        for start in track(starts, "seq2seq: decode", self.setup.progress):
            with torch.no_grad():
                tokens = self.model.generate(torch.tensor([self._source(c) for c in cases[start : start + DECODE_BATCH]]))
            for row in tokens.tolist():
                answer = row[: row.index(EOS)] if EOS in row else row
                answers.append(" ".join(self.vocabulary[t] for t in answer))
        return answers

    def state(self) -> dict[str, Any]:
        return {"vocabulary": self.vocabulary, "model": self.model.state_dict()}

    def load_state(self, state: dict[str, Any]) -> None:
        self._set_vocabulary(state["vocabulary"])
        self.model = _build(self.torch, len(self.vocabulary))
        self.model.load_state_dict(state["model"])
        self.model.eval()

    def _set_vocabulary(self, vocabulary: list[str]) -> None:
        self.vocabulary = vocabulary
        self.index = {w: i for i, w in enumerate(vocabulary)}

    def _ids(self, text: str) -> list[int]:
        return [self.index.get(w, UNK) for w in words(text)]

    def _source(self, case: ResponseCase) -> list[int]:
        """The context's latest words, left-padded, then SEP (never masked, so no row is all padding)."""
        context = self._ids(case.text(CONTEXT))[-CONTEXT:]
        return [PAD] * (CONTEXT - len(context)) + context + [SEP]

    def _target(self, case: ResponseCase) -> list[int]:
        response = [BOS] + self._ids(case.reference)[:RESPONSE] + [EOS]
        return response + [PAD] * (RESPONSE + 2 - len(response))


def _build(torch: Any, vocabulary: int) -> Any:
    nn = torch.nn

    class AttentiveSeq2Seq(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(vocabulary, DIM, padding_idx=PAD)
            self.encoder = nn.GRU(DIM, HIDDEN, batch_first=True)
            self.decoder = nn.GRU(DIM, HIDDEN, batch_first=True)
            self.combine = nn.Linear(2 * HIDDEN, DIM)

        def encode(self, source: Any) -> tuple[Any, Any, Any]:
            memory, hidden = self.encoder(self.embed(source))
            return memory, hidden, source == PAD

        def decode(self, previous: Any, hidden: Any, memory: Any, padding: Any) -> tuple[Any, Any]:
            output, hidden = self.decoder(self.embed(previous), hidden)
            weights = (output @ memory.transpose(1, 2)).masked_fill(padding[:, None, :], float("-inf")).softmax(-1)
            mixed = torch.tanh(self.combine(torch.cat([output, weights @ memory], dim=-1)))
            return mixed @ self.embed.weight.T, hidden

        def forward(self, source: Any, target_in: Any) -> Any:
            memory, hidden, padding = self.encode(source)
            return self.decode(target_in, hidden, memory, padding)[0]

        def generate(self, source: Any) -> Any:
            memory, hidden, padding = self.encode(source)
            token = torch.full((len(source), 1), BOS)
            done = torch.zeros(len(source), dtype=torch.bool)
            out = []
            for _ in range(RESPONSE + 1):
                logits, hidden = self.decode(token, hidden, memory, padding)
                logits[:, -1, [PAD, UNK, BOS, SEP]] = float("-inf")
                token = logits[:, -1].argmax(-1, keepdim=True)
                token[done] = EOS
                out.append(token)
                done |= token[:, 0] == EOS
                if done.all():
                    break
            return torch.cat(out, dim=1)

    return AttentiveSeq2Seq()
