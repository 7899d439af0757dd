"""A small run by the real embedded model, generated once and shared by the tests that read one.

A test that only needs a real run to read (stats, filter, export, report, benchmark training) takes
`smollm_run` rather than generating its own: every llama.cpp generation lengthens the suite.
Only tests of generation itself (determinism, dry run, resume after kill or Ctrl-C, retrievers, GoRecDial
mode) generate."""

import pytest

from tests.helpers import generate_smollm


@pytest.fixture(scope="session")
def smollm_run(tmp_path_factory):
    """A finished 2-dialogue run by the packaged SmolLM2-135M (seed 11), with --think (its recommender turns carry
    think texts, which the report shows on demand). Read it; copy it before changing it."""
    out = tmp_path_factory.mktemp("smollm")
    generate_smollm(out, "--think")
    return out
