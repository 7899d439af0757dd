"""What `lm-crs` reads and writes, as token ids: the dialogue so far as a transcript of its latest utterances
that fit a token budget, framed by the model's chat template (or plain text when it has none), and the
recommender's turn as the target; every item mention is written "Title (Year)"."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from synth.benchmarks.crs.datasets import Utterance
from synth.errors import SynthError
from synth.records import Item

SYSTEM = ("You are the recommender in a conversation about movies. Write the recommender's next message; name "
          "each movie you mention as Title (Year).")
SPEAKERS = {"seeker": "Seeker", "recommender": "Recommender"}
RESPONSE_TOKENS = 64  # at most, and at most a quarter of the length budget
IGNORED = -100  # the label of a prompt token: no loss on it
RECOMMENDATION_LEAD = "I recommend"  # the slot a candidate's title is scored in, after the context


def with_years(text: str, items: Sequence[Item]) -> str:
    """`text` with the first bare mention of each item's title (no year after it) written "Title (Year)"."""
    for item in items:
        if item.year is None or item.display.lower() in text.lower():
            continue
        bare = re.compile(rf"(?<!\w){re.escape(item.title)}(?!\w)(?!\s*\(\d{{4}}\))", re.IGNORECASE)
        found = bare.search(text)
        if found:
            text = text[: found.start()] + item.display + text[found.end() :]
    return text


class PromptWriter:
    """Token ids of prompts and training examples for one tokenizer, item catalog and length budget."""

    def __init__(self, tokenizer: Any, items: dict[str, Item], max_length: int):
        self.tokenizer, self.items = tokenizer, items
        self.response_tokens = min(RESPONSE_TOKENS, max_length // 4)
        self.prompt_tokens = max_length - self.response_tokens
        self.chat = bool(tokenizer.chat_template)
        self.frame_tokens = len(self._frame(""))
        if self.frame_tokens >= self.prompt_tokens:
            raise SynthError(f"--lm-max-length {max_length} leaves no room for the dialogue: the prompt's frame "
                             f"alone takes {self.frame_tokens} tokens and the response {self.response_tokens}")

    def text(self, utterance: Utterance) -> str:
        return with_years(utterance.text, [self.items[i] for i in utterance.items])

    def prompt(self, context: Sequence[Utterance]) -> list[int]:
        """The framed transcript of the latest utterances that fit the prompt budget (the latest one cut from
        the left when it alone is too long)."""
        room = self.prompt_tokens - self.frame_tokens
        kept: list[list[int]] = []
        for utterance in reversed(context):
            ids = self._ids(f"{SPEAKERS[utterance.role]}: {self.text(utterance)}\n")
            if len(ids) > room:
                if not kept and room > 0:
                    kept.append(ids[-room:])
                break
            kept.append(ids)
            room -= len(ids)
        transcript = self.tokenizer.decode([token for ids in reversed(kept) for token in ids])
        return self._frame(transcript)[-self.prompt_tokens :]

    def recommendation_prompt(self, context: Sequence[Utterance]) -> list[int]:
        """The prompt followed by the start of a recommendation ("I recommend"): a candidate title's likelihood
        there is the model's belief that it is the one to suggest, not that the turn starts with its words."""
        lead = self._ids(RECOMMENDATION_LEAD if self.chat else f" {RECOMMENDATION_LEAD}")
        return self.prompt(context) + lead  # within the length budget: the lead and a title fit the response's room

    def title(self, item: Item) -> str:
        """An item as the model writes it after the recommendation lead: " Title (Year)"."""
        return f" {item.display}"

    def example(self, context: Sequence[Utterance], turn: Utterance) -> dict[str, list[int]]:
        """Input ids and labels of one training example: the loss falls on the turn's tokens alone."""
        prompt = self.prompt(context)
        lead = "" if self.chat else " "  # plain text: after "Recommender:"
        target = self._ids(lead + self.text(turn))[: self.response_tokens - 1] + [self.tokenizer.eos_token_id]
        return {"input_ids": prompt + target, "labels": [IGNORED] * len(prompt) + target}

    def item_example(self, context: Sequence[Utterance], item: Item) -> dict[str, list[int]]:
        """The recommendation objective: an item the recommender named, as " Title (Year)" after the context and
        "I recommend" (where recommendation scores its candidates); the loss falls on the title alone."""
        prompt = self.recommendation_prompt(context)
        title = self._ids(self.title(item))
        return {"input_ids": prompt + title, "labels": [IGNORED] * len(prompt) + title}

    def response(self, generated: str) -> str:
        """A generated turn as one line: without a leading "Recommender:", up to the next speaker's name,
        whitespace collapsed."""
        text = generated.strip().removeprefix(f"{SPEAKERS['recommender']}:")
        for speaker in SPEAKERS.values():
            text = text.split(f"\n{speaker}:")[0]
        return " ".join(text.split())

    def _frame(self, transcript: str) -> list[int]:
        if self.chat:
            messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": transcript}]
            text = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        else:
            text = f"{self.tokenizer.bos_token or ''}{SYSTEM}\n\n{transcript}Recommender:"
        return self._ids(text)

    def _ids(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]
