"""What a PEARL seeker is told of the movie it secretly hopes for: its genres, its era and a few themes taken
from its own review (or tags), never the title and never the review itself, so that the seeker hints at the
movie in its own words instead of reciting the review that would give it away (PEPPER's critique of
target-aware simulators). The reply checks still compare the seeker's words with the whole review
(synth.analysis.defects.state.recites_target)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from synth.analysis.defects import target_draw
from synth.records import Item, Review

THEMES = 3  # phrases of the review shown as themes
THEME_WORDS = 3  # words a theme phrase keeps at most
# Words that end a theme phrase: function words, and words about any movie rather than this one.
_BREAKS = frozenset(
    "a about after again all also am an and any are as at be because been before being but by can could did do does "
    "doing don't down even ever every for from get gets got had has have he her here him his how i i'd i'm i've if "
    "in into is isn't it it's its itself just let like made make makes me more most much my never no not now of off "
    "on once one only or other our out over own really same she should so some such than that that's the their them "
    "then there these they this those though through to too under until up us very was wasn't way we were what when "
    "where which while who why will with would you your you're film films movie movies watch watched watching "
    "seen see saw thing things lot bit kind sort still yet quite rather pretty enough best better good great whole "
    "tonight time times year years part parts something anything everything nothing review tagged love loved liked "
    "enjoy enjoyed perfect point gives give gave feel felt find found think thought want wanted keep keeps kept "
    "left leaves".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*|[.,;:!?()\"]")


@dataclass(frozen=True)
class TargetHints:
    """The seeker's view of its hidden target."""

    genres: str  # "comedy, romance"
    era: str  # "from the 1990s"
    themes: tuple[str, ...]  # short phrases of its own review or tags


def era_of(year: int | None) -> str:
    """'from the 1990s' (or 'a recent one', for the last few years); '' when the year is unknown."""
    if year is None:
        return ""
    return "a recent one" if year >= 2015 else f"from the {year // 10 * 10}s"


def theme_phrases(text: str, leave_out: set[str], limit: int = THEMES) -> tuple[str, ...]:
    """Up to `limit` phrases of content words (runs between function words and punctuation, at most
    THEME_WORDS words each, none of `leave_out`), in the order the text has them, each once."""
    phrases: list[str] = []
    run: list[str] = []
    for token in [*_WORD.findall(text), "."]:
        word = token.lower().replace("’", "'")
        if word in _BREAKS or word in leave_out or not word[0].isalpha():
            if run:
                phrases.append(" ".join(run[:THEME_WORDS]))
            run = []
            continue
        run.append(word)
    return tuple(dict.fromkeys(p for p in phrases if len(p) > 3))[:limit]


def target_hints(review: Review, item: Item) -> TargetHints:
    """Genres, era and themes of the target: themes from the user's review, else its tags and the item's
    description (ratings-only personas), the title's and the genres' words left out."""
    leave_out = {w.lower() for w in re.findall(r"[A-Za-z']+", item.title)} | {g.lower() for g in item.genres}
    source = review.text or (", ".join(review.tags) if review.tags else target_draw(review, item))
    return TargetHints(
        genres=", ".join(g.lower() for g in item.genres) or "any genre",
        era=era_of(item.year),
        themes=theme_phrases(source, leave_out),
    )

