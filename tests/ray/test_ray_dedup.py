"""`synth filter --ray` with `dedup`: the workers sketch, the driver runs one ordered pass, and the outputs equal
a local run's, on 600 real ReDial dialogues (three Ray Data ranges) whose replays cross range boundaries."""

from __future__ import annotations

import asyncio

import pytest

from synth.data.paths import shared_data_root
from synth.data.redial import load_redial
from synth.filters.config import FilterConfig
from synth.filters.pipeline import filter_run
from tests.helpers import write_run
from tests.unit.test_dedup import golden_records, paraphrase, real_utterances, with_utterances

REDIAL_TEST = shared_data_root() / "redial" / "test_data.jsonl"


@pytest.mark.skipif(not REDIAL_TEST.exists(), reason="the shared datasets are not beside the project")
def test_dedup_on_ray_drops_what_the_local_run_drops(cluster, tmp_path):
    skeleton = golden_records()[0]
    dialogues = load_redial(REDIAL_TEST)[:570]
    records = [with_utterances(skeleton, f"real-{i:03d}", real_utterances(d)) for i, d in enumerate(dialogues)]
    for i in range(30):  # a paraphrase of dialogue 3i+5, placed 7i+250 lines further on (in a later range)
        source = 3 * i + 5
        records.insert(source + 250 + 7 * i, with_utterances(skeleton, f"copy-{i:02d}", paraphrase(real_utterances(dialogues[source]))))
    run = write_run(tmp_path / "run", records)
    config = FilterConfig(filters=["dedup"])

    local = asyncio.run(filter_run(run, tmp_path / "local", config))
    on_ray = asyncio.run(filter_run(run, tmp_path / "ray", config, ray_address="auto", ray_workers=2))

    for name in ("dialogues.jsonl", "dropped.jsonl"):
        assert (tmp_path / "ray" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
    assert local.filters["dedup"].dropped == on_ray.filters["dedup"].dropped >= 30
    assert (local.dialogues, on_ray.dialogues) == (600, 600)
