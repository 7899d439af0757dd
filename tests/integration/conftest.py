"""A small run by the real embedded model, generated once and shared by the tests that read one."""

import pytest

from tests.helpers import generate_smollm


@pytest.fixture(scope="session")
def smollm_run(tmp_path_factory):
    """A finished 2-dialogue run by the packaged SmolLM2-135M. Read it; copy it before changing it."""
    out = tmp_path_factory.mktemp("smollm")
    generate_smollm(out)
    return out
