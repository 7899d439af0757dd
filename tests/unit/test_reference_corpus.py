"""#64's reference corpus (data/corpora/movielens-rt): kept compressed in the repository, it reads as the run it
is, its manifest agrees with its records, and the benchmark maps its movies to MovieLens ids, so that any later
change can re-score it."""

from pathlib import Path

from synth.benchmarks.crs.datasets import load_dataset, parse_specs
from synth.benchmarks.crs.items import ItemSpace
from synth.runs.folder import RunFolder

CORPUS = Path(__file__).resolve().parents[2] / "data" / "corpora" / "movielens-rt"


def test_the_reference_corpus_reads_as_its_run_and_its_manifest_agrees():
    run = RunFolder.open(CORPUS)
    records = list(run.records())
    manifest = run.manifest
    assert manifest is not None and manifest.counts.written == len(records) == 300 and manifest.status == "finished"
    assert manifest.config["wording"] == "decided" and manifest.config["source"] == "movielens+rt"
    assert manifest.config["model"] == "packaged:qwen2.5-coder-1.5b" and manifest.config["seed"] == 64
    assert len({r.id for r in records}) == len(records)
    assert all(r.outcome.accepted_target for r in records) and manifest.counts.wrong_acceptances == 0
    assert all(t.content is not None for r in records for t in r.turns[r.scripted_turns:])  # decided, turn by turn
    assert all(r.target_item.id in run.items for r in records)


def test_the_benchmark_reads_every_dialogue_with_its_movies_in_movielens():
    dataset = load_dataset(parse_specs([f"generated={CORPUS}"])[0], ItemSpace.movielens())
    assert len(dataset.conversations) == RunFolder.open(CORPUS).manifest.counts.written
    mentioned = [item for c in dataset.conversations for u in c.utterances for item in u.items]
    assert mentioned and dataset.mapping.as_dict()["unmapped"] == 0  # its catalog is MovieLens
