"""A dataset's act profile: how often each intent and action occurs, how many requests come before the
first recommendation, the most common openings and act trigrams, the predicted satisfaction, and the fidelity
to a reference dataset (synth.analysis.acts.fidelity).

The tagger reads chat messages, as IARD labels them; the counts are per turn by default: a speaker's
consecutive tagged messages become one turn that carries the union of their acts (ReDial and INSPIRED split a
turn over several messages; synth's speakers alternate, so its turns are its messages)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import groupby
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from synth.analysis.acts.features import Encoder
from synth.analysis.acts.fidelity import REQUEST_BINS, RESAMPLES, ActCounts, Fidelity, fidelity
from synth.analysis.acts.model import ActModel, TaggedDialogue, TaggedUtterance
from synth.analysis.acts.taxonomy import OTHER, ROLES, Role, sub_labels, top_labels, top_of
from synth.analysis.stats.corpus import Corpus
from synth.data.dialogues import Dialogue, Unit
from synth.iteration import chunks
from synth.tokens import words

BATCH = 256  # dialogues tagged together (a 50k-dialogue run is never embedded at once)
OPENING = 3  # recommender utterances in an opening
COMMON = 5  # sequences listed
REQUEST, RECOMMEND = "Request", "Recommend"


class ActProfile(BaseModel):
    name: str
    unit: Unit  # what an utterance is below: a speaker's turn (its messages' acts united) or a chat message
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
    fidelity: Fidelity | None = None  # against the reference dataset; None for the reference itself


def label_of(role: Role, acts: list[str]) -> str:
    """An utterance's top-level acts as one label, e.g. 'Recommend+Explain'; OTH (greetings, thanks,
    chit-chat) left out, so '' for an utterance that is only that."""
    return "+".join(top for top in top_of(role, acts) if top != OTHER)


def merge_tagged(utterances: Sequence[TaggedUtterance]) -> list[TaggedUtterance]:
    """Each run of consecutive utterances by one speaker as one turn: texts joined with a space, the union of
    their acts, and per act the highest of their probabilities."""
    merged = []
    for role, run in groupby(utterances, key=lambda u: u.role):
        run = list(run)
        if len(run) == 1:
            merged.extend(run)
            continue
        acts = list(dict.fromkeys(code for u in run for code in u.acts))
        text = " ".join(u.text for u in run)
        merged.append(TaggedUtterance(role, text, acts, np.max([u.probabilities for u in run], axis=0)))
    return merged


class _Tally:
    def __init__(self, unit: Unit = "turn") -> None:
        self.unit = unit
        self.index = {role: {code: i for i, code in enumerate(sub_labels(role))} for role in ROLES}
        self.acts: dict[Role, list[np.ndarray]] = {role: [] for role in ROLES}  # per dialogue, as in ActCounts
        self.utterances: dict[Role, list[int]] = {role: [] for role in ROLES}
        self.words: dict[Role, list[int]] = {role: [] for role in ROLES}
        self.requests: list[int] = []  # -1: no recommendation
        self.top: dict[str, Counter[str]] = {role: Counter() for role in ROLES}
        self.before: list[int] = []
        self.openings: Counter[str] = Counter()
        self.trigrams: Counter[str] = Counter()
        self.satisfaction: list[float] = []

    def add(self, dialogue: TaggedDialogue, skip: int = 0) -> None:
        """Count a dialogue's acts, leaving out its first `skip` messages (a scripted opening) before merging
        the rest into turns (unit 'turn'), so a turn that straddles the opening keeps only its own part."""
        utterances = dialogue.utterances[skip:]
        utterances = merge_tagged(utterances) if self.unit == "turn" else utterances
        self.satisfaction.append(dialogue.satisfaction)
        acts = {role: np.zeros(len(self.index[role]), dtype=np.int64) for role in ROLES}
        counted, said = Counter(), Counter()
        requests, first, opening, sequence = 0, None, [], []
        for position, utterance in enumerate(utterances):
            role, tops = utterance.role, top_of(utterance.role, utterance.acts)
            counted[role] += 1
            said[role] += len(words(utterance.text))
            acts[role][[self.index[role][code] for code in utterance.acts]] += 1
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
        for role in ROLES:
            self.acts[role].append(acts[role])
            self.utterances[role].append(counted[role])
            self.words[role].append(said[role])
        self.requests.append(-1 if first is None else requests)
        if first is not None:
            self.before.append(first)
        if opening:
            self.openings[" > ".join(opening)] += 1
        self.trigrams.update(" > ".join(sequence[i : i + 3]) for i in range(len(sequence) - 2))

    def counts(self, name: str) -> ActCounts:
        """The per-dialogue counts the fidelity resamples."""
        return ActCounts(
            name=name,
            unit=self.unit,
            acts={r: np.array(self.acts[r], dtype=np.int64).reshape(-1, len(self.index[r])) for r in ROLES},
            utterances={r: np.array(self.utterances[r], dtype=np.int64) for r in ROLES},
            words={r: np.array(self.words[r], dtype=np.int64) for r in ROLES},
            requests=np.array(self.requests, dtype=np.int64),
        )

    def profile(self, name: str) -> ActProfile:
        counts = self.counts(name)
        dialogues, said = counts.dialogues, {r: int(counts.utterances[r].sum()) for r in ROLES}

        def share(count: float, role: Role) -> float:
            return float(count / said[role]) if said[role] else 0.0

        requests = counts.requests[counts.requests >= 0]
        binned = counts.request_bins().sum(axis=0)
        trigrams = sum(self.trigrams.values())
        return ActProfile(
            name=name,
            unit=self.unit,
            dialogues=dialogues,
            utterances=said,
            sub={r: {c: share(n, r) for c, n in zip(sub_labels(r), counts.acts[r].sum(axis=0))} for r in ROLES},
            top={r: {c: share(self.top[r][c], r) for c in top_labels(r)} for r in ROLES},
            with_recommendation=len(requests) / dialogues if dialogues else 0.0,
            requests_before_recommendation=float(np.mean(requests)) if len(requests) else None,
            requests_before_recommendation_shares={
                b: float(n / len(requests)) if len(requests) else 0.0 for b, n in zip(REQUEST_BINS, binned)
            },
            utterances_before_recommendation=float(np.mean(self.before)) if self.before else None,
            openings=[(k, v / dialogues) for k, v in self.openings.most_common(COMMON)],
            trigrams=[(k, v / trigrams) for k, v in self.trigrams.most_common(COMMON)],
            satisfaction_mean=float(np.mean(self.satisfaction)) if self.satisfaction else None,
            satisfied_share=float(np.mean(np.array(self.satisfaction) >= 0.5)) if self.satisfaction else None,
        )


def act_counts(tagged: Iterable[tuple[TaggedDialogue, int]], *, name: str = "", unit: Unit = "turn") -> ActCounts:
    """The per-dialogue act counts of tagged dialogues (`ActModel.tag`), each given with the number of its
    scripted opening messages (`record.scripted_turns`; 0 for a human dialogue), which are not counted."""
    tally = _Tally(unit)
    for dialogue, skip in tagged:
        tally.add(dialogue, skip)
    return tally.counts(name)


def act_profile(
    name: str, dialogues: Iterable[tuple[Dialogue, int]], model: ActModel, encoder: Encoder, *, unit: Unit = "turn"
) -> tuple[ActProfile, ActCounts]:
    """Tag every dialogue's messages (in batches) and sum up its acts per `unit`; each dialogue comes with the
    number of its scripted opening messages, which give context to the tagger but are not counted. Returns the
    profile and the per-dialogue counts the fidelity is computed from."""
    tally = _Tally(unit)
    for batch in chunks(dialogues, BATCH):
        for tagged, (_, skip) in zip(model.tag([d for d, _ in batch], encoder), batch):
            tally.add(tagged, skip)
    return tally.profile(name), tally.counts(name)


def collect_acts(
    corpora: list[Corpus],
    *,
    model_dir: Path | None = None,
    unit: Unit = "turn",
    reference: int | None = 0,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> list[ActProfile]:
    """The act profile of every opened dataset (the statistics' corpora, so the same seeded sample). With
    `reference` (a position in `corpora`) and more than one dataset, every other profile gets its fidelity to
    that dataset's, with `resamples` seeded bootstrap resamples; None: no fidelity."""
    from synth.analysis.acts.model import act_model

    model, encoder = act_model(model_dir)
    found = [
        act_profile(corpus.name, ((d, r.scripted_turns if r is not None else 0) for d, r in corpus), model, encoder,
                    unit=unit)
        for corpus in corpora
    ]
    if reference is not None and len(found) > 1:
        for index, (profile, counts) in enumerate(found):
            if index != reference:
                profile.fidelity = fidelity(found[reference][1], counts, resamples=resamples, seed=seed)
    return [profile for profile, _ in found]
