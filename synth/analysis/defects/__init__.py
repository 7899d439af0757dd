"""Replies a reader would not believe: the detectors (used by the turn loop to re-sample a reply, by the
`quality` filter and by `synth stats`), the contexts they read, and their rates over a set of dialogues."""

from synth.analysis.defects.checks import avoid_line, check_decision, check_reply
from synth.analysis.defects.detectors import Defect, ReplyContext
from synth.analysis.defects.rates import DEFECTS, STATE_DEFECTS, Rate, applies, defect_rates, dialogues_with_any
from synth.analysis.defects.state import naming_recommendation, without_other_role
from synth.analysis.defects.views import (
           Spoken,
           dialogue_items,
           dialogue_utterances,
           next_history,
           other_earlier,
           question_move,
           record_utterances,
           split_opinion,
           target_draw,
           taste,
)

__all__ = ["DEFECTS", "STATE_DEFECTS", "Defect", "Rate", "ReplyContext", "Spoken", "applies", "avoid_line", "check_decision", "check_reply",
           "defect_rates", "dialogue_items", "dialogue_utterances", "dialogues_with_any", "naming_recommendation", "next_history", "other_earlier",
           "question_move", "record_utterances", "split_opinion", "target_draw", "taste", "without_other_role"]
