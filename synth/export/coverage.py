"""How completely an export tagged the titles in its text, counted against synth's own title spotter."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from synth.data.mentions import Mention
from synth.filters.titles import TitleSpotter
from synth.records import Item
from synth.short_titles import ShortTitleRule


@dataclass
class MentionCoverage:
    """Of the titles synth's title spotter finds in the text (synth.filters.titles: any case, punctuation,
    article or year, small misspellings), how many an export tagged; and the dialogues that name no item at
    all (a failure for an export, never a pass). `short_titles`: the run's domain's rule (synth.short_titles)."""

    short_titles: ShortTitleRule = "whole"
    spotted: int = 0
    tagged: int = 0
    dialogues: int = 0
    without_mentions: list[str] = field(default_factory=list)
    _spotters: dict[str, TitleSpotter] = field(default_factory=dict, repr=False)

    def add_utterance(self, text: str, items: Iterable[Item], mentions: Sequence[Mention]) -> None:
        """Count one utterance: the `items` synth's title spotter finds in `text` outside the tagged `mentions`
        (so "King Kong" inside a tagged "King Kong Lives" is not a second title), plus the tagged ones."""
        tagged = {mention.item for mention in mentions}
        rest, last = [], 0
        for mention in mentions:
            rest.append(text[last : mention.start])
            last = mention.end
        untagged = " | ".join([*rest, text[last:]])
        for item in items:
            spotter = self._spotters.get(item.id) or self._spotters.setdefault(
                item.id, TitleSpotter(item.display, short_titles=self.short_titles)
            )
            if item.id in tagged:
                self.spotted += 1
                self.tagged += 1
            elif spotter.find(untagged):
                self.spotted += 1

    def add_dialogue(self, dialogue_id: str, mentions: int) -> None:
        self.dialogues += 1
        if not mentions:
            self.without_mentions.append(dialogue_id)

    @property
    def share(self) -> float:
        """Tagged over spotted (1.0 when nothing was spotted)."""
        return self.tagged / self.spotted if self.spotted else 1.0

    def summary(self) -> str:
        line = f"{self.tagged} of {self.spotted} spotted titles tagged ({self.share:.1%})"
        if self.without_mentions:
            line += f"; {len(self.without_mentions)} of {self.dialogues} dialogues name no item"
        return line


def mention_facts(coverage: MentionCoverage) -> dict[str, Any]:
    """The coverage as the export's marker and the CLI report it."""
    return {
        "spotted": coverage.spotted,
        "tagged": coverage.tagged,
        "share": round(coverage.share, 4),
        "dialogues_without_mentions": coverage.without_mentions,
        "summary": coverage.summary(),
    }
