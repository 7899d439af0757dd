"""How `lm-crs` fine-tunes its model: the `synth benchmark --lm-*` options (this module stays light, so that
the CLI reads its defaults without loading the benchmarks)."""

from __future__ import annotations

from dataclasses import dataclass

LORA_LEARNING_RATE, FULL_LEARNING_RATE = 5e-4, 5e-5


@dataclass(frozen=True)
class LmSettings:
    """CPU-sized defaults: a few minutes on two cores (docs/benchmarks.md gives GPU-sized settings)."""

    model: str | None = None  # a Hub id or a folder; None: the packaged SmolLM2-135M-Instruct, converted
    steps: int = 100
    batch_size: int = 4
    max_length: int = 256  # prompt and target tokens of one training example
    lora_r: int = 8
    full_finetune: bool = False  # train every weight instead of a LoRA adapter
    learning_rate: float | None = None  # None: LORA_LEARNING_RATE, or FULL_LEARNING_RATE for every weight

    @property
    def rate(self) -> float:
        """The learning rate a fit uses."""
        if self.learning_rate is not None:
            return self.learning_rate
        return FULL_LEARNING_RATE if self.full_finetune else LORA_LEARNING_RATE
