"""The GoRecDial expert of "Recommendation as a Communication Game" (Kang et al., 2019), in PyTorch:

- context: a GRU reads each utterance (prefixed with its speaker); the context is the mean of the last
  `history` utterance vectors;
- movies: a bag of words over each candidate's title and description, projected to the context's size;
- PREDICT: a softmax over the context's dot products with the candidates (dropout on both in training), plus
  (`movie_prior`, on by default) what the sets give away without the dialogue: the candidate prior's score
  (`prior.GamePriors`, cross-fitted on the training games) times a learned weight, so that the dialogue's evidence
  adds to the prior's rather than relearning it from a few hundred games (the paper's PREDICT is the dot product
  alone: `--no-movie-prior`); and (`dialogue_cosine`, on by default) the pretrained sentence encoder's cosine of
  the dialogue so far and each candidate (`cosines.DialogueCosines`, the dense baseline's score) times a learned
  weight, a reading of the dialogue that does not hang on the few hundred games the GRU learns from. How much
  each counts is fitted last, on training games the expert did not learn from (`calibration`): the dot product
  of games it learnt reads far surer than it is on new ones. A learned score of each candidate alone, the
  earlier item bias, memorised the training games' correct movies (Turn@1 0.99 on them, 0.37 held out) and is
  gone;
- DECIDE: a two-layer MLP over the context and the candidate probabilities: speak or recommend;
- GENERATE: a GRU decoder started from the context, with dot attention over the context's word states and
  tied input/output embeddings, for speak turns (recommend turns use `RECOMMEND_TEMPLATE`).

Words are `metrics.text.words` (lower case, no punctuation)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel

from synth.benchmarks.crs.torch_support import require_torch
from synth.benchmarks.gorecdial.cosines import DialogueCosines
from synth.benchmarks.gorecdial.games import CANDIDATES, Game, Utterance, movie_text
from synth.benchmarks.gorecdial.prior import GamePriors
from synth.records import Item
from synth.tokens import words

PAD, UNK, BOS, EOS, SEEKER, EXPERT = range(6)
SPECIALS = ["<pad>", "<unk>", "<bos>", "<eos>", "<seeker>", "<expert>"]
ROLE_TOKEN = {"seeker": SEEKER, "recommender": EXPERT}
RECOMMEND_TEMPLATE = "How about {title}? I think it is the one for you."
COSINE_SCALE = 20.0  # the cosine's weight before training: the logit scale sentence-transformers trains MiniLM at


class ExpertConfig(BaseModel):
    """Sizes and training schedule; the defaults train in seconds on a CPU."""

    vocabulary: int = 4000
    embedding: int = 64
    hidden: int = 96
    history: int = 8  # utterances the context reads
    utterance_words: int = 30
    movie_words: int = 40
    epochs: int = 40
    warmup_epochs: int = 5  # GENERATE only
    anneal_epochs: int = 10  # then the loss weights move linearly to their final values
    batch: int = 32
    learning_rate: float = 2e-3
    movie_prior: bool = True  # PREDICT adds the candidate prior's scores (False: the paper's form)
    dialogue_cosine: bool = True  # PREDICT adds the sentence encoder's cosine of the dialogue and each candidate
    predict_dropout: float = 0.5  # on the context and the candidates PREDICT compares, in training
    calibration: float = 0.25  # share of the training games held out to weigh PREDICT's inputs against each other
    # (training.calibrate; 0: the weights as training left them)


class Vocabulary:
    def __init__(self, tokens: list[str]):
        self.tokens = tokens
        self.index = {w: i for i, w in enumerate(tokens)}

    @classmethod
    def build(cls, games: Iterable[Game], size: int) -> Vocabulary:
        """The most frequent words of the games' utterances and candidate texts (what the expert reads)."""
        counts: Counter = Counter()
        for game in games:
            counts.update(w for u in game.utterances for w in words(u.text))
            counts.update(w for m in game.candidates for w in words(movie_text(m)))
        return cls(SPECIALS + [w for w, _ in counts.most_common(size - len(SPECIALS))])

    def ids(self, text: str, limit: int) -> list[int]:
        return [self.index.get(w, UNK) for w in words(text)][:limit]

    def text(self, ids: Iterable[int]) -> str:
        return " ".join(self.tokens[i] for i in ids if i >= len(SPECIALS) or i == UNK)


class Encoder:
    """Turns games into the model's tensors; `priors` (with `config.movie_prior`) gives each game's candidate
    prior scores, `cosines` (with `config.dialogue_cosine`) the sentence encoder's cosines."""

    def __init__(self, vocabulary: Vocabulary, config: ExpertConfig, priors: GamePriors | None = None,
                 cosines: DialogueCosines | None = None):
        self.torch = require_torch()
        self.vocabulary, self.config, self.priors, self.cosines = vocabulary, config, priors, cosines

    def history(self, utterances: Sequence[Utterance]) -> list[list[int]]:
        """The last `history` utterances, each its speaker token and first words, padded to one shape."""
        width = self.config.utterance_words + 1
        rows = [[ROLE_TOKEN[u.role]] + self.vocabulary.ids(u.text, width - 1) for u in utterances[-self.config.history :]]
        rows = [row + [PAD] * (width - len(row)) for row in rows]
        return [[PAD] * width] * (self.config.history - len(rows)) + rows

    def movies(self, movies: Sequence[Item]) -> list[list[int]]:
        width = self.config.movie_words
        rows = [self.vocabulary.ids(movie_text(m), width) or [UNK] for m in movies]
        return [row + [PAD] * (width - len(row)) for row in rows]

    def prior(self, game: Game) -> list[float]:
        """The candidate prior's score of each of the game's candidates (zeros without priors)."""
        return self.priors(game) if self.priors is not None else [0.0] * len(game.candidates)

    def cosine(self, game: Game, dialogues: Sequence[Sequence[Utterance]]) -> list[list[float]]:
        """Per dialogue so far, its cosine with each of the game's candidates (zeros without cosines)."""
        if self.cosines is None:
            return [[0.0] * len(game.candidates) for _ in dialogues]
        return self.cosines(game, dialogues).tolist()

    def target(self, text: str) -> list[int]:
        width = self.config.utterance_words + 2
        row = [BOS] + self.vocabulary.ids(text, width - 2) + [EOS]
        return row + [PAD] * (width - len(row))

    def tensor(self, rows: Any) -> Any:
        return self.torch.tensor(rows, dtype=self.torch.long)

    def floats(self, rows: Any) -> Any:
        return self.torch.tensor(rows, dtype=self.torch.float32)


def build_expert(torch: Any, vocabulary: int, config: ExpertConfig) -> Any:
    nn = torch.nn
    dim, hidden = config.embedding, config.hidden

    class Expert(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(vocabulary, dim, padding_idx=PAD)
            self.utterance_rnn = nn.GRU(dim, hidden, batch_first=True)
            self.movie_projection = nn.Linear(dim, hidden)
            self.prior_weight = nn.Parameter(torch.ones(())) if config.movie_prior else None
            self.cosine_weight = nn.Parameter(torch.tensor(COSINE_SCALE)) if config.dialogue_cosine else None
            self.register_buffer("dialogue_weight", torch.ones(()))  # set by training.calibrate
            self.dropout = nn.Dropout(config.predict_dropout)
            self.decide_mlp = nn.Sequential(nn.Linear(hidden + CANDIDATES, hidden), nn.ReLU(), nn.Linear(hidden, 2))
            self.decoder = nn.GRU(dim, hidden, batch_first=True)
            self.combine = nn.Linear(2 * hidden, dim)

        def context(self, history: Any) -> tuple[Any, Any, Any]:
            """(B, H, W) word ids -> context (B, hidden), word states (B, H*W, hidden), their padding mask."""
            batch, utterances, width = history.shape
            flat = history.reshape(batch * utterances, width)
            states, _ = self.utterance_rnn(self.embed(flat))
            lengths = (flat != PAD).sum(1)
            last = states[torch.arange(len(flat)), (lengths - 1).clamp(min=0)].reshape(batch, utterances, -1)
            present = (lengths > 0).reshape(batch, utterances, 1).float()
            context = (last * present).sum(1) / present.sum(1).clamp(min=1.0)
            return context, states.reshape(batch, utterances * width, -1), history.reshape(batch, -1) == PAD

        def movies(self, movies: Any) -> Any:
            """(B, C, M) word ids -> (B, C, hidden): the projected mean word embedding."""
            present = (movies != PAD).unsqueeze(-1).float()
            mean = (self.embed(movies) * present).sum(2) / present.sum(2).clamp(min=1.0)
            return self.movie_projection(mean)

        def predict(self, context: Any, movies: Any, prior: Any, cosine: Any) -> Any:
            """Candidate logits (B, C) from the context, the candidates' words, their prior scores and their
            cosines with the dialogue (B, C each)."""
            candidates = self.dropout(self.movies(movies))
            logits = self.dialogue_weight * torch.einsum("bh,bch->bc", self.dropout(context), candidates)
            if self.prior_weight is not None:
                logits = logits + self.prior_weight * prior
            return logits if self.cosine_weight is None else logits + self.cosine_weight * cosine

        def decide(self, context: Any, scores: Any) -> Any:
            """Logits of (speak, recommend), (B, 2); the candidate scores are not trained through DECIDE."""
            return self.decide_mlp(torch.cat([context, scores.detach().softmax(-1)], dim=-1))

        def step(self, previous: Any, state: Any, memory: Any, padding: Any) -> tuple[Any, Any]:
            output, state = self.decoder(self.embed(previous), state)
            attention = (output @ memory.transpose(1, 2)).masked_fill(padding[:, None, :], float("-inf"))
            weights = attention.softmax(-1).nan_to_num(0.0)
            mixed = torch.tanh(self.combine(torch.cat([output, weights @ memory], dim=-1)))
            return mixed @ self.embed.weight.T, state

        def generate_logits(self, context: Any, memory: Any, padding: Any, target_in: Any) -> Any:
            return self.step(target_in, context.unsqueeze(0).contiguous(), memory, padding)[0]

        def write(self, context: Any, memory: Any, padding: Any, length: int, sample: bool, generator: Any = None
                  ) -> tuple[Any, Any]:
            """Decoded token ids (B, <= length) and each row's summed log-probability."""
            state = context.unsqueeze(0).contiguous()
            token = torch.full((len(context), 1), BOS)
            done = torch.zeros(len(context), dtype=torch.bool)
            log_prob = torch.zeros(len(context))
            out = []
            for _ in range(length):
                logits, state = self.step(token, state, memory, padding)
                logits = logits[:, -1]
                logits[:, [PAD, UNK, BOS, SEEKER, EXPERT]] = float("-inf")
                probs = logits.log_softmax(-1)
                token = (torch.multinomial(probs.exp(), 1, generator=generator) if sample
                         else probs.argmax(-1, keepdim=True))
                log_prob = log_prob + probs.gather(1, token)[:, 0] * (~done).float()
                token = token.masked_fill(done[:, None], EOS)
                out.append(token)
                done = done | (token[:, 0] == EOS)
                if done.all():
                    break
            return torch.cat(out, dim=1), log_prob

    return Expert()


def strip_eos(row: list[int]) -> list[int]:
    return row[: row.index(EOS)] if EOS in row else row
