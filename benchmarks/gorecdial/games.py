"""GoRecDial games as the expert models learn from them: the two movie sets, the correct candidate, and the
utterances with each expert turn's decision (speak or recommend) and recommended candidate.

Generated games come from synth runs (`--mode gorecdial` records). Human games come from GoRecDial in
ParlAI's text format, whose first line names the sets ("seeker movies: MID..", "expert movies: MID..");
the correct candidate is the line's `correct`/`gt_movie` field when present, else the candidate the
seeker accepted in an episode that ends with a positive reward. Episodes without one are skipped and
counted. Movies are described from MovieLens (genres and tags), as generation describes them."""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from synth.benchmarks.crs.datasets import DatasetSpec, file_digest
from synth.data.dialogues import Dialogue, Role
from synth.data.gorecdial_parlai import MID
from synth.datasets import detect_format, load_dialogues
from synth.errors import SynthError
from synth.records import DialogueRecord, Item
from synth.runs.layout import dialogues_file
from synth.runs.records import load_records

Decision = Literal["speak", "recommend"]
DECISIONS: tuple[Decision, Decision] = ("speak", "recommend")
CORRECT_FIELDS = ("correct", "gt_movie", "correct_movie")
CANDIDATES = 5  # the expert's set, as in the paper


@dataclass(frozen=True)
class Utterance:
    role: Role
    text: str
    decision: Decision | None = None  # expert turns that were played (not the scripted greeting)
    recommended: int | None = None  # candidate index of a recommend turn
    accepted: bool | None = None  # seeker turns answering a recommendation, when the data says


@dataclass(frozen=True)
class Game:
    id: str
    seeker_items: tuple[Item, ...]
    candidates: tuple[Item, ...]
    correct: int
    points: tuple[float, ...]
    utterances: tuple[Utterance, ...]

    def expert_turns(self) -> list[int]:
        """Positions of the expert turns a model learns from."""
        return [i for i, u in enumerate(self.utterances) if u.role == "recommender" and u.decision is not None]


@dataclass
class GameSet:
    label: str
    games: list[Game]
    fingerprint: str
    skipped: Counter = field(default_factory=Counter)  # reason -> games left out

    def describe(self) -> dict[str, object]:
        """Sizes, and how often the data's own expert (the generating LLM, or the human) recommended the correct
        candidate: over all its recommendations, and with its first one in each game."""
        turns = [game.utterances[t] for game in self.games for t in game.expert_turns()]
        picks = [(game, [u.recommended for u in game.utterances if u.recommended is not None]) for game in self.games]
        recommended = [index == game.correct for game, indexes in picks for index in indexes]
        first = [indexes[0] == game.correct for game, indexes in picks if indexes]
        return {
            "games": len(self.games),
            "expert_turns": len(turns),
            "recommend_turns": sum(u.decision == "recommend" for u in turns),
            "data_expert_correct": sum(recommended) / len(recommended) if recommended else None,
            "data_expert_first_correct": sum(first) / len(first) if first else None,
            "skipped": dict(self.skipped),
        }


def movie_text(item: Item) -> str:
    """What the movie encoder reads: the title with its year, and the description."""
    return f"{item.display}. {item.description}".strip()


def record_game(record: DialogueRecord) -> Game | None:
    """A generated GoRecDial game; None for PEARL records."""
    sets = record.gorecdial
    if record.mode != "gorecdial" or sets is None or len(sets.candidates) != CANDIDATES:
        return None
    index = {item.id: i for i, item in enumerate(sets.candidates)}
    utterances = []
    for position, turn in enumerate(record.turns):
        if turn.role == "seeker":
            utterances.append(Utterance("seeker", turn.text, accepted=turn.accepted))
            continue
        recommended = index.get(turn.recommended_item) if turn.recommended_item else None
        decision: Decision | None = "recommend" if recommended is not None else "speak"
        utterances.append(Utterance("recommender", turn.text, None if position < record.scripted_turns else decision,
                                    recommended))
    return Game(
        record.id,
        tuple(sets.seeker_items),
        tuple(sets.candidates),
        sets.correct_index,
        tuple(sets.points),
        tuple(utterances),
    )


def parlai_game(dialogue: Dialogue, catalog: dict[str, Item]) -> tuple[Game | None, str | None]:
    """A human GoRecDial episode, or the reason it cannot be one."""
    sets = {line.split(":")[0].strip(): MID.findall(line) for line in dialogue.meta.get("context", [])}
    seeker_ids, candidate_ids = sets.get("seeker movies", []), sets.get("expert movies", [])
    if len(candidate_ids) != CANDIDATES:
        return None, f"not {CANDIDATES} expert movies"
    missing = [i for i in seeker_ids + candidate_ids if i not in catalog]
    if missing:
        return None, "movie not in MovieLens"
    correct = _correct_candidate(dialogue, candidate_ids)
    if correct is None:
        return None, "no correct candidate"
    titles = {i: catalog[i].display for i in seeker_ids + candidate_ids}
    utterances = []
    for turn in dialogue.turns:
        text = MID.sub(lambda m: titles.get(m.group(1), m.group(0)), turn.text)
        if turn.role == "seeker":
            utterances.append(Utterance("seeker", text))
            continue
        named = [candidate_ids.index(i) for i in turn.items if i in candidate_ids]
        decision: Decision = "recommend" if named else "speak"
        utterances.append(Utterance("recommender", text, decision, named[0] if named else None))
    points = tuple(1.0 if i == correct else 0.0 for i in range(len(candidate_ids)))
    game = Game(
        dialogue.id,
        tuple(catalog[i] for i in seeker_ids),
        tuple(catalog[i] for i in candidate_ids),
        correct,
        points,
        tuple(utterances),
    )
    return game, None


def _correct_candidate(dialogue: Dialogue, candidates: list[str]) -> int | None:
    for turn in dialogue.turns:
        for key in CORRECT_FIELDS:
            found = MID.findall(turn.meta.get(key, "")) or [turn.meta.get(key, "")]
            if found[0] in candidates:
                return candidates.index(found[0])
    last = dialogue.turns[-1] if dialogue.turns else None
    if last is None or _reward(last.meta.get("reward")) <= 0:
        return None
    recommended = [i for turn in dialogue.turns if turn.role == "recommender" for i in turn.items if i in candidates]
    return candidates.index(recommended[-1]) if recommended else None


def _reward(value: str | None) -> float:
    try:
        return float(value) if value is not None else 0.0
    except ValueError:
        return 0.0


def load_games(
    spec: DatasetSpec, catalog: Callable[[], dict[str, Item]],
    redial: Callable[[Iterable[Dialogue], Counter], list[Game]] | None = None,
) -> GameSet:
    """Every game of the spec's paths; `catalog` (MovieLens) is only loaded for human data; `redial` turns
    ReDial dialogues into games (.human_games), counting the others."""
    games: list[Game] = []
    skipped: Counter = Counter()
    digest = hashlib.sha256()
    for path in spec.paths:
        file = dialogues_file(path)
        digest.update(file_digest(file).encode())
        name = spec.format or detect_format(file)
        if name == "synth":
            for record in load_records(path):
                game = record_game(record)
                if record.outcome.ended_by == "wrong_acceptance":  # the seeker took a wrong movie: no lesson
                    skipped["ended at a wrong acceptance"] += 1
                elif game is None:
                    skipped["not a GoRecDial game"] += 1
                else:
                    games.append(game)
        elif name == "gorecdial":
            items = catalog()
            for dialogue in load_dialogues(file, name):
                game, reason = parlai_game(dialogue, items)
                if game is None:
                    skipped[reason or "unknown"] += 1
                else:
                    games.append(game)
        elif name == "redial" and redial is not None:
            games += redial(load_dialogues(file, name), skipped)
        else:
            raise SynthError(f"'{spec.label}': {file} is {name} data; the GoRecDial suite reads GoRecDial games "
                             "(a `synth generate --mode gorecdial` run, GoRecDial in ParlAI format, or ReDial "
                             "dialogues as redial-games)")
    if not games:
        raise SynthError(f"'{spec.label}' has no GoRecDial games ({dict(skipped) or 'empty'})")
    return GameSet(spec.label, games, digest.hexdigest(), skipped)


def folds(games: Sequence[Game], k: int, seed: int) -> list[tuple[list[Game], list[Game]]]:
    """k (train, held-out) splits of a seeded shuffle: every game is held out exactly once."""
    if len(games) < k:
        raise SynthError(f"{len(games)} games cannot be split into {k} folds")
    order = list(games)
    random.Random(seed).shuffle(order)
    parts = [order[i::k] for i in range(k)]
    return [([g for j, p in enumerate(parts) if j != i for g in p], parts[i]) for i in range(k)]


def game_key(game: Game) -> tuple[str, tuple[str, ...], int]:
    """What makes two loaded games the same game: its id, its candidates and the correct one."""
    return game.id, tuple(item.id for item in game.candidates), game.correct


def held_out_splits(train: Sequence[Game], test: Sequence[Game], k: int,
                    seed: int) -> list[tuple[list[Game], list[Game]]]:
    """(train, held-out) splits that never score a game the expert trained on. A test set that shares no game
    with the training set is one split; otherwise the test games are split into k folds and each fold's
    training is the training set without the test games, plus the other folds' games the training set holds
    (a training set that is the test set gives plain k-fold cross-validation; `both=human+generated` scored
    on the human games trains each fold on every generated game and four fifths of the human ones)."""
    test_keys = {game_key(g) for g in test}
    train_keys = {game_key(g) for g in train}
    if not test_keys & train_keys:
        return [(list(train), list(test))]
    rest = [g for g in train if game_key(g) not in test_keys]
    return [(rest + [g for g in others if game_key(g) in train_keys], held)
            for others, held in folds(test, k, seed)]

