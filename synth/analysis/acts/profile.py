"""A dataset's act profile: how often each intent and action occurs, how many requests come before the
first recommendation, the most common openings and act trigrams, and the predicted satisfaction."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from synth.analysis.acts.features import Encoder
from synth.analysis.acts.model import ActModel, TaggedDialogue
from synth.analysis.acts.taxonomy import OTHER, ROLES, Role, sub_labels, top_labels, top_of
from synth.analysis.stats.corpus import Corpus
from synth.data.dialogues import Dialogue
from synth.iteration import chunks

BATCH = 256  # dialogues tagged together (a 50k-dialogue run is never embedded at once)
OPENING = 3  # recommender utterances in an opening
COMMON = 5  # sequences listed
REQUEST, RECOMMEND = "Request", "Recommend"
REQUEST_BINS = ("0", "1", "2", "3+")


class ActProfile(BaseModel):
    name: str
    dialogues: int
    utterances: dict[str, int]  # per role
    sub: dict[str, dict[str, float]]  # role -> code -> share of the role's utterances with it
    top: dict[str, dict[str, float]]
    with_recommendation: float  # share of dialogues where the recommender recommends
    requests_before_recommendation: float | None  # mean, over dialogues with a recommendation
    requests_before_recommendation_shares: dict[str, float]  # "0", "1", "2", "3+"
    utterances_before_recommendation: float | None  # mean, over dialogues with a recommendation
    openings: list[tuple[str, float]]  # the recommender's first acts, e.g. "Request > Recommend+Explain"; share
    trigrams: list[tuple[str, float]]  # successive utterances' top-level acts, e.g. "S:AskForRec > R:Request > ..."
    # (sequences leave out OTH: greetings, thanks and chit-chat)
    satisfaction_mean: float | None
    satisfied_share: float | None  # dialogues scored 0.5 or more


def label_of(role: Role, acts: list[str]) -> str:
    """An utterance's top-level acts as one label, e.g. 'Recommend+Explain'; OTH (greetings, thanks,
    chit-chat) left out, so '' for an utterance that is only that."""
    return "+".join(top for top in top_of(role, acts) if top != OTHER)


class _Tally:
    def __init__(self) -> None:
        self.dialogues = 0
        self.utterances: Counter[str] = Counter()
        self.sub: dict[str, Counter[str]] = {role: Counter() for role in ROLES}
        self.top: dict[str, Counter[str]] = {role: Counter() for role in ROLES}
        self.requests: list[int] = []
        self.before: list[int] = []
        self.openings: Counter[str] = Counter()
        self.trigrams: Counter[str] = Counter()
        self.satisfaction: list[float] = []

    def add(self, dialogue: TaggedDialogue, skip: int = 0) -> None:
        """Count a dialogue's acts, leaving out its first `skip` utterances (a scripted opening)."""
        self.dialogues += 1
        self.satisfaction.append(dialogue.satisfaction)
        requests, first, opening, sequence = 0, None, [], []
        for position, utterance in enumerate(dialogue.utterances[skip:]):
            role, tops = utterance.role, top_of(utterance.role, utterance.acts)
            self.utterances[role] += 1
            self.sub[role].update(utterance.acts)
            self.top[role].update(tops)
            label = label_of(role, utterance.acts)
            if label:
                sequence.append(f"{role[0].upper()}:{label}")
            if role != "recommender":
                continue
            if label and len(opening) < OPENING:
                opening.append(label)
            if first is None and RECOMMEND in tops:
                first = position
            elif first is None and REQUEST in tops:
                requests += 1
        if first is not None:
            self.requests.append(requests)
            self.before.append(first)
        if opening:
            self.openings[" > ".join(opening)] += 1
        self.trigrams.update(" > ".join(sequence[i : i + 3]) for i in range(len(sequence) - 2))

    def profile(self, name: str) -> ActProfile:
        def shares(counts: Counter[str], codes: list[str], total: int) -> dict[str, float]:
            return {code: counts[code] / total if total else 0.0 for code in codes}

        binned = Counter(str(min(n, 3)) + ("+" if n >= 3 else "") for n in self.requests)
        trigrams = sum(self.trigrams.values())
        return ActProfile(
            name=name,
            dialogues=self.dialogues,
            utterances=dict(self.utterances),
            sub={r: shares(self.sub[r], sub_labels(r), self.utterances[r]) for r in ROLES},
            top={r: shares(self.top[r], top_labels(r), self.utterances[r]) for r in ROLES},
            with_recommendation=len(self.requests) / self.dialogues if self.dialogues else 0.0,
            requests_before_recommendation=float(np.mean(self.requests)) if self.requests else None,
            requests_before_recommendation_shares={
                b: binned[b] / len(self.requests) if self.requests else 0.0 for b in REQUEST_BINS
            },
            utterances_before_recommendation=float(np.mean(self.before)) if self.before else None,
            openings=[(k, v / self.dialogues) for k, v in self.openings.most_common(COMMON)],
            trigrams=[(k, v / trigrams) for k, v in self.trigrams.most_common(COMMON)],
            satisfaction_mean=float(np.mean(self.satisfaction)) if self.satisfaction else None,
            satisfied_share=float(np.mean(np.array(self.satisfaction) >= 0.5)) if self.satisfaction else None,
        )


def act_profile(name: str, dialogues: Iterable[tuple[Dialogue, int]], model: ActModel, encoder: Encoder) -> ActProfile:
    """Tag every dialogue (in batches) and sum up its acts; each dialogue comes with the number of its
    scripted opening utterances, which give context to the tagger but are not counted."""
    tally = _Tally()
    for batch in chunks(dialogues, BATCH):
        for tagged, (_, skip) in zip(model.tag([d for d, _ in batch], encoder), batch):
            tally.add(tagged, skip)
    return tally.profile(name)


def collect_acts(corpora: list[Corpus], *, model_dir: Path | None = None) -> list[ActProfile]:
    """The act profile of every opened dataset (the statistics' corpora, so the same seeded sample)."""
    from synth.analysis.acts.model import act_model

    model, encoder = act_model(model_dir)
    return [
        act_profile(corpus.name, ((d, r.scripted_turns if r is not None else 0) for d, r in corpus), model, encoder)
        for corpus in corpora
    ]
