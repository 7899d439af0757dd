"""The two rating protocols and what a rater judges in each: head to head (two dialogues side by side, a choice
per criterion, ties allowed) and defect marking (one dialogue, each turn marked with the audit's categories, the
dialogue judged sound or not); the criteria or categories come from a YAML file when given."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

import yaml

from synth.data.readers import read_lines
from synth.errors import InputError

Protocol = Literal["head-to-head", "defects"]
PROTOCOLS: tuple[Protocol, ...] = ("head-to-head", "defects")

# PEARL's head-to-head criteria (Kim et al., 2024): which dialogue does better
PEARL_CRITERIA = {
    "specific_preferences": "In which dialogue does the seeker state more specific preferences?",
    "expertise": "In which dialogue does the recommender show more expertise about the movies?",
    "relevance": "In which dialogue are the recommendations more relevant to what the seeker asked for?",
}
# what a reader marks, turn by turn (the categories of docs/measurements.md's blind audit)
CATEGORIES = {
    "unsaid_reference": "a reference to something never said",
    "other_role": "speaking as the other role",
    "unnamed_recommendation": "a recommendation that names nothing",
    "target_given_away": "the target given away",
    "question_asks_nothing": "a planned question that asks nothing",
    "early_goodbye": "thanks or goodbye before any recommendation",
    "false_fact": "a false fact about a real movie",
    "wrong_acceptance": "a wrong acceptance (said or decided)",
    "out_of_place": "anything else out of place (non-sequiturs, garbled or cut text, questions ignored)",
}
DEFAULT_CRITERIA: dict[Protocol, dict[str, str]] = {"head-to-head": PEARL_CRITERIA, "defects": CATEGORIES}
_NAME = re.compile(r"[a-z0-9_]+")


def read_criteria(path: Path) -> dict[str, str]:
    """Criteria (or defect categories) from a YAML file: a mapping of short names (lower case, digits, '_') to
    the question or description the rater reads."""
    try:
        value = yaml.safe_load("\n".join(line for _, line in read_lines(path)))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError(path, f"not valid YAML ({getattr(exc, 'problem', None) or exc})",
                         line=mark.line + 1 if mark else None) from None
    if not isinstance(value, dict) or not value:
        raise InputError(path, "expected a mapping of criterion names to questions, e.g. 'expertise: Which ...?'")
    for name, question in value.items():
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise InputError(path, "a criterion's name is lower-case letters, digits and '_'", field=str(name))
        if not isinstance(question, str) or not question.strip():
            raise InputError(path, "expected the question the rater reads", field=name)
    return {name: question.strip() for name, question in value.items()}
