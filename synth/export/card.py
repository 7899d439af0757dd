"""The dataset card (README.md) of an exported run, built with huggingface_hub's card classes.

Regenerating keeps what a person wrote: metadata keys synth does not measure keep their value (a hand-set
license or pretty_name wins), tags are merged, and text outside the synth:begin / synth:end block is kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from huggingface_hub import DatasetCard, DatasetCardData

from synth.analysis.stats.corpus import load_corpus
from synth.analysis.stats.measures import DatasetStats, Encoder, measure
from synth.analysis.stats.table import markdown_table
from synth.config import review_source
from synth.runs.filtering import FilterSummary
from synth.runs.folder import RunFolder
from synth.runs.manifest import Manifest

TEMPLATE = Path(__file__).with_name("dataset_card.md")
BLOCK = re.compile(r"<!-- synth:begin.*?-->.*?<!-- synth:end -->\n?", re.DOTALL)
MEASURED_KEYS = ("size_categories",)  # refreshed from the data on every regeneration
TAGS = ["synthetic", "conversational-recommendation", "recommendation", "dialogue", "synth"]  # + the domain's plural
SIZE_CATEGORIES = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")]
LICENSES = {  # data source -> (license id, note on what the source's terms ask of this dataset)
    "demo": ("apache-2.0", "The personas come from synth's bundled demo reviews (written for synth, Apache-2.0)."),
    "movielens": (
        "other",
        "Built from MovieLens ml-latest-small (GroupLens): research use only, no commercial use without "
        "permission; redistributions, transformations included, must keep the same conditions. Cite Harper & "
        "Konstan (2015).",
    ),
    "movielens+rt": (
        "other",
        "Built from MovieLens ml-latest-small (GroupLens: research use only, redistributions keep the same "
        "conditions; cite Harper & Konstan 2015) and Rotten Tomatoes critic quotes (no license stated; the persona "
        "reviews quote copyrighted critic excerpts: research use only, think twice before publishing publicly).",
    ),
    "files": ("unknown", "Built from the user's own catalog and review files; their license applies."),
    "amazon": (
        "other",
        "Built from Amazon Reviews 2023 (McAuley Lab, UCSD): released for research use; the reviews and item "
        "metadata may not be redistributed. Cite Hou et al. (2024), Bridging Language and Items for Retrieval and "
        "Recommendation.",
    ),
    "goodreads": (
        "other",
        "Built from the UCSD Goodreads datasets (UCSD Book Graph): academic use only; the data may not be "
        "redistributed. Cite Wan & McAuley (2018), Item Recommendation on Monotonic Behavior Chains (and Wan et al. "
        "2019 for the reviews).",
    ),
    "yelp": (
        "other",
        "Built from the Yelp Open Dataset: the Yelp Dataset terms of use apply (non-commercial, academic use; no "
        "redistribution of the data). Check them before publishing.",
    ),
}
LICENSE_NAMES = {"goodreads": "goodreads-derived-academic-use-only", "yelp": "yelp-dataset-terms"}
SOURCE_DATASETS = {
    "movielens": ["MovieLens ml-latest-small"],
    "movielens+rt": ["MovieLens ml-latest-small", "Rotten Tomatoes critic quotes"],
    "amazon": ["Amazon Reviews 2023"],
    "goodreads": ["UCSD Goodreads"],
    "yelp": ["Yelp Open Dataset"],
}


@dataclass
class CardOptions:
    pretty_name: str | None = None
    license: str | None = None  # an SPDX-like Hub license id; default from the data source
    split_seed: int = 0
    configs: list[dict[str, Any]] | None = None  # Hub data_files layout, when the card goes with parquet files
    encoder: Encoder | None = None  # for inter-dialogue similarity in the statistics
    extra_tags: list[str] = field(default_factory=list)


def data_source(run: RunFolder) -> str:
    """Where the run's personas came from, as its config names it: demo, files, movielens, movielens+rt or a
    review format's FORMAT:DIR."""
    config = run.manifest.config if run.manifest else {}
    return config.get("source") or ("files" if config.get("catalog") else "demo")


def terms_source(run: RunFolder) -> str:
    """The key of the terms the run's data comes under (LICENSES): a public review format's name (amazon, yelp,
    goodreads) whether read as FORMAT:DIR or as files with --format, else `data_source`."""
    config = run.manifest.config if run.manifest else {}
    found = review_source(config["source"]) if config.get("source") else None
    return config.get("source_format") or (found[0] if found else data_source(run))


def size_category(count: int) -> str:
    return next((label for limit, label in SIZE_CATEGORIES if count < limit), "n>1M")


def run_stats(run: RunFolder, encoder: Encoder | None) -> DatasetStats:
    """The statistics table's figures, the run streamed from disk."""
    return measure(load_corpus(f"{run.folder.name}={run.file}", "synth"), encoder)[0]


def build_card(
    run: RunFolder, splits: dict[str, list[str]], options: CardOptions, existing: DatasetCard | None = None
) -> DatasetCard:
    """The card for `run` whose splits hold these user ids per dialogue; merged into `existing` if given."""
    stats = run_stats(run, options.encoder)
    source = terms_source(run)
    license_id, license_note = LICENSES.get(source, ("unknown", "Check the terms of the data the personas came from."))
    generated = {
        "license": options.license or license_id,
        "language": ["en"],
        "task_categories": ["text-generation"],
        "task_ids": ["dialogue-modeling"],
        "size_categories": [size_category(stats.dialogues)],
        "tags": [*TAGS, run.domain.plural, *options.extra_tags],
        "source_datasets": SOURCE_DATASETS.get(source, ["original"]),
        "pretty_name": options.pretty_name or f"synth dialogues: {run.folder.name}",
    }
    if generated["license"] == "other":
        generated["license_name"] = LICENSE_NAMES.get(source, f"{source.replace('+', '-')}-derived-research-only")
    if options.configs is not None:
        generated["configs"] = options.configs
    merged = merge_metadata(generated, existing.data.to_dict() if existing else {})
    kept_above, kept_below = _kept_text(existing)
    return DatasetCard.from_template(
        DatasetCardData(**merged),
        template_path=str(TEMPLATE),
        kept_above=kept_above,
        kept_below=kept_below,
        **_body(run, stats, splits, options, merged["pretty_name"], license_note),
    )


def merge_metadata(generated: dict[str, Any], existing: dict[str, Any]) -> dict[str, Any]:
    """Existing keys win, except the measured ones; tags are the union; keys only the existing card has stay."""
    merged = {**generated, **existing}
    for key in MEASURED_KEYS:
        merged[key] = generated[key]
    if "configs" in generated and "configs" not in existing:
        merged["configs"] = generated["configs"]
    merged["tags"] = list(dict.fromkeys([*existing.get("tags", []), *generated["tags"]]))
    return merged


def _kept_text(existing: DatasetCard | None) -> tuple[str, str]:
    """A person's text around synth's block (all of it goes above when the card has no block yet)."""
    if existing is None or not existing.text.strip():
        return "", ""
    text = existing.text
    block = BLOCK.search(text)
    above, below = (text, "") if block is None else (text[: block.start()], text[block.end() :])
    return (above.strip() + "\n\n" if above.strip() else ""), below.strip() + "\n" if below.strip() else ""


def _body(
    run: RunFolder,
    stats: DatasetStats,
    splits: dict[str, list[str]],
    options: CardOptions,
    pretty_name: str,
    license_note: str,
) -> dict[str, Any]:
    manifest = run.manifest or Manifest()
    config, model = manifest.config, manifest.model
    first_record = next(run.records(), None)
    first = first_record.generation if first_record else None
    counts = manifest.counts.model_dump() if run.manifest else {"written": stats.dialogues}
    tokens = manifest.tokens if run.manifest else None
    return {
        "pretty_name": pretty_name,
        "mode": config.get("mode", first_record.mode if first_record else "pearl"),
        "source": data_source(run),
        "backend": first.backend if first else config.get("backend"),
        "model": (model and (model.source or model.name)) or (first.model if first else "unknown"),
        "model_sha256": (model and model.sha256) or "not recorded",
        "retriever": (first.retriever if first else None) or config.get("retriever") or "none",
        "sampling": ", ".join(f"{k}={v}" for k, v in (first.sampling if first else {}).items()),
        "seed": config.get("seed", first.seed if first else "unknown"),
        "counts": " / ".join(str(counts.get(key, "?")) for key in ("requested", "written", "failed")),
        "tokens": f"{tokens.prompt:,} / {tokens.completion:,}" if tokens else "not recorded",
        "synth_version": manifest.packages.get("synth-crs") or metadata.version("synth-crs"),
        "prompt_hashes": manifest.prompt_hashes or (first.prompt_hashes if first else {}),
        "split_seed": options.split_seed,
        "splits": [{"name": name, "dialogues": len(users), "users": len(set(users))} for name, users in splits.items()],
        "filter": _filter_summary(manifest.filter),
        "stats_table": markdown_table([stats]),
        "license_note": license_note,
        "plural": run.domain.plural,
    }


def _filter_summary(summary: FilterSummary | None) -> dict[str, Any] | None:
    if not summary:
        return None
    rows = [
        {"name": name, "ran_on": row.ran_on, "dropped": row.dropped, "rate": f"{row.drop_rate:.1%}"}
        for name, row in summary.per_filter.items()
    ]
    return {
        "kept": summary.kept,
        "dialogues": summary.dialogues,
        "drop_pct": f"{summary.drop_rate:.1%}",
        "rows": rows,
    }
