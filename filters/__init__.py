"""Dialogue filters (basic, preference-based, and the opt-in satisfaction predictor), each drop with its
filter, reason and evidence.

Library use:

    from synth.filters import FilterConfig, filter_run
    report = asyncio.run(filter_run(Path("runs/demo"), Path("runs/demo-filtered"), FilterConfig(filters=["all"])))

or one dialogue at a time: `from_record(record, raw)` / `from_pearl(dialogue, raw)` gives the view that
every filter's `check(view) -> Verdict` reads (the satisfaction filter: `check_many(views)`)."""

from synth.filters.base import Filter, Verdict
from synth.filters.config import BASIC_FILTERS, GROUPS, MODEL_FILTERS, PREFERENCE_FILTERS, FilterConfig
from synth.filters.dialogue import FilterDialogue, from_pearl, from_record
from synth.filters.pipeline import filter_run

__all__ = [
    "BASIC_FILTERS", "GROUPS", "MODEL_FILTERS", "PREFERENCE_FILTERS", "Filter", "FilterConfig", "FilterDialogue", "Verdict",
    "filter_run", "from_pearl", "from_record",
]
