"""The catalog, reviews and ratings that a run's configuration names (demo, MovieLens, files)."""

from __future__ import annotations

from synth.config import GenerateConfig
from synth.data.bad_lines import BadLines
from synth.data.sources import (
    SourceData,
    load_demo,
    load_files,
    load_movielens_only,
    load_movielens_personas,
    load_movielens_rt,
    load_rating_files,
)
from synth.domain import load_domain
from synth.errors import SynthError


def load_data(config: GenerateConfig) -> SourceData:
    """The catalog, reviews and ratings the configured source provides."""
    bad_lines = BadLines(skip=config.skip_bad_lines)
    source, domain = config.data_source, load_domain(config.domain)
    if source.startswith("movielens") and domain.name != "movies":
        raise SynthError(f"--source {source} holds movies, not {domain.plural}: give a source that fits ({domain.sources})")
    if source == "files":
        if not config.catalog or bool(config.reviews) == bool(config.ratings):
            raise SynthError(
                "--catalog goes with one of --reviews (texts) or --ratings (a ratings table): give the catalog and "
                "one of them, or none for the demo"
            )
        if config.ratings:
            data = load_rating_files(config.catalog, config.ratings, config.rating_scale, bad_lines)
        else:
            data = load_files(config.catalog, config.reviews, config.rating_scale, bad_lines)
    elif source == "movielens+rt":
        data = load_movielens_rt(config.movielens, config.rt_critics, bad_lines)
    elif source == "movielens" and config.mode == "pearl":
        data = load_movielens_personas(config.movielens, bad_lines)
    elif source == "movielens":
        data = load_movielens_only(config.movielens)
    else:
        data = load_demo(domain)
    data.counts["bad_lines_skipped"] = bad_lines.skipped
    return data
