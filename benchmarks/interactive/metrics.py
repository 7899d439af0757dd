"""The scores of one CRS over its conversations: success and Recall@k after each turn (the target in the top
k of any CRS turn so far; mentioned items never count), success at the first recommendation against later
ones, turns to success, the leak rate, and bootstrap intervals over the cases."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from statistics import fmean

from synth.analysis.intervals import apart, mean_interval
from synth.benchmarks.interactive.conversation import Conversation

CUTS = (1, 10, 50)


def hit_by(conversation: Conversation, k: int, turn: int) -> bool:
    """Whether the target was in the top `k` of a ranking of the first `turn` CRS turns (or recommended)."""
    if conversation.success_turn is not None and conversation.success_turn <= turn:
        return True
    return any(rank is not None and rank <= k for rank in conversation.ranks[:turn])


def first_recommendation(conversation: Conversation) -> int | None:
    return next((i + 1 for i, item in enumerate(conversation.recommended) if item is not None), None)


def with_interval(values: Sequence[float], seed: int) -> dict[str, object]:
    """The mean of `values` and its 95% bootstrap interval ([0, 0] for no values)."""
    return {"mean": round(fmean(values), 4) if values else 0.0, "ci95": mean_interval(values, seed) or [0.0, 0.0]}


def scores(conversations: Sequence[Conversation], turns: int, seed: int = 0) -> dict[str, object]:
    """Every figure of one CRS; a conversation that ended on an error counts as a failure."""
    def values(measure: Callable[[Conversation], object]) -> list[float]:
        return [float(bool(measure(c))) for c in conversations]

    def share(measure: Callable[[Conversation], object]) -> float:
        return round(fmean(values(measure)), 4) if conversations else 0.0

    firsts = {c.case: first_recommendation(c) for c in conversations}
    successes = [c.success_turn for c in conversations if c.success_turn is not None]
    seeker_messages = sum(len(c.ranks) + 1 for c in conversations)
    return {
        "conversations": len(conversations),
        "success": with_interval(values(lambda c: c.success_turn is not None), seed),
        "success_by_turn": [share(lambda c, t=t: c.success_turn is not None and c.success_turn <= t)
                            for t in range(1, turns + 1)],
        **{f"recall@{k}": with_interval(values(lambda c, k=k: hit_by(c, k, turns)), seed) for k in CUTS},
        "recall_by_turn": {f"recall@{k}": [share(lambda c, k=k, t=t: hit_by(c, k, t)) for t in range(1, turns + 1)]
                           for k in CUTS},
        "success_at_first_recommendation":
            share(lambda c: c.success_turn is not None and c.success_turn == firsts[c.case]),
        "success_later": share(lambda c: c.success_turn is not None and c.success_turn > (firsts[c.case] or 0)
                               and c.success_turn != firsts[c.case]),
        "turns_to_success": round(fmean(successes), 2) if successes else None,
        "leak_rate": round(sum(c.leaks for c in conversations) / max(seeker_messages, 1), 4),
        "leaks_reaching_crs": sum(c.leaks_to_crs for c in conversations),
        "turns_without_item": sum(c.no_item_turns for c in conversations),
        "errors": sum(c.error is not None for c in conversations),
        **preference_coverage(conversations),
        "seconds_per_conversation": round(fmean(c.seconds for c in conversations), 2) if conversations else 0.0,
    }


def preference_coverage(conversations: Sequence[Conversation]) -> dict[str, object]:
    """Target-free mode (PEPPER): the mean share of each seeker's held-out movies that a ranking reached within
    its top k (k = 10, 50) or that the CRS recommended; nothing in target mode."""
    held = [c for c in conversations if c.goal_ranks]
    if not held:
        return {}

    def share(c: Conversation, reached: Callable[[list[int | None]], bool]) -> float:
        return sum(reached(ranks) for ranks in c.goal_ranks.values()) / len(c.goal_ranks)

    figures: dict[str, object] = {
        f"preference_coverage@{k}": round(fmean(share(c, lambda r, k=k: any(x is not None and x <= k for x in r))
                                                for c in held), 4) for k in (10, 50)
    }
    figures["preference_coverage_recommended"] = round(fmean(
        sum(goal in c.recommended for goal in c.goal_ranks) / len(c.goal_ranks) for c in held), 4)
    return figures


def separated(a: dict[str, object], b: dict[str, object], metric: str = "recall@10") -> bool:
    """Whether two CRSs' 95% intervals of `metric` do not overlap."""
    return apart(a[metric]["ci95"], b[metric]["ci95"])  # type: ignore[index]
