"""What `lm-crs`'s model says and how likely it finds each item: greedy responses to prompts, in left-padded
batches; the log-likelihood of given item titles right after a prompt, the prompt computed once and its
key-value cache shared by the titles; and the likeliest titles of a whole catalog, by a beam search over a
prefix tree of their tokens."""

from __future__ import annotations

import copy
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


def title_log_likelihoods(model: Any, tokenizer: Any, prompt: list[int], titles: Sequence[str], device: str) -> np.ndarray:
    """log P(title | prompt) for each title: the sum of its tokens' log-probabilities."""
    import torch

    with torch.no_grad():
        start = model(input_ids=torch.tensor([prompt], device=device), use_cache=True, logits_to_keep=1)
        first = start.logits[0, -1].float().log_softmax(-1)
        scores = []
        for offset in range(0, len(titles), TITLE_BATCH):
            chunk = [tokenizer(t, add_special_tokens=False)["input_ids"] for t in titles[offset : offset + TITLE_BATCH]]
            padded = tokenizer.pad({"input_ids": chunk}, padding_side="right", return_tensors="pt").to(device)
            ids, mask = padded["input_ids"], padded["attention_mask"]
            cache = copy.deepcopy(start.cache)
            cache.batch_repeat_interleave(len(chunk))
            attention = torch.cat([mask.new_ones(len(chunk), len(prompt)), mask], dim=1)
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


def best_titles(model: Any, prompt: list[int], trie: TitleTrie, width: int, device: str) -> dict[int, float]:
    """log P(title | prompt) of the likeliest titles, by row: a beam search of `width` prefixes over the trie, so the
    whole catalog is searched at the cost of `width` short sequences. A title leaves the beam when it ends; the
    search stops once no prefix left in the beam can outscore the `width`-th title found."""
    import torch

    found: dict[int, float] = {}
    with torch.no_grad():
        output = model(input_ids=torch.tensor([prompt], device=device), use_cache=True, logits_to_keep=1)
        cache, beams = output.cache, [(0, 0.0)]  # (trie node, log-likelihood so far): one cache row per beam
        while beams:
            log_probs = output.logits[:, -1].float().log_softmax(-1).cpu()
            expansions: list[tuple[float, int, int, int]] = []  # (score, beam, token, node)
            for beam, (node, score) in enumerate(beams):
                tokens = list(trie.children[node])
                scores = (score + log_probs[beam, tokens]).tolist()
                expansions += zip(scores, [beam] * len(tokens), tokens, trie.children[node].values())
            expansions = sorted(expansions, reverse=True)[:width]
            for score, _, _, node in expansions:
                found.update((row, score) for row in trie.ends[node])
            floor = sorted(found.values(), reverse=True)[width - 1] if len(found) >= width else -np.inf
            alive = [(score, beam, token, node) for score, beam, token, node in expansions
                     if trie.children[node] and score > floor]
            if not alive:
                break
            cache.reorder_cache(torch.tensor([beam for _, beam, _, _ in alive], device=device))
            output = model(input_ids=torch.tensor([[token] for _, _, token, _ in alive], device=device), cache=cache,
                           use_cache=True)
            beams = [(node, score) for score, _, _, node in alive]
    return found
