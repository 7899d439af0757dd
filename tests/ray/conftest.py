"""A real local Ray cluster for the tests here, started once with ray.init(num_cpus=2)."""

from __future__ import annotations

from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="the 'ray' extra is not installed")
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="package")
def cluster():
    """Workers import this repository's tests (the backends the tests define) through PYTHONPATH."""
    ray.init(num_cpus=2, include_dashboard=False, runtime_env={"env_vars": {"PYTHONPATH": str(REPO)}})
    yield ray
    ray.shutdown()
