"""The act model: both taggers and the satisfaction predictor, trained on IARD with dialogue-grouped
cross-validation, saved with its scores, and reused by `synth stats --acts` and `synth filter`."""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from synth.analysis.acts.evaluation import RoleEvaluation, dialogue_folds, evaluate_role, out_of_fold
from synth.analysis.acts.features import Encoder, utterance_features
from synth.analysis.acts.satisfaction import SatisfactionModel, fit_satisfaction, satisfaction_features
from synth.analysis.acts.tagger import RoleTagger, fit_tagger
from synth.analysis.acts.taxonomy import ROLES, Role
from synth.analysis.acts.utterances import Utterance, all_utterances, dialogue_utterances
from synth.data.dialogues import Dialogue
from synth.data.iard import load_iard
from synth.data.paths import data_dir, shared_data_root
from synth.errors import SynthError
from synth.llm.gguf_models import cache_dir
from synth.progress import progress_bar

log = logging.getLogger(__name__)
MODEL_FILE = "act_model.joblib"
EVALUATION_FILE = "evaluation.json"
FORMAT = 1
IARD_FILE = "iard/umap2020_IARD_Cai.json"
BENCH_EXTRA_HINT = "dialogue acts need the 'bench' and 'dense' extras: pip install 'synth-crs[bench,dense]'"


def default_model_dir() -> Path:
    """Where the trained act model is kept: $SYNTH_CACHE_DIR/acts, else ~/.cache/synth/acts."""
    return cache_dir().parent / "acts"


def default_iard_path() -> Path:
    """IARD fetched into the data cache (`synth data fetch iard`), else in the shared data folder."""
    fetched = data_dir() / "iard" / Path(IARD_FILE).name
    return fetched if fetched.exists() else shared_data_root() / IARD_FILE


class SatisfactionEvaluation(BaseModel):
    dialogues: int
    satisfied: int
    folds: int
    roc_auc: float
    accuracy: float  # at score 0.5
    balanced_accuracy: float
    majority_accuracy: float  # always "satisfied"


class ActEvaluation(BaseModel):
    """Cross-validated scores of the act model, and what it was trained on."""

    iard: str
    iard_sha256: str
    embedding_model: str
    folds: int
    seed: int
    seeker: RoleEvaluation
    recommender: RoleEvaluation
    satisfaction: SatisfactionEvaluation
    seconds: float


@dataclass
class TaggedUtterance:
    role: Role
    text: str
    acts: list[str]  # sub-level codes
    probabilities: np.ndarray  # over the role's sub-level codes, in taxonomy order


@dataclass
class TaggedDialogue:
    id: str
    utterances: list[TaggedUtterance]
    satisfaction: float  # P(the seeker ends satisfied)


@dataclass
class ActModel:
    embedding_model: str
    taggers: dict[Role, RoleTagger]
    satisfaction: SatisfactionModel
    evaluation: ActEvaluation

    def tag(self, dialogues: Sequence[Dialogue], encoder: Encoder) -> list[TaggedDialogue]:
        """Every utterance's acts and every dialogue's satisfaction score."""
        per_dialogue = [dialogue_utterances(d) for d in dialogues]
        flat = [u for found in per_dialogue for u in found]
        probabilities = self._probabilities(flat, utterance_features(flat, encoder))
        tagged, start = [], 0
        for dialogue, found in zip(dialogues, per_dialogue):
            rows = probabilities[start : start + len(found)]
            start += len(found)
            utterances = [
                TaggedUtterance(u.role, u.text, self.taggers[u.role].decide(p[None])[0], p) for u, p in zip(found, rows)
            ]
            features = satisfaction_features([(u.role, u.probabilities) for u in utterances])
            tagged.append(TaggedDialogue(dialogue.id, utterances, float(self.satisfaction.scores(features[None])[0])))
        return tagged

    def _probabilities(self, utterances: Sequence[Utterance], features: np.ndarray) -> list[np.ndarray]:
        rows: list[np.ndarray] = [np.zeros(0)] * len(utterances)
        for role in ROLES:
            index = [i for i, u in enumerate(utterances) if u.role == role]
            for i, row in zip(index, self.taggers[role].probabilities(features[index])):
                rows[i] = row
        return rows

    def save(self, folder: Path) -> Path:
        """Write the model and its evaluation into `folder`; returns the model file."""
        import joblib
        import sklearn

        folder.mkdir(parents=True, exist_ok=True)
        path = folder / MODEL_FILE
        state = {"format": FORMAT, "sklearn": sklearn.__version__, "model": self}
        joblib.dump(state, path.with_suffix(".part"))
        path.with_suffix(".part").replace(path)
        (folder / EVALUATION_FILE).write_text(self.evaluation.model_dump_json(indent=2) + "\n")
        return path


def load_act_model(folder: Path) -> ActModel | None:
    """The model saved in `folder` (one you trained: the file is a pickle), or None when there is none."""
    path = folder / MODEL_FILE
    if not path.exists():
        return None
    try:
        import joblib
        import sklearn
    except ImportError:
        raise SynthError(BENCH_EXTRA_HINT) from None
    state = joblib.load(path)
    if not isinstance(state, dict) or state.get("format") != FORMAT or state.get("sklearn") != sklearn.__version__:
        log.warning("%s was saved by another synth or scikit-learn version: training it again", path)
        return None
    return state["model"]


def train_act_model(iard: Path, encoder: Encoder, *, folds: int = 5, seed: int = 0, progress: bool = False) -> ActModel:
    """Cross-validate, then train on all of IARD. The satisfaction predictor learns from out-of-fold act
    probabilities, so it sees taggers as noisy as on dialogues they never saw. With `progress`, a bar counts
    the models fitted (each fold's and the final one, per tagger and for the predictor), with an ETA."""
    started = time.perf_counter()
    dialogues = load_iard(iard)
    utterances = all_utterances(dialogues)
    with progress_bar(progress, "training the act models", eta=True, transient=True) as bar:
        task = bar.add_task("fits", total=(len(ROLES) + 1) * (folds + 1))
        features = utterance_features(utterances, encoder, cache=True)
        fold_of = dialogue_folds([u.dialogue for u in utterances], folds, seed)
        held_out: list[np.ndarray] = [np.zeros(0)] * len(utterances)
        taggers, evaluations = {}, {}
        for role in ROLES:
            index = np.array([i for i, u in enumerate(utterances) if u.role == role])
            labels = [utterances[i].labels for i in index]
            probabilities = out_of_fold(
                role, features[index], labels, fold_of[index], seed=seed, fitted=lambda: bar.advance(task)
            )
            for i, row in zip(index, probabilities):
                held_out[i] = row
            tagger = fit_tagger(role, features[index], labels, seed=seed)
            bar.advance(task)
            evaluations[role] = evaluate_role(
                role, labels, tagger.decide(probabilities), dialogues=len({utterances[i].dialogue for i in index}),
                folds=folds,
            )
            taggers[role] = tagger
        satisfaction, scores = _satisfaction(
            dialogues, utterances, held_out, fold_of, folds, seed, fitted=lambda: bar.advance(task)
        )
    evaluation = ActEvaluation(
        iard=iard.name,
        iard_sha256=hashlib.sha256(iard.read_bytes()).hexdigest(),
        embedding_model=encoder.name,
        folds=folds,
        seed=seed,
        seeker=evaluations["seeker"],
        recommender=evaluations["recommender"],
        satisfaction=scores,
        seconds=round(time.perf_counter() - started, 1),
    )
    return ActModel(encoder.name, taggers, satisfaction, evaluation)


def _satisfaction(
    dialogues: Sequence[Dialogue],
    utterances: Sequence[Utterance],
    held_out: Sequence[np.ndarray],
    fold_of: np.ndarray,
    folds: int,
    seed: int,
    fitted: Callable[[], object],
) -> tuple[SatisfactionModel, SatisfactionEvaluation]:
    """The satisfaction predictor, cross-validated on the taggers' dialogue folds, then fitted on all;
    `fitted` is called after each fit."""
    from sklearn.metrics import balanced_accuracy_score, roc_auc_score

    rows: dict[str, list[tuple[Role, np.ndarray]]] = {d.id: [] for d in dialogues}
    dialogue_fold: dict[str, int] = {}
    for u, p, fold in zip(utterances, held_out, fold_of):
        rows[u.dialogue].append((u.role, p))
        dialogue_fold[u.dialogue] = int(fold)
    ids = [d.id for d in dialogues if rows[d.id]]
    features = np.stack([satisfaction_features(rows[i]) for i in ids])
    satisfied = np.array([bool(d.meta.get("satisfied")) for d in dialogues if rows[d.id]])
    dialogue_folds_ = np.array([dialogue_fold[i] for i in ids])
    scores = np.zeros(len(ids))
    for fold in range(folds):
        held = dialogue_folds_ == fold
        scores[held] = fit_satisfaction(features[~held], satisfied[~held], seed=seed).scores(features[held])
        fitted()
    predicted = scores >= 0.5
    evaluation = SatisfactionEvaluation(
        dialogues=len(ids),
        satisfied=int(satisfied.sum()),
        folds=folds,
        roc_auc=float(roc_auc_score(satisfied, scores)),
        accuracy=float(np.mean(predicted == satisfied)),
        balanced_accuracy=float(balanced_accuracy_score(satisfied, predicted)),
        majority_accuracy=float(max(satisfied.mean(), 1 - satisfied.mean())),
    )
    model = fit_satisfaction(features, satisfied, seed=seed)
    fitted()
    return model, evaluation


def act_model(
    folder: Path | None = None, *, iard: Path | None = None, encoder: Encoder | None = None, retrain: bool = False
) -> tuple[ActModel, Encoder]:
    """The saved act model (trained on IARD and saved first, when there is none yet) and its encoder."""
    folder = folder or default_model_dir()
    model = None if retrain else load_act_model(folder)
    if model is not None and encoder is not None and model.embedding_model != encoder.name:
        log.warning("the act model in %s reads %s embeddings, not %s: training it again", folder, model.embedding_model, encoder.name)
        model = None
    if encoder is None:
        encoder = load_encoder(model.embedding_model if model is not None else None)
    if model is None:
        source = iard or default_iard_path()
        if not source.exists():
            raise SynthError(
                f"no act model in {folder} and no IARD data at {source}: run `synth data fetch iard`, or "
                "`synth acts train --iard PATH` with a copy of umap2020_IARD_Cai.json"
            )
        log.info("training the act model on %s (once; saved in %s)", source, folder)
        model = train_act_model(source, encoder)
        model.save(folder)
    return model, encoder


def load_encoder(name: str | None) -> Encoder:
    """The sentence encoder of the act features (all-MiniLM-L6-v2 unless named)."""
    try:
        import sklearn  # noqa: F401

        from synth.retrievers.embeddings import DEFAULT_EMBEDDING_MODEL, SentenceEncoder
    except ImportError:
        raise SynthError(BENCH_EXTRA_HINT) from None
    return SentenceEncoder(name or DEFAULT_EMBEDDING_MODEL)
