"""What a PEARL seeker is told of the movie it secretly hopes for: its genres, its era and a few words of mood
its own review (or tags) uses, never the title and never the review's phrases, so that the seeker hints at the
movie in its own words instead of reciting the set pieces that would give it away (PEPPER's critique of
target-aware simulators). The reply checks still compare the seeker's words with the whole review
(synth.analysis.defects.state.recites_target)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from synth.analysis.defects import target_draw
from synth.records import Item, Review

MOODS = 3  # mood words shown at most
# Words for the mood and kind of a movie, which a seeker may say without giving its target away; set pieces of
# the review ("the gentle giant reading to his grandson") would, so nothing else of the review is shown.
MOOD_WORDS = frozenset(
    "absorbing absurd action-packed adorable ambitious atmospheric beautiful bittersweet bizarre bleak breathtaking "
    "breezy brilliant brutal campy cerebral charming cheerful cheesy chilling claustrophobic clever colorful comforting "
    "complex confusing cozy creepy cynical dark delightful disturbing dreamy eerie elegant emotional energetic engaging "
    "entertaining epic exciting exhilarating fast-paced feel-good fierce frightening fun funny gentle goofy gorgeous "
    "gory gripping grim gritty harrowing haunting heartbreaking heartfelt heartwarming hilarious honest hopeful "
    "imaginative innocent inspiring intelligent intense intimate inventive joyful lean lighthearted lively lovely "
    "magical majestic meditative melancholic melancholy mesmerizing messy moody moving mysterious nostalgic odd "
    "offbeat old-fashioned optimistic original over-the-top philosophical playful poetic poignant powerful quiet "
    "quirky raw realistic relentless romantic sad satirical scary sentimental serious silly slow smart sombre somber "
    "spectacular stark strange striking stunning stylish subtle surreal suspenseful sweeping sweet taut tender tense "
    "terrifying thoughtful thrilling touching tragic twisty uncomfortable understated unsettling uplifting violent "
    "visceral warm weird whimsical wholesome wistful witty".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")


@dataclass(frozen=True)
class TargetHints:
    """The seeker's view of its hidden target."""

    genres: str  # "comedy, romance"
    era: str  # "from the 1990s"
    moods: tuple[str, ...]  # mood words of its own review or tags: "tense", "witty"
    several: bool = False  # any of a few movies will do, the hints being what they share (synth evaluate, target-free)


def era_of(year: int | None) -> str:
    """'from the 1990s' (or 'a recent one', for the last few years); '' when the year is unknown."""
    if year is None:
        return ""
    return "a recent one" if year >= 2015 else f"from the {year // 10 * 10}s"


def mood_words(text: str, leave_out: set[str], limit: int = MOODS) -> tuple[str, ...]:
    """Up to `limit` of the MOOD_WORDS `text` uses (none of `leave_out`), in its order, each once."""
    words = (w.lower().replace("’", "'") for w in _WORD.findall(text))
    return tuple(dict.fromkeys(w for w in words if w in MOOD_WORDS and w not in leave_out))[:limit]


def target_hints(review: Review, item: Item) -> TargetHints:
    """Genres, era and moods of the target: moods from the user's review, else its tags and the item's
    description (ratings-only personas), the title's words left out."""
    leave_out = {w.lower() for w in re.findall(r"[A-Za-z'-]+", item.title)}
    source = review.text or (", ".join(review.tags) if review.tags else target_draw(review, item))
    return TargetHints(
        genres=", ".join(g.lower() for g in item.genres) or "any genre",
        era=era_of(item.year),
        moods=mood_words(source, leave_out),
    )
