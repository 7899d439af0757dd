"""Fine-tuning `lm-crs`'s model: seeded minibatches of examples, AdamW with linear warm-up and decay, the loss
on the target tokens only, a progress bar with the loss; what the fit took is recorded."""

from __future__ import annotations

import resource
import time
from collections.abc import Iterator, Sequence
from typing import Any

from rich.text import Text

from synth.progress import progress_bar

WARMUP = 0.1  # share of the steps
LAST_STEPS = 10  # the final loss is their mean
MAX_GRAD_NORM = 1.0


def train(
    model: Any, tokenizer: Any, examples: Sequence[dict[str, list[int]]], *, steps: int, batch_size: int,
    learning_rate: float, seed: int, device: str, label: str, progress: bool,
) -> dict[str, Any]:
    """`steps` optimiser steps on `examples` (input ids and labels); the record of the fit: steps, the first
    and final loss, seconds, peak memory, trainable parameters and device."""
    import torch
    from transformers import DataCollatorForSeq2Seq, get_linear_schedule_with_warmup

    collate = DataCollatorForSeq2Seq(tokenizer, padding=True, return_tensors="pt")
    parameters = [p for p in model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(parameters, lr=learning_rate)
    schedule = get_linear_schedule_with_warmup(optimiser, int(steps * WARMUP), steps)
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()
    losses: list[float] = []
    started = time.perf_counter()
    model.train()
    with progress_bar(progress, Text(label).markup, "loss {task.fields[loss]}", eta=True, transient=True) as bar:
        task = bar.add_task("", total=steps, loss="–")
        for batch in _batches(len(examples), batch_size, steps, seed):
            inputs = collate([examples[i] for i in batch]).to(device)
            loss = model(**inputs).loss
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(parameters, MAX_GRAD_NORM)
            optimiser.step()
            schedule.step()
            losses.append(loss.item())
            bar.update(task, advance=1, loss=f"{losses[-1]:.3f}")
    model.eval()
    last = losses[-LAST_STEPS:]
    return {
        "steps": steps, "batch_size": batch_size, "examples": len(examples), "first_loss": round(losses[0], 4),
        "final_loss": round(sum(last) / len(last), 4), "train_s": round(time.perf_counter() - started, 2),
        **peak_memory(device), "trainable_parameters": sum(p.numel() for p in parameters), "device": device,
    }


def peak_memory(device: str) -> dict[str, Any]:
    """The GPU's peak allocated memory, or on a CPU the process's peak resident set (all it ever held)."""
    if device == "cuda":
        import torch

        return {"peak_memory_mb": round(torch.cuda.max_memory_allocated() / 2**20), "peak_memory_of": "cuda allocated"}
    return {"peak_memory_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            "peak_memory_of": "process rss"}


def _batches(size: int, batch_size: int, steps: int, seed: int) -> Iterator[list[int]]:
    """`steps` batches of example indices: seeded shuffles of all examples, one after another."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    order: list[int] = []
    for _ in range(steps):
        while len(order) < batch_size:
            order += torch.randperm(size, generator=generator).tolist()
        yield order[:batch_size]
        order = order[batch_size:]
