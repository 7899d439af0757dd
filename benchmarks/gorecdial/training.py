"""Supervised multi-aspect learning of the expert: loss = a*GENERATE + b*PREDICT + (1-a-b)*DECIDE, with
GENERATE alone for the warm-up epochs and the weights then annealed linearly to the variant's final values,
as in the paper. One example per expert turn; GENERATE learns from speak turns only (recommend turns are
written by the template)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

from synth.benchmarks.crs.torch_support import require_torch, seeded_batches
from synth.benchmarks.gorecdial.cosines import DialogueCosines
from synth.benchmarks.gorecdial.expert import PAD, Encoder, ExpertConfig, Vocabulary, build_expert
from synth.benchmarks.gorecdial.games import DECISIONS, Game, folds
from synth.benchmarks.gorecdial.prior import GamePriors
from synth.errors import SynthError

MIN_CALIBRATION_GAMES = 5  # held-out games PREDICT's weights are fitted on at least; fewer: the weights as trained
# final (a: GENERATE, b: PREDICT) of each supervised variant; DECIDE weighs 1 - a - b
VARIANTS: dict[str, tuple[float, float]] = {
    "GENERATE": (1.0, 0.0),
    "+PREDICT": (0.5, 0.5),
    "+DECIDE": (0.4, 0.3),
}
PREDICT_WEIGHTS = ("dialogue_weight", "prior_weight", "cosine_weight")  # the model's, in this order
NON_NEGATIVE = {"dialogue_weight", "cosine_weight"}  # readings of the dialogue: never trusted backwards


@dataclass
class Expert:
    """A trained expert: its model, how it reads games, and which aspects it learnt."""

    variant: str
    encoder: Encoder
    model: Any
    predicts: bool
    decides: bool


@dataclass
class Examples:
    history: Any  # (N, H, W)
    movies: Any  # (N, C, M)
    prior: Any  # (N, C) the candidate prior's scores
    cosine: Any  # (N, C) the sentence encoder's cosines of the dialogue so far and each candidate
    correct: Any  # (N,)
    decision: Any  # (N,) 0 speak, 1 recommend
    target: Any  # (N, T)
    speak: Any  # (N,) bool

    def __len__(self) -> int:
        return len(self.correct)

    def take(self, rows: Any) -> Examples:
        return Examples(*(getattr(self, f.name)[rows] for f in fields(self)))


def turn_examples(games: Sequence[Game], encoder: Encoder) -> Examples:
    """One example per expert turn: the utterances before it, the candidates and what the expert did."""
    history, movies, prior, cosine, correct, decision, target = [], [], [], [], [], [], []
    for game in games:
        candidates, scores = encoder.movies(game.candidates), encoder.prior(game)
        positions = game.expert_turns()
        cosine += encoder.cosine(game, [game.utterances[:p] for p in positions])
        for position in positions:
            turn = game.utterances[position]
            history.append(encoder.history(game.utterances[:position]))
            movies.append(candidates)
            prior.append(scores)
            correct.append(game.correct)
            decision.append(DECISIONS.index(turn.decision))
            target.append(encoder.target(turn.text))
    if not history:
        raise SynthError("the training games have no expert turns")
    tensor = encoder.tensor
    speak = tensor(decision) == 0
    return Examples(tensor(history), tensor(movies), encoder.floats(prior), encoder.floats(cosine), tensor(correct),
                    tensor(decision), tensor(target), speak)


def loss_weights(epoch: int, variant: str, config: ExpertConfig) -> tuple[float, float, float]:
    """(GENERATE, PREDICT, DECIDE) weights at `epoch`: GENERATE alone, then a linear anneal."""
    final_a, final_b = VARIANTS[variant]
    if epoch < config.warmup_epochs:
        return 1.0, 0.0, 0.0
    progress = min(1.0, (epoch - config.warmup_epochs + 1) / max(config.anneal_epochs, 1))
    a = 1.0 - progress * (1.0 - final_a)
    b = progress * final_b
    return a, b, max(0.0, 1.0 - a - b)


def aspect_losses(model: Any, batch: Examples) -> tuple[Any, Any, Any]:
    """(GENERATE, PREDICT, DECIDE) cross-entropies of one batch."""
    torch = require_torch()
    functional = torch.nn.functional
    context, memory, padding = model.context(batch.history)
    scores = model.predict(context, batch.movies, batch.prior, batch.cosine)
    predict = functional.cross_entropy(scores, batch.correct)
    decide = functional.cross_entropy(model.decide(context, scores), batch.decision)
    if batch.speak.any():
        rows = batch.speak
        logits = model.generate_logits(context[rows], memory[rows], padding[rows], batch.target[rows, :-1])
        generate = functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), batch.target[rows, 1:].reshape(-1), ignore_index=PAD
        )
    else:
        generate = scores.sum() * 0.0
    return generate, predict, decide


def train_supervised(
    games: Sequence[Game], variant: str, config: ExpertConfig, seed: int, progress: bool = False, label: str = "",
    cosines: DialogueCosines | None = None,
) -> Expert:
    """An expert of `variant` trained on `games` (seeded); `cosines` (the sentence encoder's, needed with
    `config.dialogue_cosine`) give PREDICT its third input. One that predicts with the prior or the cosines learns
    from all but a `config.calibration` share of them (where that share holds MIN_CALIBRATION_GAMES), on which
    PREDICT's weights are then fitted (`calibrate`); one that also decides then learns DECIDE again on the
    calibrated scores (`refit_decide`)."""
    torch = require_torch()
    if config.dialogue_cosine and cosines is None:
        raise SynthError("the expert's PREDICT reads the dialogue_cosine: give train_supervised the DialogueCosines")
    learning, calibrating = list(games), []
    parts = max(2, round(1 / config.calibration)) if config.calibration > 0 else 0
    stacked = config.movie_prior or config.dialogue_cosine
    if stacked and VARIANTS[variant][1] > 0 and parts and len(games) >= parts * MIN_CALIBRATION_GAMES:
        learning, calibrating = folds(games, parts, seed)[0]
    vocabulary = Vocabulary.build(games, config.vocabulary)
    encoder = Encoder(vocabulary, config, GamePriors(learning, seed) if config.movie_prior else None,
                      cosines if config.dialogue_cosine else None)
    examples = turn_examples(learning, encoder)
    torch.manual_seed(seed)
    model = build_expert(torch, len(vocabulary.tokens), config)
    optimiser = torch.optim.Adam(model.parameters(), lr=config.learning_rate)
    model.train()
    batches_per_epoch = -(-len(examples) // config.batch)
    description = f"train {variant} expert" + (f" on {label}" if label else "")
    for number, rows in enumerate(seeded_batches(len(examples), config.batch, config.epochs, seed, description, progress)):
        a, b, c = loss_weights(number // batches_per_epoch, variant, config)
        generate, predict, decide = aspect_losses(model, examples.take(rows))
        loss = a * generate + b * predict + c * decide
        optimiser.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
    model.eval()
    final_a, final_b = VARIANTS[variant]
    if calibrating:
        calibrate(model, turn_examples(calibrating, encoder))
        if final_a + final_b < 1:
            refit_decide(model, examples, config, seed)
        if config.movie_prior:
            encoder.priors = GamePriors(games, seed)  # new games' scores from the prior of every training game
    return Expert(variant, encoder, model, predicts=final_b > 0, decides=final_a + final_b < 1)


def predict_weights(model: Any) -> dict[str, float]:
    """PREDICT's weights the model has, by name: the dialogue's dot product's, the prior's, the cosine's."""
    return {name: float(getattr(model, name).detach()) for name in PREDICT_WEIGHTS if getattr(model, name) is not None}


def calibrate(model: Any, held_out: Examples) -> None:
    """Fit PREDICT's weights (`predict_weights`) by cross-entropy on expert turns of games the model did not learn
    from, the dot product's and the cosine's kept >= 0: stacking, so that each input counts as much as it tells on
    new games, and the dialogue's dot product not as much as it told on the games the expert memorised."""
    torch = require_torch()
    with torch.no_grad():
        context = model.context(held_out.history)[0]
        dot = torch.einsum("bh,bch->bc", context, model.movies(held_out.movies))
    inputs = {"dialogue_weight": dot, "prior_weight": held_out.prior, "cosine_weight": held_out.cosine}
    start = predict_weights(model)
    names = list(start)
    weights = torch.tensor(list(start.values()), requires_grad=True)
    optimiser = torch.optim.LBFGS([weights], max_iter=100)

    def fitted() -> list[Any]:
        return [w.clamp(min=0) if name in NON_NEGATIVE else w for name, w in zip(names, weights)]

    def loss() -> Any:
        optimiser.zero_grad()
        logits = sum(w * inputs[name] for name, w in zip(names, fitted()))
        value = torch.nn.functional.cross_entropy(logits, held_out.correct)
        value.backward()
        return value

    optimiser.step(loss)
    with torch.no_grad():
        for name, w in zip(names, fitted()):
            getattr(model, name).fill_(float(w))


def refit_decide(model: Any, examples: Examples, config: ExpertConfig, seed: int) -> None:
    """DECIDE learnt again, alone, on PREDICT's calibrated scores: it reads how sure PREDICT is (the candidates'
    probabilities), which the calibration changed; the rest of the model stays as it is."""
    torch = require_torch()
    with torch.no_grad():
        context = model.context(examples.history)[0]
        scores = model.predict(context, examples.movies, examples.prior, examples.cosine)
    optimiser = torch.optim.Adam(model.decide_mlp.parameters(), lr=config.learning_rate)
    for rows in seeded_batches(len(examples), config.batch, config.epochs, seed, "refit DECIDE", False):
        loss = torch.nn.functional.cross_entropy(model.decide(context[rows], scores[rows]), examples.decision[rows])
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
