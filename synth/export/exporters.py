"""`synth export` and `synth publish`: a run written in a format the field's code reads (ReDial, PEARL, CRSLab,
DialogueKit / UserSimCRS) or as a Hugging Face DatasetDict with its card, locally or to the Hub."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from synth.errors import SynthError
from synth.export.card import LICENSES, CardOptions, build_card, terms_source
from synth.export.crslab import CRSLAB_PATTERN, export_crslab
from synth.export.dialoguekit import DIALOGUEKIT_PATTERN, export_dialoguekit
from synth.export.hf import open_dataset_dict, save_dataset_dict
from synth.export.output import CARD_FILE, staged_export
from synth.export.pearl import PEARL_PATTERN, export_pearl
from synth.export.redial import REDIAL_PATTERN, export_redial
from synth.export.splits import RunSplits, split_file_name
from synth.runs.folder import RunFolder
from synth.runs.layout import EXPORT_MARKER

log = logging.getLogger(__name__)
Exporter = Callable[[RunFolder, Path, RunSplits], dict[str, Any]]
EXPORTERS: dict[str, Exporter] = {
    "pearl": export_pearl,
    "redial": export_redial,
    "crslab": export_crslab,
    "dialoguekit": export_dialoguekit,
}
DIALOGUE_FILES = {  # how each format names its split files of dialogues (hf: a folder per split)
    "pearl": PEARL_PATTERN,
    "redial": REDIAL_PATTERN,
    "crslab": CRSLAB_PATTERN,
    "dialoguekit": DIALOGUEKIT_PATTERN,
}
FORMATS = (*EXPORTERS, "hf")


@dataclass
class Exported:
    """What an export wrote, and what it found on the way (the mention coverage, greetings left out)."""

    files: list[Path]
    facts: dict[str, Any] = field(default_factory=dict)


@dataclass
class Published:
    repo_id: str
    files: list[Path]  # what was written locally: the dry-run folder's files, else nothing
    url: str | None = None  # the dataset's page once pushed


def export_run(
    source: Path, to: str, out_dir: Path, *, shares: dict[str, float], options: CardOptions, overwrite: bool = False
) -> Exported:
    """Write the run at `source` in format `to` into `out_dir`, split by user. Files are written to a scratch
    folder first and moved into `out_dir` only when all are complete; `out_dir` must be empty or hold an earlier
    synth export (replaced only with `overwrite`)."""
    if to not in FORMATS:
        raise SynthError(f"unknown export format '{to}'; choose one of {', '.join(FORMATS)}")
    run = RunFolder.open(source)  # a missing run is named before anything is written
    splits = RunSplits.of(run, shares, options.split_seed)  # a run without dialogues is refused here
    with staged_export(out_dir, to, overwrite) as staging:
        staging.facts["splits"] = splits.counts()
        staging.facts["dialogue_files"] = {
            split: split_file_name(split, DIALOGUE_FILES[to]) if to in DIALOGUE_FILES else split for split in splits.names
        }
        if to in EXPORTERS:
            staging.facts.update(EXPORTERS[to](run, staging.folder, splits))
        else:
            with open_dataset_dict(run, splits) as dataset_dict:
                save_dataset_dict(dataset_dict, staging.folder)
                _write_card(run, dataset_dict, options, staging.folder / CARD_FILE, out_dir / CARD_FILE)
        names = [p.name for p in staging.folder.iterdir()]
    return Exported(sorted(p for name in [*names, EXPORT_MARKER] for p in _files(out_dir / name)), staging.facts)


def _files(path: Path) -> list[Path]:
    return [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())


def publish_run(
    source: Path,
    repo_id: str,
    *,
    private: bool,
    dry_run: Path | None,
    shares: dict[str, float],
    options: CardOptions,
    overwrite: bool = False,
) -> Published:
    """Push the run's DatasetDict and card to the Hub (token from HF_TOKEN or `hf auth login`, never printed);
    with `dry_run`, write exactly the repository's files (parquet shards and README.md) into that folder."""
    run = RunFolder.open(source)
    splits = RunSplits.of(run, shares, options.split_seed)  # a run without dialogues is refused before anything is written
    if dry_run is not None:
        with staged_export(dry_run, "hub", overwrite, fixed_files=("data", CARD_FILE)) as staging:
            with open_dataset_dict(run, splits) as dataset_dict:
                options.configs = hub_configs(dataset_dict)
                for split, dataset in dataset_dict.items():
                    path = staging.folder / "data" / f"{split}-00000-of-00001.parquet"
                    path.parent.mkdir(parents=True, exist_ok=True)
                    dataset.to_parquet(str(path))
                _write_card(run, dataset_dict, options, staging.folder / CARD_FILE, dry_run / CARD_FILE)
            names = sorted(p.name for p in staging.folder.iterdir())
        files = [p for name in names for p in _files(dry_run / name)]
        return Published(repo_id, files)
    if not private and LICENSES.get(terms_source(run), ("",))[0] == "other":
        log.warning(
            "%s is built from %s data, whose terms restrict its use: consider --private "
            "(see the card's Licensing section)",
            repo_id,
            terms_source(run),
        )
    with open_dataset_dict(run, splits) as dataset_dict:
        return _push(run, dataset_dict, repo_id, private, options)


def hub_configs(dataset_dict: Any) -> list[dict[str, Any]]:
    """The card's `configs`: where each split's parquet shards lie in the repository, as push_to_hub writes them."""
    return [{"config_name": "default", "data_files": [{"split": s, "path": f"data/{s}-*"} for s in dataset_dict]}]


def _push(run: RunFolder, dataset_dict: Any, repo_id: str, private: bool, options: CardOptions) -> Published:
    from huggingface_hub import DatasetCard, get_token
    from huggingface_hub.errors import EntryNotFoundError, HfHubHTTPError

    token = get_token()
    if not token:
        raise SynthError(
            "no Hugging Face token: set HF_TOKEN to a write token (or run `hf auth login`), or use --dry-run"
        )
    try:
        dataset_dict.push_to_hub(repo_id, private=private, token=token, commit_message="synth: dialogues")
        try:  # push_to_hub has written or updated the card's dataset_info and configs: start from that card
            existing = DatasetCard.load(repo_id, repo_type="dataset", token=token)
        except EntryNotFoundError:
            existing = None
        card = build_card(run, _split_users(dataset_dict), options, existing)
        card.push_to_hub(repo_id, repo_type="dataset", token=token, commit_message="synth: dataset card")
    except HfHubHTTPError as exc:
        status = exc.response.status_code if exc.response is not None else "no answer"
        raise SynthError(
            f"the Hugging Face Hub refused the upload to {repo_id} ({status}): {exc.server_message or exc}"
        ) from None
    from huggingface_hub import constants

    return Published(repo_id, [], f"{constants.ENDPOINT}/datasets/{repo_id}")


def _write_card(run: RunFolder, dataset_dict: Any, options: CardOptions, path: Path, existing_path: Path) -> None:
    """The card at `path`, merged into the one a person may have edited at `existing_path`."""
    from huggingface_hub import DatasetCard

    existing = DatasetCard.load(existing_path) if existing_path.exists() else None
    build_card(run, _split_users(dataset_dict), options, existing).save(path)


def _split_users(dataset_dict: Any) -> dict[str, list[str]]:
    return {name: list(dataset["user_id"]) for name, dataset in dataset_dict.items()}
