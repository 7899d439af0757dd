"""What `lm-crs`'s model says and how likely it finds each item: greedy responses to prompts, in left-padded
batches, and the log-likelihood of item titles right after a prompt, the prompt computed once and its
key-value cache shared by the titles."""

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
        start = model(input_ids=torch.tensor([prompt], device=device), use_cache=True)
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
