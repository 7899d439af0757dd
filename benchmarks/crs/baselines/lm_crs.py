"""`lm-crs`, in the spirit of PECRS: one causal language model, fine-tuned (a LoRA adapter by default, or
every weight) on each recommender turn of the training dialogues and on each item those turns name (its title
after the context and "I recommend": the recommendation objective), writes the recommender's response and names
the item. The same model is a recommender and a responder. It ranks the items its response names first, in
their order, then by the model's log-likelihood of their " Title (Year)" after the context and "I recommend" the
union of two candidate sets: the dense retriever's top `CANDIDATES` for the context, and the model's own
`BEAM_WIDTH` likeliest titles of the whole catalog, found by a beam search over a prefix tree of every title (so a
title the model learned to suggest is ranked even where the retriever misses it); other items are not ranked.
`lm-crs-zero-shot` is the same model untrained."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from synth.benchmarks.crs import lm
from synth.benchmarks.crs.baselines.base import Setup, TrainingData, Untrained
from synth.benchmarks.crs.baselines.retrieval import DenseRecommender
from synth.benchmarks.crs.cases import RecommendationCase, ResponseCase
from synth.benchmarks.crs.datasets import Conversation, Utterance
from synth.benchmarks.crs.items import ItemSpace
from synth.benchmarks.crs.lm.inference import TitleTrie, best_titles, generate, read_prompt, title_log_likelihoods
from synth.benchmarks.crs.lm.model import load_lm, load_trained_weights, model_name, trained_weights, with_lora
from synth.benchmarks.crs.lm.prompts import PromptWriter
from synth.benchmarks.crs.lm.training import train
from synth.errors import SynthError
from synth.filters.titles import title_mentions
from synth.progress import track

CANDIDATES = 100  # items ranked by likelihood per context: the dense retriever's best
BEAM_WIDTH = 50  # and the model's likeliest titles of the whole catalog
RESPONSE_BATCH = 16
WEIGHTS_MODULES = ("model.py", "prompts.py", "training.py")  # the lm modules the fitted weights depend on


class LmCrs:
    name = "lm-crs"
    trains = True
    batch_size: int | None = None  # the whole sample in one call: contexts shared by cases are read once

    def __init__(self, setup: Setup):
        self.setup, self.settings = setup, setup.lm
        self.lm = load_lm(self.settings.model, progress=setup.progress)
        self.writer = PromptWriter(self.lm.tokenizer, setup.space.items, self.settings.max_length)
        self.training_record: dict[str, Any] | None = None
        self._responses: dict[tuple[Utterance, ...], str] = {}
        self._retriever: DenseRecommender | None = None
        self._title_ids: list[list[int]] | None = None
        self._trie: TitleTrie | None = None

    @property
    def lora(self) -> bool:
        return not self.settings.full_finetune

    def fit_settings(self) -> dict[str, Any]:
        """What the fitted weights depend on besides the data, the seed and the item space (in the cache key)."""
        settings = self.settings
        return {"model": model_name(settings.model), "steps": settings.steps, "batch_size": settings.batch_size,
                "max_length": settings.max_length, "lora_r": settings.lora_r if self.lora else None,
                "learning_rate": settings.rate}

    def fit_code(self) -> list[str]:
        """The code the fitted weights depend on (in the cache key): `fit` and what it calls, and the lm modules
        that load, prompt and train the model; not how the fitted model is scored (inference.py, the ranking)."""
        modules = [(Path(lm.__file__).parent / name).read_text() for name in WEIGHTS_MODULES]
        return [inspect.getsource(code) for code in (LmCrs.fit, LmCrs._make_trainable, recommender_turns)] + modules

    def fit_items(self, data: TrainingData) -> set[str]:
        """The items the fit reads (their titles are written into its prompts and targets): those the dialogues
        mention, so that adding a test set to the item space does not train again."""
        return {item for conversation in data.conversations for u in conversation.utterances for item in u.items}

    def fit(self, data: TrainingData) -> None:
        from transformers import set_seed

        turns = recommender_turns(data.conversations)
        examples = [self.writer.example(context, turn) for context, turn in turns]
        if not examples:
            raise SynthError(f"'{data.label}' has no recommender turns to train {self.name} on")
        items = self.setup.space.items
        examples += [self.writer.item_example(context, items[item]) for context, turn in turns for item in turn.items]
        set_seed(self.setup.seed)
        self._make_trainable()
        self.training_record = train(
            self.lm.model, self.lm.tokenizer, examples, steps=self.settings.steps,
            batch_size=self.settings.batch_size, seed=self.setup.seed, device=self.lm.device,
            learning_rate=self.settings.rate,
            label=f"train {self.name} on {data.label}", progress=self.setup.progress,
        )
        self._responses.clear()

    def state(self) -> dict[str, Any]:
        return {"weights": trained_weights(self.lm.model, self.lora), "training": self.training_record}

    def load_state(self, state: dict[str, Any]) -> None:
        self._make_trainable()
        load_trained_weights(self.lm.model, state["weights"], self.lora)
        self.lm.model.eval()
        self.training_record = state["training"]

    def respond(self, cases: Sequence[ResponseCase]) -> list[str]:
        return self._respond([case.context for case in cases])

    def score_batch(self, cases: Sequence[RecommendationCase]) -> np.ndarray:
        space = self.setup.space
        first_case: dict[tuple[Utterance, ...], RecommendationCase] = {}
        for case in cases:
            first_case.setdefault(case.context, case)  # cases at one turn share its context
        contexts = list(first_case)
        responses = dict(zip(contexts, self._respond(contexts)))
        pools = dict(zip(contexts, self._pools([first_case[c] for c in contexts])))
        rows, title_ids = {}, self.title_tokens()
        for context in track(contexts, f"{self.name}: rank items", self.setup.progress):
            row = np.full(len(space), -np.inf, dtype=np.float32)
            start = read_prompt(self.lm.model, self.writer.recommendation_prompt(context), self.lm.device)
            if len(space) > CANDIDATES:
                for found, likelihood in best_titles(self.lm.model, start, self._titles(), BEAM_WIDTH,
                                                     self.lm.device).items():
                    row[found] = likelihood
            pool_titles = [title_ids[r] for r in pools[context]]
            row[pools[context]] = title_log_likelihoods(self.lm.model, self.lm.tokenizer, start, pool_titles,
                                                        self.lm.device)
            named = named_items(responses[context], space)
            for rank, item_id in enumerate(named):
                row[space.row(item_id)] = len(named) - rank  # above every log-likelihood (<= 0)
            rows[context] = row
        return np.stack([rows[case.context] for case in cases])

    def _make_trainable(self) -> None:
        if self.lora:
            self.lm.model = with_lora(self.lm.model, self.settings.lora_r)

    def _respond(self, contexts: Sequence[tuple[Utterance, ...]]) -> list[str]:
        """The model's next recommender turn after each context, each distinct context generated once."""
        missing = list(dict.fromkeys(c for c in contexts if c not in self._responses))
        starts = range(0, len(missing), RESPONSE_BATCH)
        for start in track(starts, f"{self.name}: respond", self.setup.progress):
            batch = missing[start : start + RESPONSE_BATCH]
            prompts = [self.writer.prompt(context) for context in batch]
            answers = generate(self.lm.model, self.lm.tokenizer, prompts, self.writer.response_tokens, self.lm.device)
            self._responses.update((c, self.writer.response(a)) for c, a in zip(batch, answers))
        return [self._responses[c] for c in contexts]

    def title_tokens(self) -> list[list[int]]:
        """Every item's " Title (Year)" token ids, by row of the item space (tokenized once)."""
        if self._title_ids is None:
            space, tokenizer = self.setup.space, self.lm.tokenizer
            self._title_ids = [tokenizer(self.writer.title(space.items[item_id]), add_special_tokens=False)["input_ids"]
                               for item_id in space.ids]
        return self._title_ids

    def _titles(self) -> TitleTrie:
        """Every item's title tokens as a prefix tree (built once)."""
        if self._trie is None:
            self._trie = TitleTrie(self.title_tokens())
        return self._trie

    def _pools(self, cases: Sequence[RecommendationCase]) -> list[np.ndarray]:
        """The item rows each case's likelihood ranking covers: the whole space when it is small."""
        size = len(self.setup.space)
        if size <= CANDIDATES:
            return [np.arange(size)] * len(cases)
        if self._retriever is None:
            self._retriever = DenseRecommender(self.setup)
        return [np.argpartition(-row, CANDIDATES)[:CANDIDATES] for row in self._retriever.score_batch(cases)]


class LmCrsZeroShot(Untrained, LmCrs):
    """The same model, not fine-tuned: what training adds."""

    name = "lm-crs-zero-shot"


def recommender_turns(conversations: Sequence[Conversation]) -> list[tuple[tuple[Utterance, ...], Utterance]]:
    """(context, turn) for each recommender turn with words after a dialogue's first utterance."""
    return [(c.utterances[:index], u) for c in conversations for index, u in enumerate(c.utterances)
            if u.role == "recommender" and index > 0 and u.text.strip()]


def named_items(text: str, space: ItemSpace) -> list[str]:
    """The distinct items of the space that `text` names as "Title (Year)", in order."""
    found = (space.find(f"{title} ({year})") for title, year in title_mentions(text))
    return list(dict.fromkeys(item_id for item_id in found if item_id is not None))
