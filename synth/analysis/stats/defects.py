"""Utterance defects in `synth stats`: the rate of each reply detector of synth.analysis.defects over a
dataset's utterances (definitions: docs/statistics.md#utterance-defects), read in one more pass after the
statistics, with string operations only.

A synth run's utterances are checked as its turn loop checked them: against the persona's reviews, the hidden
target, the items shown (from the run folder's items.jsonl, else the items each record names itself) and the
prompts' shipped examples, its scripted opening left out. Any other dataset's utterances, counted in `unit`
(ReDial's "@123" mentions read as titles, as the other statistics read them), are checked against the
dialogue's own words only: its persona and item measures count nothing (`of` 0)."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from synth.analysis.defects import Spoken, defect_rates, dialogue_utterances, record_utterances
from synth.analysis.stats.corpus import Corpus, Pair, utterance_text
from synth.data.dialogues import Dialogue, Unit, in_unit
from synth.prompting import shipped_example_replies
from synth.records import Item
from synth.runs.layout import dialogues_file
from synth.runs.records import items_beside


class DefectRate(BaseModel):
    hits: int
    of: int  # the utterances (dialogues, rejections) the measure applies to
    rate: float | None  # hits / of; None when nothing applies (a human set's persona measures)


def measure_defects(corpus: Corpus, unit: Unit = "turn") -> dict[str, DefectRate]:
    """Every measure of synth.analysis.defects.DEFECTS over the corpus (its sample, when it has one), by name."""
    catalog, examples = run_catalog(corpus), shipped_example_replies()
    rates = defect_rates(_utterances(pair, catalog, examples, unit) for pair in corpus)
    return {name: DefectRate(hits=found.hits, of=found.of, rate=found.rate) for name, found in rates.items()}


def run_catalog(corpus: Corpus) -> dict[str, Item]:
    """The items of a synth run's folder (its items.jsonl); {} for another dataset or a folder without one."""
    if corpus.format != "synth" or not corpus.path.exists():
        return {}
    file = dialogues_file(corpus.path)
    return items_beside(file) or {}


def _utterances(pair: Pair, catalog: Mapping[str, Item], examples: tuple[str, ...], unit: Unit) -> list[Spoken]:
    dialogue, record = pair
    if record is not None:
        return record_utterances(record, catalog, examples=examples)
    return dialogue_utterances(_readable(in_unit(dialogue, unit)))


def _readable(dialogue: Dialogue) -> Dialogue:
    """The dialogue with its item mentions read as titles."""
    if not dialogue.items or not any("@" in turn.text for turn in dialogue.turns):
        return dialogue
    turns = [turn.model_copy(update={"text": utterance_text(dialogue, turn)}) for turn in dialogue.turns]
    return dialogue.model_copy(update={"turns": turns})
