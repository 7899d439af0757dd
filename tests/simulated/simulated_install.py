"""One documented install, simulated in the test environment (which has every extra): the distributions that
`pip install "synth-crs[EXTRAS]"` would bring, read from the installed packages' own metadata (Requires-Dist, with
markers and extras), stay; every other distribution is hidden, modules and metadata, as a new virtual environment
with that install would not have it: `importlib.util.find_spec` answers None, `import` raises ModuleNotFoundError
and `importlib.metadata` finds no such distribution."""

from __future__ import annotations

import importlib.machinery
import sys
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ALWAYS = {"pip", "setuptools", "wheel"}  # in every new virtual environment


def requirement_closure(project: str, extras: set[str]) -> set[str]:
    """The (canonical) names of the distributions an install of `project[extras]` brings, `project` included."""
    seen: set[tuple[str, frozenset[str]]] = set()
    todo = [(project, frozenset(extras))]
    while todo:
        name, wanted = todo.pop()
        if (canonicalize_name(name), wanted) in seen:
            continue
        seen.add((canonicalize_name(name), wanted))
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue  # not installed here (vllm): nothing below it is known
        for line in requires:
            requirement = Requirement(line)
            marker = requirement.marker
            if marker is None or any(marker.evaluate({"extra": extra}) for extra in wanted or {""}):
                todo.append((requirement.name, frozenset(requirement.extras)))
    return {name for name, _ in seen}


def hidden_modules(kept: set[str]) -> set[str]:
    """Top-level modules that only distributions outside `kept` provide."""
    return {module for module, dists in metadata.packages_distributions().items()
            if not any(canonicalize_name(d) in kept for d in dists)}


class _Hiding:
    """The path finder, blind to the hidden modules and distributions."""

    def __init__(self, finder: type, hidden: set[str], kept: set[str]) -> None:
        self.finder, self.hidden, self.kept = finder, hidden, kept

    def find_spec(self, name: str, path=None, target=None):  # noqa: ANN001 - the finder protocol
        spec = self.finder.find_spec(name, path, target)
        if spec is None or name.partition(".")[0] not in self.hidden:
            return spec
        # a copy a package ships inside itself (ray's own psutil) stays: only the hidden distribution's files go
        location = Path(spec.origin if spec.has_location else next(iter(spec.submodule_search_locations or []), ""))
        return None if "site-packages" in (location.parent.name, location.parent.parent.name) else spec

    def find_distributions(self, *args, **kwargs):  # noqa: ANN002, ANN003 - importlib.metadata's protocol
        for dist in self.finder.find_distributions(*args, **kwargs):
            if canonicalize_name(dist.metadata["Name"] or "") in self.kept:
                yield dist

    def invalidate_caches(self) -> None:
        self.finder.invalidate_caches()


def simulate(extras: str) -> None:
    """Hide every module the install of synth-crs[`extras`] (comma-separated; empty: the core) would not bring."""
    kept = requirement_closure("synth-crs", {e for e in extras.split(",") if e}) | ALWAYS
    hidden = hidden_modules(kept)
    for module in list(sys.modules):
        if module.partition(".")[0] in hidden:
            del sys.modules[module]  # nothing should have loaded yet; but be sure
    sys.meta_path[:] = [_Hiding(finder, hidden, kept) if finder is importlib.machinery.PathFinder else finder
                        for finder in sys.meta_path]
