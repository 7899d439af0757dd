"""IARD's two taxonomies (Cai & Chen, UMAP 2020): 15 seeker intents and 9 recommender actions, each
under a top-level one, plus OTH (greetings, thanks, chit-chat). Codes are those of the data file."""

from __future__ import annotations

from typing import Literal

Role = Literal["seeker", "recommender"]
ROLES: tuple[Role, ...] = ("seeker", "recommender")
OTHER = "OTH"

# sub code -> (name, top-level code)
SEEKER_INTENTS: dict[str, tuple[str, str]] = {
    "IQU": ("Initial Query", "AskForRec"),
    "CON": ("Continue", "AskForRec"),
    "REF": ("Reformulate", "AskForRec"),
    "STO": ("Start Over", "AskForRec"),
    "PRO": ("Provide Preference", "AddDetails"),
    "ANS": ("Answer", "AddDetails"),
    "ASK": ("Ask Opinion", "AddDetails"),
    "SEE": ("Seen", "GiveFeedback"),
    "ACC": ("Accept", "GiveFeedback"),
    "REJ": ("Reject", "GiveFeedback"),
    "INQ": ("Inquire", "GiveFeedback"),
    "CRI-F": ("Critique-Feature", "GiveFeedback"),
    "CRI-A": ("Critique-Add", "GiveFeedback"),
    "NRE": ("Neutral Response", "GiveFeedback"),
    "CRI-C": ("Critique-Compare", "GiveFeedback"),
    OTHER: ("Others", OTHER),
}
RECOMMENDER_ACTIONS: dict[str, tuple[str, str]] = {
    "REQ": ("Request Information", "Request"),
    "CLQ": ("Clarify Question", "Request"),
    "RESP": ("Respond-Feedback", "Respond"),
    "R-ANS": ("Answer", "Respond"),
    "REC-S": ("Recommend-Show", "Recommend"),
    "REC-E": ("Recommend-Explore", "Recommend"),
    "EXP-I": ("Explain-Introduction", "Explain"),
    "EXP-P": ("Explain-Preference", "Explain"),
    "EXP-S": ("Explain-Suggestion", "Explain"),
    OTHER: ("Others", OTHER),
}
TAXONOMY: dict[Role, dict[str, tuple[str, str]]] = {"seeker": SEEKER_INTENTS, "recommender": RECOMMENDER_ACTIONS}


def sub_labels(role: Role) -> list[str]:
    """The sub-level codes of a role, in the taxonomy's order."""
    return list(TAXONOMY[role])


def top_labels(role: Role) -> list[str]:
    """The top-level codes of a role, in the taxonomy's order."""
    return list(dict.fromkeys(top for _, top in TAXONOMY[role].values()))


def top_of(role: Role, subs: list[str]) -> list[str]:
    """The top-level codes that a set of sub-level codes falls under, in the taxonomy's order."""
    wanted = {TAXONOMY[role][code][1] for code in subs}
    return [top for top in top_labels(role) if top in wanted]
