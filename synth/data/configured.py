"""The catalog, reviews and ratings that a run's configuration names (demo, MovieLens, files)."""

from __future__ import annotations

from synth.config import GenerateConfig
from synth.data.bad_lines import BadLines
from synth.data.sources import SourceData, load_demo, load_files, load_movielens_only, load_movielens_rt
from synth.errors import SynthError


def load_data(config: GenerateConfig) -> SourceData:
    """The catalog, reviews and ratings the configured source provides."""
    bad_lines = BadLines(skip=config.skip_bad_lines)
    source = config.data_source
    if source == "files":
        if not (config.catalog and config.reviews):
            raise SynthError("--catalog and --reviews go together: give both, or neither for the demo")
        data = load_files(config.catalog, config.reviews, config.rating_scale, bad_lines)
    elif source == "movielens+rt":
        data = load_movielens_rt(config.movielens, config.rt_critics, bad_lines)
    elif source == "movielens":
        data = load_movielens_only(config.movielens)
    else:
        data = load_demo()
    data.counts["bad_lines_skipped"] = bad_lines.skipped
    return data
