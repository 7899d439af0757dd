"""Fitted baselines kept on disk: the key is the baseline's source code (or, for a baseline that names it with
`fit_code()`, only the code its fitted state depends on), the training data's bytes, the item
space (or, for a baseline that names them with `fit_items()`, only the items its weights can depend on), the
seed, the embedding model and the baseline's own fit settings (`fit_settings()`, where it has them), so any
change to one of them trains again."""

from __future__ import annotations

import hashlib
import inspect
import json
import pickle
from pathlib import Path
from typing import Any

from synth.benchmarks.crs.baselines.base import Setup, TrainingData

CACHE_VERSION = 1


def model_key(model: Any, data: TrainingData, setup: Setup) -> str:
    parts = {
        "version": CACHE_VERSION,
        "model": model.name,
        "code": _code_digest(model),
        "data": data.fingerprint,
        "items": _items_digest(model, data, setup),
        "seed": setup.seed,
        "embedding_model": setup.embedding_model,
    }
    if hasattr(model, "fit_settings"):
        parts["fit_settings"] = model.fit_settings()
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:24]


def _code_digest(model: Any) -> str:
    """sha256 of the baseline's module; or of the code it says its fit runs (a change to how it scores then leaves
    the fit alone)."""
    if hasattr(model, "fit_code"):
        return hashlib.sha256("\n".join(model.fit_code()).encode()).hexdigest()
    return hashlib.sha256(Path(inspect.getfile(type(model))).read_bytes()).hexdigest()


def _items_digest(model: Any, data: TrainingData, setup: Setup) -> str:
    """The whole space's ids; or the records of the items the baseline says its fit reads (a test set that adds
    items to the space then leaves such a fit's key alone)."""
    if not hasattr(model, "fit_items"):
        return hashlib.sha256("\n".join(setup.space.ids).encode()).hexdigest()
    items = setup.space.items
    records = [[item_id, items[item_id].model_dump(mode="json")] for item_id in sorted(model.fit_items(data))]
    return hashlib.sha256(json.dumps(records, sort_keys=True).encode()).hexdigest()


def fit_or_load(model: Any, data: TrainingData, setup: Setup, *, refit: bool = False) -> bool:
    """Fit `model` on `data`, or load the state a fit with the same key saved; True when loaded."""
    if setup.cache_dir is None:
        model.fit(data)
        return False
    path = setup.cache_dir / "models" / f"{model.name}-{model_key(model, data, setup)}.pkl"
    if path.exists() and not refit:
        with path.open("rb") as handle:
            model.load_state(pickle.load(handle))
        return True
    model.fit(data)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".part")
    with partial.open("wb") as handle:
        pickle.dump(model.state(), handle)
    partial.replace(path)
    return False
