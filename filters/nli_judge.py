"""The NLI judge: a sentence-transformers CrossEncoder trained on MNLI/SNLI scores every (premise,
claim) pair; the strongest contradiction at or above the threshold is the finding."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from synth.errors import SynthError
from synth.filters.judge_protocol import Claim, Finding, Kind

log = logging.getLogger(__name__)
NLI_EXTRA_HINT = "the NLI judge needs the 'dense' extra: pip install 'synth-crs[dense]' (or use --judge llm)"


def contradiction_index(id2label: dict[int, str]) -> int:
    """Which output of the model is 'contradiction' (models order their three labels differently)."""
    for index, label in id2label.items():
        if str(label).lower().startswith("contradict"):
            return int(index)
    raise SynthError(f"the NLI model has no 'contradiction' label (labels: {sorted(id2label.values())})")


class NLIJudge:
    """Loads the cross-encoder on first use; `model` is a hub name (from the local Hugging Face cache
    when offline) or a folder."""

    method = "nli"

    def __init__(self, model: str, *, threshold: float = 0.8, batch_size: int = 32):
        self.model_name, self.threshold, self.batch_size = model, threshold, batch_size
        self.description = f"nli judge (cross-encoder {model}, contradiction >= {threshold})"
        self._model: Any = None
        self._contradiction = 0

    async def check(self) -> None:
        self._load()

    def _load(self) -> Any:
        if self._model is not None:
            return self._model
        try:
            from sentence_transformers import CrossEncoder
        except ImportError:
            raise SynthError(NLI_EXTRA_HINT) from None
        source = str(Path(self.model_name).resolve()) if Path(self.model_name).is_dir() else self.model_name
        try:
            model = CrossEncoder(source, device="cpu")
        except OSError as exc:
            raise SynthError(
                f"cannot load the NLI model {self.model_name!r} ({exc}); download it once where the Hub can be reached, "
                "pass a local folder with --nli-model, or use --judge llm"
            ) from None
        self._contradiction = contradiction_index(model.config.id2label)
        self._model = model
        return model

    def scores(self, pairs: list[tuple[str, str]]) -> list[float]:
        """P(contradiction) of each (premise, hypothesis) pair."""
        model = self._load()
        probabilities = model.predict(
            pairs,
            batch_size=self.batch_size,
            apply_softmax=True,
            show_progress_bar=False,
        )
        return [float(row[self._contradiction]) for row in probabilities]

    async def contradiction(self, kind: Kind, claims: list[Claim]) -> Finding | None:
        pairs, owners = [], []
        for claim in claims:
            for premise in claim.premises:
                pairs.append((premise.text, claim.text))
                owners.append((claim, premise))
        scores = await asyncio.to_thread(self.scores, pairs)
        best = max(range(len(scores)), key=scores.__getitem__, default=None)
        if best is None or scores[best] < self.threshold:
            return None
        claim, premise = owners[best]
        return Finding(claim, premise, scores[best])

    async def aclose(self) -> None:
        self._model = None
