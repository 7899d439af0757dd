"""What `lm-crs`'s model says and how likely it finds each item: greedy responses to prompts, in left-padded
batches; a prompt read once, its key-value cache shared by what follows: the log-likelihood of given item titles
right after it, and the likeliest titles of a whole catalog, by a beam search over a prefix tree of their
tokens."""

from __future__ import annotations

import copy
import heapq
from collections.abc import Sequence
from typing import Any

import numpy as np

TITLE_BATCH = 32  # titles scored at once against one prompt's cache


def generate(model: Any, tokenizer: Any, prompts: Sequence[list[int]], max_new_tokens: int, device: str) -> list[str]:
    """The greedy continuation of each prompt (one batch), decoded without special tokens."""
    import torch

    inputs = tokenizer.pad({"input_ids": list(prompts)}, padding_side="left", return_tensors="pt").to(device)
    with torch.no_grad():
        output = model.generate(**inputs, max_new_tokens=max_new_tokens, do_sample=False,
                                pad_token_id=tokenizer.pad_token_id)
    return tokenizer.batch_decode(output[:, inputs["input_ids"].shape[1] :], skip_special_tokens=True)


def read_prompt(model: Any, prompt: list[int], device: str) -> Any:
    """The model's output after `prompt`: its next-token logits and key-value cache, read once per prompt and
    shared by the scorers below (each works on a copy of the cache)."""
    import torch

    with torch.no_grad():
        return model(input_ids=torch.tensor([prompt], device=device), use_cache=True, logits_to_keep=1)


def title_log_likelihoods(model: Any, tokenizer: Any, start: Any, titles: Sequence[list[int]], device: str) -> np.ndarray:
    """log P(title | prompt) for each title's token ids, `start` being `read_prompt`'s output: the sum of its
    tokens' log-probabilities."""
    import torch

    prompt_length = start.cache.get_seq_length()
    first = start.logits[0, -1].float().log_softmax(-1)
    scores = []
    with torch.no_grad():
        for offset in range(0, len(titles), TITLE_BATCH):
            chunk = list(titles[offset : offset + TITLE_BATCH])
            padded = tokenizer.pad({"input_ids": chunk}, padding_side="right", return_tensors="pt").to(device)
            ids, mask = padded["input_ids"], padded["attention_mask"]
            cache = copy.deepcopy(start.cache)
            cache.batch_repeat_interleave(len(chunk))
            attention = torch.cat([mask.new_ones(len(chunk), prompt_length), mask], dim=1)
            logits = model(input_ids=ids, attention_mask=attention, cache=cache).logits.float()
            following = logits[:, :-1].log_softmax(-1).gather(-1, ids[:, 1:, None])[..., 0] * mask[:, 1:]
            scores.append(first[ids[:, 0]] + following.sum(1))
    return torch.cat(scores).cpu().numpy()


class TitleTrie:
    """Every title's token ids as a prefix tree: the tokens that may follow each prefix (node), and the rows of the
    titles that end at it."""

    def __init__(self, titles: Sequence[list[int]]):
        self.children: list[dict[int, int]] = [{}]
        self.ends: list[list[int]] = [[]]
        for row, ids in enumerate(titles):
            node = 0
            for token in ids:
                if token not in self.children[node]:
                    self.children[node][token] = len(self.children)
                    self.children.append({})
                    self.ends.append([])
                node = self.children[node][token]
            self.ends[node].append(row)


def best_titles(model: Any, start: Any, trie: TitleTrie, width: int, device: str) -> dict[int, float]:
    """log P(title | prompt) of the likeliest titles, by row, `start` being `read_prompt`'s output: a beam search of
    `width` prefixes over the trie, so the whole catalog is searched at the cost of `width` short sequences. A title
    leaves the beam when it ends; the search stops once no prefix left in the beam can outscore the `width`-th
    title found."""
    import torch

    found: dict[int, float] = {}
    logits, cache = start.logits, copy.deepcopy(start.cache)
    beams = [(0, 0.0)]  # (trie node, log-likelihood so far): one cache row per beam
    with torch.no_grad():
        while True:
            log_probs = logits[:, -1].float().log_softmax(-1).cpu()
            expansions: list[tuple[float, int, int, int]] = []  # (score, beam, token, node)
            for beam, (node, score) in enumerate(beams):
                tokens = list(trie.children[node])
                scores = (score + log_probs[beam, tokens]).tolist()
                expansions += zip(scores, [beam] * len(tokens), tokens, trie.children[node].values())
            expansions = heapq.nlargest(width, expansions)
            for score, _, _, node in expansions:
                found.update((row, score) for row in trie.ends[node])
            floor = heapq.nlargest(width, found.values())[-1] if len(found) >= width else -np.inf
            alive = [(score, beam, token, node) for score, beam, token, node in expansions
                     if trie.children[node] and score > floor]
            if not alive:
                return found
            cache.reorder_cache(torch.tensor([beam for _, beam, _, _ in alive], device=device))
            logits = model(input_ids=torch.tensor([[token] for _, _, token, _ in alive], device=device), cache=cache,
                           use_cache=True).logits
            beams = [(node, score) for score, _, _, node in alive]
