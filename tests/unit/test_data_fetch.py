"""`synth data fetch | verify | list` and where the loaders look, against a local HTTP server on 127.0.0.1 that
serves the shared datasets under the registry's names ($SYNTH_DATA_MIRROR): a good fetch, a corrupted file, a
server that drops the connection mid-file, no server at all, and the error of a source that was not fetched.
Nothing here reaches the internet."""

import gzip
import hashlib
import io
import json
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from synth.data import fetch as data_fetch
from synth.data.bad_lines import BadLines
from synth.data.paths import shared_data_root
from synth.data.sources import load_review_format
from synth.errors import SynthError
from tests.helpers import FIXTURES, run_synth

SHARED = shared_data_root()
SERVED = {  # what the local server answers for /NAME/FILE
    "movielens-small/ml-latest-small.zip": lambda: (SHARED / "movielens-latest-small/ml-latest-small.zip").read_bytes(),
    "rt-critics/critics.csv": lambda: gzip.decompress((SHARED / "reviews-rt-critics-cs109/critics.csv.gz").read_bytes()),
    "redial/test_data.jsonl": lambda: (SHARED / "redial/test_data.jsonl").read_bytes(),
    "redial/movies_with_mentions.csv": lambda: (SHARED / "redial/movies_with_mentions.csv").read_bytes(),
}


@pytest.fixture
def mirror(monkeypatch, tmp_path):
    """The local server, its base URL in $SYNTH_DATA_MIRROR and an empty cache in $SYNTH_DATA_DIR. `state["faults"]`
    maps a path to "corrupt" (one byte changed) or "drop" (half the body, then the connection closed)."""
    state = {"faults": {}, "requests": []}
    bodies = {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            path = self.path.lstrip("/")
            state["requests"].append(path)
            if path not in SERVED:
                self.send_error(404)
                return
            body = bodies.setdefault(path, SERVED[path]())
            fault = state["faults"].get(path)
            if fault == "corrupt":
                body = body[:100] + bytes([body[100] ^ 1]) + body[101:]
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2] if fault == "drop" else body)
            if fault == "drop":
                self.close_connection = True

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    env = {"SYNTH_DATA_MIRROR": url, "SYNTH_DATA_DIR": str(tmp_path / "cache"), "SYNTH_SHARED_DATA": str(tmp_path / "none")}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    yield url, state, env
    server.shutdown()


def test_a_good_fetch_is_checked_kept_with_its_terms_and_not_downloaded_twice(mirror, tmp_path):
    url, state, _ = mirror
    paths = data_fetch.fetch("rt-critics") + data_fetch.fetch("movielens-small")
    assert [p.name for p in paths] == ["critics.csv", "ml-latest-small.zip"]
    source = json.loads((tmp_path / "cache/rt-critics/SOURCE.json").read_text())
    assert source["files"][0]["url"] == f"{url}/rt-critics/critics.csv" and "Research use only" in source["license"]
    assert [s.state for name in ("rt-critics", "movielens-small") for s in data_fetch.verify(name)] == ["ok", "ok"]
    data_fetch.fetch("rt-critics")
    assert state["requests"] == ["rt-critics/critics.csv", "movielens-small/ml-latest-small.zip"]


def test_a_corrupted_download_is_removed_and_says_so(mirror, tmp_path):
    _, state, _ = mirror
    state["faults"]["redial/movies_with_mentions.csv"] = "corrupt"
    with pytest.raises(SynthError, match="movies_with_mentions.csv: the download does not match its checksum sha256:0d40"):
        data_fetch.fetch("redial", retries=1)
    assert state["requests"].count("redial/movies_with_mentions.csv") == 2  # tried again once
    assert sorted(p.name for p in (tmp_path / "cache/redial").iterdir()) == ["test_data.jsonl"]  # nothing half-written


def test_an_archive_whose_members_differ_is_removed(mirror, tmp_path, monkeypatch):
    changed = io.BytesIO()
    with zipfile.ZipFile(SHARED / "movielens-latest-small/ml-latest-small.zip") as source, zipfile.ZipFile(changed, "w") as out:
        for member in source.namelist():
            data = source.read(member)
            out.writestr(member, data + b"1,1,5.0,0\n" if member.endswith("ratings.csv") else data)
    monkeypatch.setitem(SERVED, "movielens-small/ml-latest-small.zip", changed.getvalue)
    with pytest.raises(SynthError, match="ml-latest-small/ratings.csv does not match md5:325a"):
        data_fetch.fetch("movielens-small")
    assert not (tmp_path / "cache/movielens-small/ml-latest-small.zip").exists()


def test_an_unpinned_file_is_verified_against_the_sha256_it_was_received_with(mirror, tmp_path, monkeypatch):
    """Amazon Reviews 2023 has no checksum in the registry: fetch records the sha256 it received, verify checks the
    file against it, a file damaged since is fetched again, and the folder reads as --source amazon:NAME."""
    _, state, _ = mirror
    for name in ("All_Beauty.jsonl", "meta_All_Beauty.jsonl"):
        sample = gzip.compress((FIXTURES / "amazon2023" / name).read_bytes(), mtime=0)
        monkeypatch.setitem(SERVED, f"amazon-2023-all-beauty/{name}.gz", lambda sample=sample: sample)
    data_fetch.fetch("amazon-2023-all-beauty")
    folder = tmp_path / "cache/amazon-2023-all-beauty"
    received = [f["sha256_received"] for f in json.loads((folder / "SOURCE.json").read_text())["files"]]
    assert received[0] == "sha256:" + hashlib.sha256((folder / "All_Beauty.jsonl.gz").read_bytes()).hexdigest()
    assert [s.state for s in data_fetch.verify("amazon-2023-all-beauty")] == ["ok", "ok"]
    (folder / "All_Beauty.jsonl.gz").write_bytes(b"damaged")
    assert data_fetch.verify("amazon-2023-all-beauty")[0].state == f"does not match {received[0]}, recorded at fetch"
    data_fetch.fetch("amazon-2023-all-beauty")
    assert state["requests"].count("amazon-2023-all-beauty/All_Beauty.jsonl.gz") == 2  # the damaged one only
    assert state["requests"].count("amazon-2023-all-beauty/meta_All_Beauty.jsonl.gz") == 1
    assert [s.state for s in data_fetch.verify("amazon-2023-all-beauty")] == ["ok", "ok"]
    assert len(load_review_format("amazon", Path("amazon-2023-all-beauty"), BadLines()).reviews) == 20


def test_a_connection_dropped_mid_file_leaves_nothing_under_the_final_name(mirror, tmp_path):
    url, state, _ = mirror
    state["faults"]["rt-critics/critics.csv"] = "drop"
    with pytest.raises(SynthError, match=f"cannot download {url}/rt-critics/critics.csv .*fetch it by hand into"):
        data_fetch.fetch("rt-critics", retries=1)
    assert state["requests"] == ["rt-critics/critics.csv"] * 2
    assert list((tmp_path / "cache/rt-critics").iterdir()) == []
    state["faults"].clear()  # the server is well again: the same command gets it
    assert data_fetch.fetch("rt-critics")[0].stat().st_size == 3_985_456


def test_the_command_line_says_one_line_for_each_failure(mirror, tmp_path):
    _, state, env = mirror
    unknown = run_synth("data", "fetch", "imdb62", env=env)
    assert unknown.returncode == 2 and unknown.stderr == (
        "error: unknown dataset 'imdb62'; synth fetches: movielens-small, movielens-25m, movielens-32m, rt-critics, "
        "redial, inspired, iard, amazon-2023-all-beauty, goodreads-poetry\n")
    offline = run_synth("data", "fetch", "rt-critics", env={**env, "SYNTH_DATA_MIRROR": "http://127.0.0.1:9"})
    assert offline.returncode == 2
    assert offline.stderr.strip().splitlines()[-1].startswith(
        "error: cannot download http://127.0.0.1:9/rt-critics/critics.csv (ConnectionError); fetch it by hand into")
    assert "Traceback" not in offline.stderr
    fetched = run_synth("data", "fetch", "rt-critics", "--no-progress", env=env)
    assert fetched.returncode == 0, fetched.stderr
    assert "3,985,456 bytes; sha256:d90205c7" in fetched.stdout and "Research use only" in fetched.stdout
    assert run_synth("data", "verify", env=env).stdout == "rt-critics/critics.csv: ok\n"
    (tmp_path / "cache/rt-critics/critics.csv").write_text("critic,fresh\n")
    damaged = run_synth("data", "verify", "rt-critics", env=env)
    assert damaged.returncode == 2 and "run `synth data fetch rt-critics` again" in damaged.stderr


def test_a_source_that_was_not_fetched_names_the_fetch_and_the_option(mirror, tmp_path):
    _, _, env = mirror
    result = run_synth("generate", "--n", "1", "--source", "movielens+rt", "--out", "r", env=env, cwd=tmp_path)
    assert result.returncode == 2 and result.stderr == (
        "error: the movielens-small dataset is not here: run `synth data fetch movielens-small`, or point "
        "--movielens PATH at a copy you have\n")
    assert not (tmp_path / "r").exists()  # nothing written


@pytest.mark.integration
def test_fetch_then_generate_from_an_empty_folder(mirror, tmp_path):
    _, _, env = mirror
    work = tmp_path / "empty"
    work.mkdir()
    fetched = run_synth("data", "fetch", "movielens-small", "rt-critics", "--no-progress", env=env, cwd=work)
    assert fetched.returncode == 0, fetched.stderr
    result = run_synth("generate", "--n", "1", "--source", "movielens+rt", "--model", "packaged:smollm2-135m",
                       "--max-utterances", "2", "--no-progress", "--out", "run", env=env, cwd=work)
    assert result.returncode == 0, result.stderr
    manifest = json.loads((work / "run/manifest.json").read_text())
    assert manifest["counts"]["written"] == 1 and manifest["counts"]["rt_critics"] > 200


@pytest.mark.parametrize(("name", "says"), [
    ("redial-test", "error: the redial-test dataset is not here (no {shared}/redial/test_data.jsonl): run `synth "
                    "data fetch redial`, or set "
                    "SYNTH_SHARED_DATA to a folder holding redial/test_data.jsonl\n"),
    ("redial-train", "error: the redial-train dataset is not here and `synth data fetch` cannot get it (no public "
                     "copy is registered): put it at {shared}/redial/train_subset_kgsf_valid.jsonl (SYNTH_SHARED_DATA "
                     "moves the folder), or give the path of a copy\n"),
])
def test_a_named_set_that_is_not_here_stops_with_one_line_saying_how_to_get_it(tmp_path, name, says):
    env = {"SYNTH_DATA_DIR": str(tmp_path / "cache"), "SYNTH_SHARED_DATA": str(tmp_path / "shared")}
    result = run_synth("stats", name, "--no-similarity", "--no-progress", env=env, cwd=tmp_path)
    assert result.returncode == 2 and result.stderr == says.format(shared=tmp_path / "shared")
