"""The catalog, reviews and ratings that a run's configuration names (demo, MovieLens, a public review format,
files)."""

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
    load_review_format,
    load_review_format_files,
)
from synth.domain import load_domain
from synth.errors import SynthError


def load_data(config: GenerateConfig) -> SourceData:
    """The catalog, reviews and ratings the configured source provides."""
    bad_lines = BadLines(skip=config.skip_bad_lines)
    source, domain = config.data_source, load_domain(config.domain_name)
    if source.startswith("movielens") and domain.name != "movies":
        raise SynthError(f"--source {source} holds movies, not {domain.plural}: give a source that fits ({domain.sources})")
    if config.source_format is not None:
        data = _review_format_files(config.source_format, config, bad_lines)
    elif source == "files":
        if not config.catalog or bool(config.reviews) == bool(config.ratings):
            raise SynthError(
                "--catalog goes with one of --reviews (texts) or --ratings (a ratings table): give the catalog and "
                "one of them, or none for the demo"
            )
        if config.ratings:
            data = load_rating_files(config.catalog, config.ratings, config.rating_scale, bad_lines)
        else:
            data = load_files(config.catalog, config.reviews, config.rating_scale, bad_lines)
    elif config.review_source is not None:
        data = load_review_format(*config.review_source, bad_lines, config.max_source_reviews)
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


def _review_format_files(name: str, config: GenerateConfig, bad_lines: BadLines) -> SourceData:
    """--catalog and --reviews read in the public format `name` (--format)."""
    if not config.catalog or not config.reviews or config.ratings or config.rating_scale:
        raise SynthError(
            f"--format {name} reads --catalog (the item file) and --reviews (the review file) on the "
            "format's own scale: give both, without --ratings or --rating-scale (or use --source FORMAT:DIR)"
        )
    return load_review_format_files(name, config.catalog, config.reviews, bad_lines, config.max_source_reviews)
