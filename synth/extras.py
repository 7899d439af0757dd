"""synth's extras as its own package metadata declares them (pyproject.toml's optional dependencies), and which of
their distributions this environment has: installed at a version the requirement admits, and importable."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

PROJECT = "synth-crs"


@dataclass(frozen=True)
class Missing:
    """A requirement this environment does not meet: not installed, at another version, or not importable."""

    requirement: str
    why: str


@dataclass(frozen=True)
class ExtraStatus:
    """One extra (None: the core dependencies) and the requirements of it that are not met here."""

    name: str | None
    requirements: tuple[str, ...]
    missing: tuple[Missing, ...]

    @property
    def ok(self) -> bool:
        return not self.missing

    @property
    def fix(self) -> str:
        return f"pip install '{PROJECT}[{self.name}]'" if self.name else f"pip install --force-reinstall '{PROJECT}'"


def declared_extras() -> list[str]:
    """The extras synth declares, in pyproject.toml's order."""
    return list(metadata.metadata(PROJECT).get_all("Provides-Extra") or [])


def requirements_of(extra: str | None) -> list[Requirement]:
    """The requirements the core (None) or `extra` adds."""
    found = []
    for line in metadata.requires(PROJECT) or []:
        requirement = Requirement(line)
        marker = requirement.marker
        for_an_extra = marker is not None and "extra" in str(marker)
        if extra is None and not for_an_extra and (marker is None or marker.evaluate()):
            found.append(requirement)
        elif extra is not None and for_an_extra and marker.evaluate({"extra": extra}):
            found.append(requirement)
    return found


@lru_cache(maxsize=1)
def _modules_by_distribution() -> dict[str, list[str]]:
    modules: dict[str, list[str]] = {}
    for module, dists in metadata.packages_distributions().items():
        for dist in dists:
            modules.setdefault(canonicalize_name(dist), []).append(module)
    return modules


def _named(requirement: Requirement) -> str:
    extras = f"[{','.join(sorted(requirement.extras))}]" if requirement.extras else ""
    return f"{requirement.name}{extras}{requirement.specifier}"


def unmet(requirement: Requirement) -> Missing | None:
    """Why `requirement` is not met here, or None when it is."""
    try:
        version = metadata.version(requirement.name)
    except metadata.PackageNotFoundError:
        return Missing(_named(requirement), "not installed")
    if requirement.specifier and not requirement.specifier.contains(version, prereleases=True):
        return Missing(_named(requirement), f"{version} is installed")
    modules = [m for m in _modules_by_distribution().get(canonicalize_name(requirement.name), [])
               if not m.startswith("_")]
    broken = [m for m in modules if importlib.util.find_spec(m) is None]
    if broken:
        return Missing(_named(requirement), f"installed, but {', '.join(sorted(broken))} cannot be imported")
    return None


def extra_status(extra: str | None) -> ExtraStatus:
    """The core's (None) or `extra`'s requirements and which of them are not met here."""
    requirements = requirements_of(extra)
    missing = tuple(m for m in map(unmet, requirements) if m is not None)
    return ExtraStatus(extra, tuple(map(_named, requirements)), missing)
