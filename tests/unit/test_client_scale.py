"""The client-at-scale benchmark on a tiny run: the stub server answers a real `synth generate --backend openai`
on MovieLens with valid replies, counts every request, and the profiled run's CPU splits into stages."""

from synth.benchmarks.perf.client_scale import run, stub_server
from synth.benchmarks.perf.cpu_stages import STAGE_NAMES


def test_the_stub_answers_a_real_run_and_the_profile_splits_into_stages(tmp_path):
    with stub_server() as stub:
        row = run(stub, None, "bm25", 2, 3, tmp_path / "run", profile=tmp_path / "run.prof")
        again = stub.stats()
    assert row.dialogues == 3 and row.faults == 0
    assert row.requests >= 3 * 4 and again["requests"] >= row.requests  # each dialogue asks several turns
    assert row.window_s > 0 and row.client_cpu_s > 0 and 0 < row.stub_share < 1 and row.peak_rss_mib > 50
    assert set(row.stages) == set(STAGE_NAMES)
    assert row.stages["HTTP client"] > 0 and row.stages["retrieval"] > 0 and row.stages["checks"] > 0
