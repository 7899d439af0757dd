"""Replies a reader would not believe: the detectors (used by the turn loop to re-sample a reply, by the
`quality` filter and by `synth stats`), the contexts they read, and their rates over a set of dialogues."""

from synth.analysis.defects.detectors import Defect, ReplyContext, avoid_line, check_reply
from synth.analysis.defects.rates import DEFECTS, Rate, defect_rates
from synth.analysis.defects.views import (
           Spoken,
           dialogue_utterances,
           next_history,
           record_utterances,
           split_opinion,
           taste,
)

__all__ = ["DEFECTS", "Defect", "Rate", "ReplyContext", "Spoken", "avoid_line", "check_reply", "defect_rates",
           "dialogue_utterances", "next_history", "record_utterances", "split_opinion", "taste"]
