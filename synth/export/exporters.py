"""`synth export` and `synth publish`: a run written as PEARL json, ReDial jsonl or a Hugging Face DatasetDict
with its card, locally or to the Hub."""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synth.errors import SynthError
from synth.export.card import LICENSES, CardOptions, build_card, data_source
from synth.export.hf import open_dataset_dict, save_dataset_dict
from synth.export.pearl import PEARL_FILE, export_pearl
from synth.export.redial import MOVIES_FILE, REDIAL_FILE, export_redial
from synth.runs.folder import RunFolder

log = logging.getLogger(__name__)
CARD_FILE = "README.md"
FORMATS = ("pearl", "redial", "hf")
OUTPUTS = {  # what each export writes, and so what --overwrite may replace
    "pearl": [PEARL_FILE],
    "redial": [REDIAL_FILE, MOVIES_FILE],
    "hf": ["dataset_dict.json"],
    "hub": ["data"],  # a --dry-run folder: the repository's parquet shards
}


@dataclass
class Published:
    repo_id: str
    files: list[Path]  # what was written locally: the dry-run folder's files, else nothing
    url: str | None = None  # the dataset's page once pushed


def export_run(
    source: Path, to: str, out_dir: Path, *, shares: dict[str, float], options: CardOptions, overwrite: bool = False
) -> list[Path]:
    """Write the run at `source` in format `to` into `out_dir`; returns the files written."""
    if to not in FORMATS:
        raise SynthError(f"unknown export format '{to}'; choose one of {', '.join(FORMATS)}")
    run = RunFolder.open(source)  # a missing run is named before anything earlier is removed
    _clear_outputs(out_dir, to, overwrite)
    if to == "pearl":
        return export_pearl(run, out_dir)
    if to == "redial":
        return export_redial(run, out_dir)
    with open_dataset_dict(run, shares, options.split_seed) as dataset_dict:
        files = save_dataset_dict(dataset_dict, out_dir)
        return sorted({*files, _write_card(run, dataset_dict, options, out_dir / CARD_FILE)})


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
    if dry_run is not None:
        _clear_outputs(dry_run, "hub", overwrite)
        with open_dataset_dict(run, shares, options.split_seed) as dataset_dict:
            options.configs = hub_configs(dataset_dict)
            files = []
            for split, dataset in dataset_dict.items():
                path = dry_run / "data" / f"{split}-00000-of-00001.parquet"
                path.parent.mkdir(parents=True, exist_ok=True)
                dataset.to_parquet(str(path))
                files.append(path)
            files.append(_write_card(run, dataset_dict, options, dry_run / CARD_FILE))
        return Published(repo_id, files)
    if not private and LICENSES.get(data_source(run), ("",))[0] == "other":
        log.warning(
            "%s is built from %s data, whose terms allow research use only: consider --private "
            "(see the card's Licensing section)",
            repo_id,
            data_source(run),
        )
    with open_dataset_dict(run, shares, options.split_seed) as dataset_dict:
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


def _write_card(run: RunFolder, dataset_dict: Any, options: CardOptions, path: Path) -> Path:
    from huggingface_hub import DatasetCard

    existing = DatasetCard.load(path) if path.exists() else None
    build_card(run, _split_users(dataset_dict), options, existing).save(path)
    return path


def _split_users(dataset_dict: Any) -> dict[str, list[str]]:
    return {name: list(dataset["user_id"]) for name, dataset in dataset_dict.items()}


def _clear_outputs(out_dir: Path, to: str, overwrite: bool) -> None:
    """Refuse to replace an earlier export's files unless `overwrite`; then remove only those (a card stays,
    to be merged, and files that are not synth's are never touched)."""
    earlier = [out_dir / name for name in OUTPUTS[to] if (out_dir / name).exists()]
    if to == "hf" and out_dir.is_dir():  # save_to_disk's split folders
        earlier += [p for p in out_dir.iterdir() if p.is_dir() and (p / "state.json").exists()]
    if earlier and not overwrite:
        raise SynthError(f"{out_dir} already holds an export ({earlier[0].name}): pass --overwrite to replace it")
    for path in earlier:
        shutil.rmtree(path) if path.is_dir() else path.unlink()
