"""The per-user cache of public datasets (`synth data fetch`, `verify`) and where a loader finds one: the cache
($SYNTH_DATA_DIR, else $SYNTH_CACHE_DIR/data, else ~/.cache/synth/data), then the shared data folder
($SYNTH_SHARED_DATA, else ../shared/data). Downloads go through pooch: checksums, retries, and a temporary
file that takes the final name only once it is complete and checked."""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import BinaryIO

from synth.data.paths import MissingDataset, data_dir, shared_data_root
from synth.data.registry import DATASETS, Dataset, RemoteFile
from synth.errors import SynthError

MIRROR_ENV = "SYNTH_DATA_MIRROR"  # a base URL serving NAME/FILE in place of the official hosts (tests, mirrors)
SOURCE_FILE = "SOURCE.json"  # beside the files: where they came from and under which terms


def dataset(name: str) -> Dataset:
    """The registry entry called `name`; a SynthError listing the known names otherwise."""
    if name not in DATASETS:
        raise SynthError(f"unknown dataset {name!r}; synth fetches: {', '.join(DATASETS)}")
    return DATASETS[name]


def url_of(entry: Dataset, file: RemoteFile) -> str:
    """The file's official URL, or its place under $SYNTH_DATA_MIRROR."""
    mirror = os.environ.get(MIRROR_ENV)
    return f"{mirror.rstrip('/')}/{entry.name}/{file.name}" if mirror else file.url


def locate(name: str, file_name: str, shared: Path, option: str) -> Path:
    """The path of `file_name` of dataset `name`: in the cache, else at `shared` under the shared data folder;
    MissingDataset (one line: the fetch command, and the option that points at a copy) when in neither."""
    for path in (data_dir() / name / file_name, shared_data_root() / shared):
        if path.exists():
            return path
    raise MissingDataset(
        f"the {name} dataset is not here: run `synth data fetch {name}`, or point {option} PATH at a copy you have"
    )


def stream_digest(stream: BinaryIO, algorithm: str = "sha256") -> str:
    """The hex digest of what is left in `stream`, read in blocks (hashlib.file_digest needs Python 3.11)."""
    digest = hashlib.new(algorithm)
    for block in iter(lambda: stream.read(1 << 20), b""):
        digest.update(block)
    return digest.hexdigest()


def _matches(stream: BinaryIO, checksum: str) -> bool:
    """Whether the bytes of `stream` have `checksum` ("sha256:...", "md5:...")."""
    algorithm, expected = checksum.split(":", 1)
    return stream_digest(stream, algorithm) == expected


def sha256_of(path: Path) -> str:
    """'sha256:HEX' of the file at `path`, read in blocks."""
    with path.open("rb") as handle:
        return f"sha256:{stream_digest(handle)}"


def received_checksums(folder: Path) -> dict[str, str]:
    """The sha256 that `fetch` recorded in SOURCE.json for each unpinned file it received, by file name."""
    try:
        record = json.loads((folder / SOURCE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    files = record.get("files") if isinstance(record, dict) else None
    return {f["name"]: f["sha256_received"] for f in files or [] if isinstance(f, dict) and f.get("sha256_received")}


def _members_match(path: Path, file: RemoteFile) -> str | None:
    """None when every member named in the registry has its checksum; else what is wrong."""
    try:
        with zipfile.ZipFile(path) as archive:
            for member, checksum in file.members:
                with archive.open(member) as handle:
                    if not _matches(handle, checksum):
                        return f"{member} does not match {checksum}"
    except (zipfile.BadZipFile, KeyError) as exc:
        return f"not the expected archive ({exc})"
    return None


@dataclass(frozen=True)
class FileState:
    dataset: str
    file: str
    path: Path
    state: str  # "ok", "missing" or what does not match


def verify(name: str) -> list[FileState]:
    """Check each file of dataset `name` in the cache against its checksum (an unpinned file: against the sha256
    recorded when it was fetched)."""
    entry = dataset(name)
    received = received_checksums(data_dir() / name)
    states = []
    for file in entry.files:
        path = data_dir() / name / file.name
        if not path.exists():
            state = "missing"
        elif not file.pinned:
            recorded = received.get(file.name)
            if recorded is None:
                state = f"no checksum recorded in {SOURCE_FILE}"
            else:
                state = "ok" if sha256_of(path) == recorded else f"does not match {recorded}, recorded at fetch"
        elif file.checksum is not None:
            with path.open("rb") as handle:
                state = "ok" if _matches(handle, file.checksum) else f"does not match {file.checksum}"
        else:
            state = _members_match(path, file) or "ok"
        states.append(FileState(name, file.name, path, state))
    return states


def fetch(name: str, *, progress: bool = False, retries: int = 2) -> list[Path]:
    """Download the files of dataset `name` into the cache (files already there and intact are kept), check them,
    and write SOURCE.json beside them (with the sha256 received of each unpinned file, which `verify` checks). A
    file that does not match is removed; a download that fails leaves no file under the final name. Errors are
    one-line SynthErrors naming the URL."""
    import pooch
    import requests

    entry = dataset(name)
    folder = data_dir() / name
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SynthError(f"cannot create the data cache {folder}: {exc.strerror or exc}") from None
    cache = pooch.create(
        path=folder, base_url="", retry_if_failed=retries,
        registry={file.name: file.checksum for file in entry.files},
        urls={file.name: url_of(entry, file) for file in entry.files},
    )
    received = received_checksums(folder)
    paths = []
    for file in entry.files:
        url = url_of(entry, file)
        kept = folder / file.name
        if not file.pinned and kept.exists() and received.get(file.name) not in (None, sha256_of(kept)):
            kept.unlink()  # damaged since it was received: fetch it again
        try:
            path = Path(cache.fetch(file.name, progressbar=progress))
        except ValueError as exc:  # pooch: the hash does not match (the download is not kept)
            raise SynthError(f"{url}: the download does not match its checksum {file.checksum}; it was removed "
                             f"({str(exc).splitlines()[0]})") from None
        except requests.exceptions.RequestException as exc:
            raise SynthError(f"cannot download {url} ({type(exc).__name__}); fetch it by hand into {folder / file.name}"
                             ) from None
        except OSError as exc:  # a full disk, a folder that cannot be written
            raise SynthError(f"cannot write {folder / file.name}: {exc.strerror or exc}") from None
        if file.members and (problem := _members_match(path, file)) is not None:
            path.unlink()
            raise SynthError(f"{url}: {problem}; the download was removed")
        paths.append(path)
    record = {"name": entry.name, "title": entry.title, "license": entry.license, "citation": entry.citation,
              "fetched": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "files": [{**asdict(file), "url": url_of(entry, file), "members": dict(file.members)}
                        | ({} if file.pinned else {"sha256_received": sha256_of(path)})
                        for file, path in zip(entry.files, paths)]}
    (folder / SOURCE_FILE).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return paths
