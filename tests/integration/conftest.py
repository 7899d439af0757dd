"""A small run by the real embedded model, generated once and shared by the tests that read one.

A test that only needs a real run to read (stats, filter, export, report, benchmark training) takes
`smollm_run` rather than generating its own: every llama.cpp generation lengthens the suite.
Only tests of generation itself (determinism, dry run, resume after kill or Ctrl-C, retrievers, GoRecDial
mode) generate."""

import pytest

from tests.helpers import SMOLLM_RUN_ARGS, generate_smollm


@pytest.fixture(scope="session")
def smollm_run(tmp_path_factory):
    """A finished 2-dialogue run by the packaged SmolLM2-135M (seed 11, SMOLLM_RUN_ARGS: --think, its recommender
    turns carry think texts, which the report shows on demand; 8 utterances after the opening, enough for every
    reader of it and a third less CI time than the default 12). Read it; copy it before changing it."""
    out = tmp_path_factory.mktemp("smollm")
    generate_smollm(out, *SMOLLM_RUN_ARGS)
    return out
