"""A small in-memory fake of the Hugging Face Hub HTTP API, served on 127.0.0.1 by a real HTTP server.

It answers what `huggingface_hub` 2.x (httpx2) and `datasets` need for `DatasetDict.push_to_hub`,
`DatasetCard.push_to_hub` / `HfApi.upload_file`, `hf_hub_download` / `DatasetCard.load` and `HfApi.whoami`:

- `GET /api/whoami-v2` (user "me"; 401 without a token), `POST /api/repos/create`, `POST /api/validate-yaml`;
- `GET /api/{type}s/{repo}[/revision/{rev}]` (repo info), `POST .../preupload/{rev}`, `POST .../commit/{rev}`
  (NDJSON: base64 `file`, `lfsFile`, `deletedFile`, `deletedFolder`), `POST .../paths-info/{rev}`,
  `GET .../tree/{rev}[/{path}]`;
- the LFS batch API `POST /[datasets/]{repo}.git/info/lfs/objects/batch` and single-part `PUT /__lfs/{oid}`;
- `GET|HEAD /[datasets/]{repo}/resolve/{rev}/{path}` with `Range` support.

Missing repos, revisions and files get 404 with the Hub's `X-Error-Code` (`RepoNotFound`, `RevisionNotFound`,
`EntryNotFound`), so `RepositoryNotFoundError` / `EntryNotFoundError` are raised client-side. Private repos look
missing to requests without an `Authorization` header. Only the `main` branch can be committed to (no PRs).

Pointing the libraries at the fake:

- Subprocess: pass `hub.env(cache_dir)` into its environment (`HF_ENDPOINT`, a throw-away `HF_HUB_CACHE`,
  `HF_HUB_DISABLE_XET=1`, offline flags off). `HF_ENDPOINT` is read at import time, so it must be set before start.
- In-process, `huggingface_hub`/`datasets` are usually imported already, and setting `HF_ENDPOINT` then is not
  enough: use `hub.patch(monkeypatch, cache_dir)`. It patches `huggingface_hub.constants.ENDPOINT`,
  `constants.HUGGINGFACE_CO_URL_TEMPLATE` (used by `hf_hub_url`, hence `hf_hub_download`/`DatasetCard.load`),
  `huggingface_hub.hf_api.api.endpoint` (the module-level `HfApi()` built at import, behind `upload_file` and
  `DatasetCard.push_to_hub`), `datasets.config.HF_ENDPOINT`/`HUB_DATASETS_URL` (`push_to_hub` builds
  `HfApi(endpoint=config.HF_ENDPOINT)`), `constants.HF_HUB_CACHE` and `constants.HF_HUB_DISABLE_XET`.

Xet: uploads go through Xet only when the `hf_xet` package is installed and `HF_HUB_DISABLE_XET` is unset; the fake
speaks only the legacy LFS protocol, hence `HF_HUB_DISABLE_XET=1` (a no-op while `hf_xet` is absent).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote, urlsplit

if TYPE_CHECKING:
    import pytest
    from typing_extensions import Self

_LFS_SUFFIXES = (".parquet", ".arrow", ".bin", ".safetensors", ".gguf", ".npy", ".pt", ".zip", ".gz")
_URL_PREFIX = {"dataset": "datasets/", "space": "spaces/", "model": ""}


def _git_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass(frozen=True)
class Blob:
    """A stored file: its bytes, and whether it was committed as an LFS pointer."""

    data: bytes
    lfs: bool

    @property
    def oid(self) -> str:
        """The id the Hub reports: sha256 for LFS files, the git blob sha1 otherwise."""
        return hashlib.sha256(self.data).hexdigest() if self.lfs else _git_sha1(self.data)


class HubError(Exception):
    """An error answer: HTTP status, the Hub's `X-Error-Code` (if any) and a message."""

    def __init__(self, status: int, message: str, code: str = "", headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.headers = status, code, headers or {}


@dataclass
class Repo:
    """One repository: its type, visibility and every commit's snapshot (sha -> path -> blob), oldest first."""

    repo_type: str
    private: bool
    commits: dict[str, dict[str, Blob]] = field(default_factory=dict)

    @property
    def head(self) -> str:
        return next(reversed(self.commits))

    def sha(self, revision: str) -> str:
        """The commit sha that `revision` ("main" or a commit sha) names."""
        sha = self.head if revision == "main" else revision
        if sha not in self.commits:
            raise HubError(404, f"Invalid rev id: {revision}", "RevisionNotFound")
        return sha

    def snapshot(self, revision: str) -> dict[str, Blob]:
        return self.commits[self.sha(revision)]


@dataclass(frozen=True)
class Request:
    """One recorded request; header names are lower-cased, `json` is the parsed body when it is JSON."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body_size: int
    json: Any = None


Answer = tuple[int, dict[str, str], bytes]


def _json(payload: Any, status: int = 200, content_type: str = "application/json") -> Answer:
    return status, {"Content-Type": content_type}, json.dumps(payload).encode()


class FakeHub:
    """The fake Hub: `with FakeHub() as hub:` serves it at `hub.url` until the block ends."""

    def __init__(self, user: str = "me") -> None:
        self.user = user
        self.url = ""
        self.requests: list[Request] = []
        self.repos: dict[str, Repo] = {}
        self._lfs: dict[str, bytes] = {}
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    def __enter__(self) -> Self:
        handler = type("Handler", (_Handler,), {"hub": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    def files(self, repo_id: str, revision: str = "main") -> dict[str, bytes]:
        """The files of `repo_id` at `revision` (a commit sha or "main"), path -> bytes."""
        return {path: blob.data for path, blob in self.repos[repo_id].snapshot(revision).items()}

    def env(self, cache_dir: Path) -> dict[str, str]:
        """Environment variables that point a fresh process at this hub."""
        return {
            "HF_ENDPOINT": self.url,
            "HF_HUB_CACHE": str(cache_dir),
            "HF_HUB_DISABLE_XET": "1",
            "HF_HUB_OFFLINE": "0",
            "HF_DATASETS_OFFLINE": "0",
            "HF_HUB_DISABLE_TELEMETRY": "1",
        }

    def patch(self, monkeypatch: pytest.MonkeyPatch, cache_dir: Path) -> None:
        """Point the already imported `huggingface_hub` (and `datasets`, if installed) at this hub."""
        from huggingface_hub import constants, hf_api

        for name, value in self.env(cache_dir).items():
            monkeypatch.setenv(name, value)
        monkeypatch.setattr(constants, "ENDPOINT", self.url)
        template = self.url + "/{repo_id}/resolve/{revision}/{filename}"
        monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", template)
        monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache_dir))
        monkeypatch.setattr(constants, "HF_HUB_DISABLE_XET", True)
        monkeypatch.setattr(hf_api.api, "endpoint", self.url)
        try:
            from datasets import config
        except ImportError:
            return
        monkeypatch.setattr(config, "HF_ENDPOINT", self.url)
        monkeypatch.setattr(config, "HUB_DATASETS_URL", self.url + "/datasets/{repo_id}/resolve/{revision}/{path}")

    # ---- request handling -------------------------------------------------------------------------------------

    def handle(self, method: str, target: str, headers: dict[str, str], body: bytes) -> Answer:
        """Record one request and answer it."""
        split = urlsplit(target)
        query = parse_qs(split.query)
        content_type = headers.get("content-type", "")
        try:
            data = json.loads(body) if "json" in content_type and "ndjson" not in content_type else None
        except ValueError:
            data = None
        self.requests.append(Request(method, unquote(split.path), query, headers, len(body), data))
        segments = [unquote(s) for s in split.path.strip("/").split("/")]
        authorized = headers.get("authorization", "").startswith("Bearer ")
        try:
            with self._lock:
                return self._route(method, segments, query, headers, body, authorized)
        except HubError as err:
            status, answer_headers, payload = _json({"error": str(err)}, err.status)
            code = {"X-Error-Code": err.code} if err.code else {}
            return status, {**answer_headers, **code, "X-Error-Message": str(err), **err.headers}, payload
        except (KeyError, IndexError, TypeError, ValueError) as err:  # malformed: 400, not retried (500 would be)
            return _json({"error": f"The fake hub could not handle {method} {split.path}: {err!r}"}, 400)

    def _route(
        self,
        method: str,
        seg: list[str],
        query: dict[str, list[str]],
        headers: dict[str, str],
        body: bytes,
        authorized: bool,
    ) -> Answer:
        if seg == ["api", "whoami-v2"]:
            if not authorized:
                raise HubError(401, "Invalid credentials in Authorization header")
            return _json(
                {
                    "type": "user",
                    "name": self.user,
                    "fullname": self.user,
                    "orgs": [],
                    "auth": {"type": "access_token", "accessToken": {"displayName": "fake", "role": "write"}},
                }
            )
        if seg == ["api", "validate-yaml"]:
            return _json({"errors": [], "warnings": []})
        if seg == ["api", "repos", "create"] and method == "POST":
            return self._create(json.loads(body), authorized)
        if seg[:1] == ["__lfs"] and method == "PUT":
            if hashlib.sha256(body).hexdigest() != seg[1]:
                raise HubError(400, "Uploaded bytes do not match the LFS oid")
            self._lfs[seg[1]] = body
            return 200, {}, b""
        if seg[0] == "api" and len(seg) >= 4 and seg[1] in ("models", "datasets", "spaces"):
            repo_id = f"{seg[2]}/{seg[3]}"
            repo = self._repo(seg[1][:-1], repo_id, authorized)
            action = seg[4] if len(seg) > 4 else ""
            rev = seg[5] if len(seg) > 5 else "main"
            if action in ("", "revision") and method == "GET":
                return self._info(repo_id, repo, rev)
            if action == "preupload" and method == "POST":
                return self._preupload(repo, rev, json.loads(body))
            if action == "commit" and method == "POST":
                return self._commit(repo_id, repo, rev, body, query)
            if action == "paths-info" and method == "POST":
                paths = parse_qs(body.decode()).get("paths", [])
                return _json(_entries(repo.snapshot(rev), paths=paths))
            if action == "tree" and method == "GET":
                recursive = query.get("recursive", ["False"])[0].lower() == "true"
                return _json(_entries(repo.snapshot(rev), folder="/".join(seg[6:]), recursive=recursive))
        repo_type = {"datasets": "dataset", "spaces": "space"}.get(seg[0], "model")
        rest_seg = seg[1:] if repo_type != "model" else seg
        if rest_seg[2:] == ["info", "lfs", "objects", "batch"] and rest_seg[1].endswith(".git"):
            self._repo(repo_type, f"{rest_seg[0]}/{rest_seg[1][:-4]}", authorized)
            return self._lfs_batch(json.loads(body))
        if len(rest_seg) >= 5 and rest_seg[2] == "resolve" and method in ("GET", "HEAD"):
            repo = self._repo(repo_type, f"{rest_seg[0]}/{rest_seg[1]}", authorized)
            return self._resolve(repo, rest_seg[3], "/".join(rest_seg[4:]), headers.get("range"))
        raise HubError(404, f"The fake hub does not serve {method} /{'/'.join(seg)}")

    def _repo(self, repo_type: str, repo_id: str, authorized: bool) -> Repo:
        repo = self.repos.get(repo_id)
        if repo is None or repo.repo_type != repo_type or (repo.private and not authorized):
            raise HubError(404, "Repository not found", "RepoNotFound")
        return repo

    def _create(self, payload: dict[str, Any], authorized: bool) -> Answer:
        if not authorized:
            raise HubError(401, "Invalid username or password.")
        repo_type = payload.get("type") or "model"
        repo_id = f"{payload.get('organization') or self.user}/{payload['name']}"
        url = f"{self.url}/{_URL_PREFIX[repo_type]}{repo_id}"
        if repo_id in self.repos:
            return _json({"error": f"You already created this {repo_type} repo", "url": url}, 409)
        private = payload.get("visibility", "private" if payload.get("private") else "public") == "private"
        self.repos[repo_id] = Repo(repo_type, private, {_new_sha(): {}})
        return _json({"url": url, "name": repo_id, "id": uuid.uuid4().hex})

    def _info(self, repo_id: str, repo: Repo, revision: str) -> Answer:
        sha = repo.sha(revision)
        return _json(
            {
                "id": repo_id,
                "author": repo_id.split("/")[0],
                "sha": sha,
                "private": repo.private,
                "disabled": False,
                "gated": False,
                "siblings": [{"rfilename": p} for p in sorted(repo.commits[sha])],
            }
        )

    def _preupload(self, repo: Repo, revision: str, payload: dict[str, Any]) -> Answer:
        snapshot = repo.snapshot(revision)
        answers = []
        for item in payload["files"]:
            lfs = item["path"].endswith(_LFS_SUFFIXES) or b"\0" in base64.b64decode(item["sample"])
            old = snapshot.get(item["path"])
            oid = Blob(old.data, lfs).oid if old else None
            answers.append(
                {"path": item["path"], "uploadMode": "lfs" if lfs else "regular", "shouldIgnore": False, "oid": oid}
            )
        return _json({"files": answers, "commitOid": repo.head})

    def _lfs_batch(self, payload: dict[str, Any]) -> Answer:
        objects = []
        for obj in payload["objects"]:
            entry = {"oid": obj["oid"], "size": obj["size"], "authenticated": True}
            if obj["oid"] not in self._lfs:
                entry["actions"] = {"upload": {"href": f"{self.url}/__lfs/{obj['oid']}", "header": {}}}
            objects.append(entry)
        return _json({"transfer": "basic", "objects": objects}, content_type="application/vnd.git-lfs+json")

    def _commit(self, repo_id: str, repo: Repo, revision: str, body: bytes, query: dict[str, list[str]]) -> Answer:
        if revision != "main" or query.get("create_pr"):
            raise HubError(400, "The fake hub only commits to main (no branches, no pull requests)")
        files = dict(repo.commits[repo.head])
        for line in body.decode().splitlines():
            item = json.loads(line)
            key, value = item["key"], item["value"]
            if key == "header" and value.get("parentCommit") not in (None, repo.head):
                raise HubError(412, "A commit has happened since. Please refresh and try again.")
            if key == "file":
                files[value["path"]] = Blob(base64.b64decode(value["content"]), lfs=False)
            elif key == "lfsFile":
                if value["oid"] not in self._lfs:
                    raise HubError(400, f"LFS file {value['oid']} was never uploaded")
                files[value["path"]] = Blob(self._lfs[value["oid"]], lfs=True)
            elif key == "deletedFile":
                if files.pop(value["path"], None) is None:
                    raise HubError(404, "A file with this name doesn't exist", "EntryNotFound")
            elif key == "deletedFolder":
                files = {p: b for p, b in files.items() if not p.startswith(value["path"].rstrip("/") + "/")}
        sha = _new_sha()
        repo.commits[sha] = files
        url = f"{self.url}/{_URL_PREFIX[repo.repo_type]}{repo_id}/commit/{sha}"
        return _json({"success": True, "commitOid": sha, "commitUrl": url, "pullRequestUrl": None})

    def _resolve(self, repo: Repo, revision: str, path: str, range_header: str | None) -> Answer:
        sha = repo.sha(revision)
        blob = repo.commits[sha].get(path)
        if blob is None:
            raise HubError(404, "Entry not found", "EntryNotFound", {"X-Repo-Commit": sha})
        headers = {
            "X-Repo-Commit": sha,
            "ETag": f'"{blob.oid}"',
            "Accept-Ranges": "bytes",
            "Content-Type": "application/octet-stream",
        }
        match = re.fullmatch(r"bytes=(\d+)-(\d*)", range_header or "")
        if not match:
            return 200, headers, blob.data
        start, end = int(match[1]), min(int(match[2] or len(blob.data) - 1), len(blob.data) - 1)
        if start > end:
            raise HubError(416, "Range not satisfiable", headers={"Content-Range": f"bytes */{len(blob.data)}"})
        return 206, {**headers, "Content-Range": f"bytes {start}-{end}/{len(blob.data)}"}, blob.data[start : end + 1]


def _new_sha() -> str:
    return hashlib.sha1(uuid.uuid4().bytes).hexdigest()


def _entries(
    snapshot: dict[str, Blob], folder: str = "", recursive: bool = False, paths: list[str] | None = None
) -> list[dict[str, Any]]:
    """Tree entries (files and folders) under `folder`, or those named in `paths` (paths-info)."""
    folders = {"/".join(p.split("/")[:i]) for p in snapshot for i in range(1, p.count("/") + 1)}
    if paths is not None:
        chosen = [p for p in paths if p in snapshot or p in folders]
    else:
        if folder and folder not in folders:
            raise HubError(404, f"{folder} does not exist", "EntryNotFound")
        prefix = folder + "/" if folder else ""
        chosen = sorted(
            p
            for p in snapshot.keys() | folders
            if p.startswith(prefix) and p != folder and (recursive or "/" not in p[len(prefix) :])
        )
    out: list[dict[str, Any]] = []
    for path in chosen:
        if path in folders:
            out.append({"type": "directory", "path": path, "oid": hashlib.sha1(path.encode()).hexdigest(), "size": 0})
            continue
        blob = snapshot[path]
        entry = {"type": "file", "path": path, "size": len(blob.data), "oid": _git_sha1(blob.data)}
        if blob.lfs:
            entry["lfs"] = {"oid": blob.oid, "size": len(blob.data), "pointerSize": 134}
        out.append(entry)
    return out


class _Handler(BaseHTTPRequestHandler):
    """Reads a request (plain or chunked body), hands it to `hub.handle` and writes the answer."""

    hub: FakeHub

    def _serve(self) -> None:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while size := int(self.rfile.readline().split(b";")[0], 16):
                body += self.rfile.read(size)
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {name.lower(): value for name, value in self.headers.items()}
        status, answer_headers, payload = self.hub.handle(self.command, self.path, headers, body)
        self.send_response(status)
        for name, value in {**answer_headers, "Content-Length": str(len(payload))}.items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = _serve

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: requests are recorded in `hub.requests` instead."""
