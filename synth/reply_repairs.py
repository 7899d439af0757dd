"""The repairs of the last resort: a reply the re-samples did not mend, mended in place, each repair recorded in
the turn's `checks.repaired` instead of its defect."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

from synth.analysis.defects import Defect, naming_recommendation, without_other_role
from synth.records import Item, ReplyChecks
from synth.replies import RecommenderReply, SeekerReply
from synth.short_titles import ShortTitleRule

Reply = TypeVar("Reply", SeekerReply, RecommenderReply)


def named_recommendation(
    reply: RecommenderReply, candidates: Sequence[Item], short_titles: ShortTitleRule = "whole"
) -> RecommenderReply:
    """A reply recommending one of `candidates` whose words never name it (whole, or short under the domain's
    `short_titles` rule), repaired with its title in front (synth.analysis.defects.state.naming_recommendation);
    its checks record the repair instead of the defect."""
    title = next((item.display for item in candidates if item.id == reply.item_id), None)
    text = reply.utterance if title is None else naming_recommendation(reply.utterance, title, short_titles)
    if text == reply.utterance:
        return reply
    checks = reply.checks or ReplyChecks()
    checks = checks.model_copy(update={
        "kept_defects": [d for d in checks.kept_defects if not d.startswith("unnamed_recommendation")],
        "repaired": [*checks.repaired, f"unnamed_recommendation: put {title} before its words"],
    })
    return replace(reply, utterance=text, checks=checks)


def spoken_in_role(reply: Reply, role: str, inspect: Callable[[Reply], list[Defect]]) -> Reply:
    """A reply kept with speaks_as_other, repaired by dropping the sentences that speak as the other role
    (synth.analysis.defects.state.without_other_role), where what is left has fewer defects by `inspect`."""
    kept_defects = reply.checks.kept_defects if reply.checks else []
    if not any(d.startswith("speaks_as_other") for d in kept_defects):
        return reply
    text = without_other_role(reply.utterance, role)
    mended = replace(reply, utterance=text)
    left = inspect(mended)
    if text == reply.utterance or any(d.name == "speaks_as_other" for d in left) or len(left) >= len(kept_defects):
        return reply
    checks = (reply.checks or ReplyChecks()).model_copy(update={
        "kept_defects": [str(d) for d in left],
        "repaired": [*reply.checks.repaired, "speaks_as_other: dropped the sentences said as the other role"],
    })
    return replace(mended, checks=checks)
