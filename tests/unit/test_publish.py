"""`synth publish` end to end against a fake Hub: a real HTTP server that the real huggingface_hub and
datasets clients talk to (HF_ENDPOINT), so nothing of synth's own is replaced."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.fake_hub import FakeHub
from tests.helpers import run_synth

pytest.importorskip("datasets")

TOKEN = "hf_TestTokenThatMustNeverBePrinted0123"


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with FakeHub() as fake:
        yield fake


def hub_env(hub: FakeHub, tmp_path: Path, token: str | None = TOKEN) -> dict[str, str]:
    """A `synth` process pointed at the fake hub. huggingface_hub fetches its registry of agent harnesses from
    the endpoint at most once a day; a fresh cached copy keeps that library request off the fake hub, so every
    request the hub sees is one that synth made."""
    home = tmp_path / "hf-home"
    home.mkdir(exist_ok=True)
    (home / ".agent_harnesses.json").write_text(json.dumps({"standardEnvVars": [], "harnesses": {}}))
    return {**hub.env(tmp_path / "hf-cache"), "HF_HOME": str(home), "HF_TOKEN": token or ""}


def files_under(folder: Path) -> dict[Path, int]:
    """Every file under `folder` and when it was last written."""
    return {path: path.stat().st_mtime_ns for path in folder.rglob("*") if path.is_file()}


def card_metadata(readme: bytes) -> dict:
    return yaml.safe_load(readme.decode().split("---\n")[1])


def test_publish_pushes_the_splits_and_the_card_and_never_prints_the_token(scripted_run, hub, tmp_path):
    result = run_synth(
        "publish",
        str(scripted_run),
        "--repo-id",
        "me/dialogues",
        "--private",
        "--no-similarity",
        env=hub_env(hub, tmp_path),
    )
    assert result.returncode == 0, result.stderr
    assert TOKEN not in result.stdout + result.stderr
    assert "published me/dialogues" in result.stdout

    files = hub.files("me/dialogues")
    shards = sorted(path for path in files if path.endswith(".parquet"))
    assert [path.split("/")[1].split("-")[0] for path in shards] == ["test", "train", "validation"]
    assert hub.repos["me/dialogues"].private
    meta = card_metadata(files["README.md"])
    assert "dataset_info" in meta and meta["configs"][0]["config_name"] == "default"  # written by push_to_hub
    assert "synthetic" in meta["tags"] and meta["license"] == "apache-2.0"  # merged in by synth
    text = files["README.md"].decode()
    assert "<!-- synth:begin" in text and "## How it was generated" in text and TOKEN not in text
    authorised = [r for r in hub.requests if r.path.startswith(("/api/repos/", "/api/datasets/"))]
    assert authorised and all(r.headers.get("authorization") == f"Bearer {TOKEN}" for r in authorised)


def test_publishing_again_keeps_the_card_text_a_person_wrote_on_the_hub(scripted_run, hub, tmp_path):
    env = hub_env(hub, tmp_path)
    assert run_synth("publish", str(scripted_run), "--repo-id", "me/d", "--no-similarity", env=env).returncode == 0
    readme = hub.files("me/d")["README.md"].decode() + "\n## Citation\n\nCite the paper.\n"
    readme = readme.replace("license: apache-2.0", "license: cc-by-4.0")
    from huggingface_hub import HfApi

    HfApi(endpoint=hub.url, token=TOKEN).upload_file(
        path_or_fileobj=readme.encode(), path_in_repo="README.md", repo_id="me/d", repo_type="dataset"
    )
    assert run_synth("publish", str(scripted_run), "--repo-id", "me/d", "--no-similarity", env=env).returncode == 0
    again = hub.files("me/d")["README.md"].decode()
    assert card_metadata(again.encode())["license"] == "cc-by-4.0"
    assert again.rstrip().endswith("Cite the paper.") and again.count("<!-- synth:begin") == 1


def test_dry_run_writes_the_upload_locally_and_sends_nothing(scripted_run, hub, tmp_path):
    out = tmp_path / "upload"
    env = hub_env(hub, tmp_path, token=None)
    run_before, around_before = files_under(scripted_run), files_under(tmp_path)
    result = run_synth(
        "publish",
        str(scripted_run),
        "--repo-id",
        "me/d",
        "--dry-run",
        str(out),
        "--no-similarity",
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert [(r.method, r.path) for r in hub.requests] == []  # not one request reached the hub
    assert files_under(scripted_run) == run_before  # the run is read, never written
    assert {p: t for p, t in files_under(tmp_path).items() if out not in p.parents} == around_before
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert written == ["README.md", *(f"data/{s}-00000-of-00001.parquet" for s in ("test", "train", "validation"))]
    meta = card_metadata((out / "README.md").read_bytes())
    assert {f["split"] for f in meta["configs"][0]["data_files"]} == {"train", "validation", "test"}
    import datasets

    loaded = datasets.load_dataset("parquet", data_dir=str(out / "data"), cache_dir=str(tmp_path / "ds-cache"))
    assert sum(len(split) for split in loaded.values()) == 20


def test_publish_without_a_token_says_how_to_get_one(scripted_run, hub, tmp_path):
    result = run_synth(
        "publish", str(scripted_run), "--repo-id", "me/d", "--no-similarity", env=hub_env(hub, tmp_path, token=None)
    )
    assert result.returncode == 2 and "HF_TOKEN" in result.stderr and "--dry-run" in result.stderr
    assert not hub.repos
