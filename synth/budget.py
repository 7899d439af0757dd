"""A run's spending ceilings (--max-cost USD, --max-total-tokens): whether one more dialogue may start, given what
the run has spent so far, what a dialogue costs on average, and the dialogues already in flight."""

from __future__ import annotations

from dataclasses import dataclass

from synth.config import GenerateConfig
from synth.errors import SynthError


@dataclass(frozen=True)
class Spent:
    """What the run's written dialogues (resumed ones included) used."""

    dialogues: int
    prompt_tokens: int
    completion_tokens: int
    prompt_evaluated: int | None = None  # prompt tokens computed, not served from a cache (None: unknown)

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class Budget:
    """The ceilings of `config`; a dialogue starts only while the spend so far plus the expected cost of the
    dialogues in flight and of one more (the average of those written) stays within each. Before any dialogue
    is written nothing is known to expect, so up to --concurrency dialogues start."""

    config: GenerateConfig

    @classmethod
    def of(cls, config: GenerateConfig) -> Budget | None:
        """The run's budget, None without a ceiling; a cost ceiling without prices is an error."""
        if config.max_cost_usd is None and config.max_total_tokens is None:
            return None
        if config.max_cost_usd is not None and config.cost_usd(0, 0) is None:
            raise SynthError(
                "--max-cost needs prices to count what the run spends: pass --price-prompt and --price-completion "
                "(USD per million tokens)"
            )
        return cls(config)

    def allows(self, spent: Spent, in_flight: int) -> bool:
        """Whether one more dialogue may start."""
        if not spent.dialogues:
            return True
        expected = (in_flight + 1) / spent.dialogues
        ceiling_tokens = self.config.max_total_tokens
        if ceiling_tokens is not None and spent.tokens * (1 + expected) > ceiling_tokens:
            return False
        ceiling_cost = self.config.max_cost_usd
        cost = self._cost(spent)
        return ceiling_cost is None or cost * (1 + expected) <= ceiling_cost

    def describe(self, spent: Spent) -> str:
        """What was spent against which ceiling, for the line that says the run stopped."""
        parts = []
        if self.config.max_cost_usd is not None:
            parts.append(f"{self._cost(spent):.4f} of {self.config.max_cost_usd:g} USD")
        if self.config.max_total_tokens is not None:
            parts.append(f"{spent.tokens:,} of {self.config.max_total_tokens:,} tokens")
        return " and ".join(parts)

    def _cost(self, spent: Spent) -> float:
        return self.config.cost_usd(spent.prompt_tokens, spent.completion_tokens, spent.prompt_evaluated) or 0.0
