"""The near-duplicate filter's two candidate methods, side by side in one run: MinHash LSH over word shingles
(synth.analysis.near_duplicates, what `--filters dedup` uses) and FAISS over MiniLM sentence embeddings.

The corpus: N dialogues (default 50,000) made from real ones. The base pool is the human sets in the shared
data (ReDial test and train subset, INSPIRED dev and test) plus any synth runs named with --run (their
model-written turns). Every base dialogue appears once as it is (half of a small corpus at most); the rest of the background is made of real
utterances drawn at random from the pool (so mostly distinct, with the small talk real dialogues share);
then P% planted copies of base dialogues, each a deterministic word-level paraphrase (swapped, inserted,
deleted and substituted words, a movie mention changed) at one of several edit rates, placed after its
source. Each method reads the corpus in order from a file, in its own process (its peak RSS is its own),
and keeps the first of each group; precision is the share of its drops that are planted copies of the
dialogue named as kept (or of that dialogue's source), recall the share of planted copies dropped.
Embedding with MiniLM on a CPU is slow (tens of dialogues a second), so FAISS reads a corpus of --faiss-n
dialogues (5,000) made the same way, and MinHash is measured on that one as well as on the big one.

    python -m synth.benchmarks.perf.dedup [--n 50000] [--faiss-n 5000] [--planted 0.05] [--run runs/demo]
"""

from __future__ import annotations

import json
import multiprocessing
import resource
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from synth.analysis.near_duplicates import (
    DEFAULT_NUM_PERM,
    DEFAULT_SHINGLE,
    DEFAULT_THRESHOLD,
    NearDuplicateFinder,
    utterances_text,
)
from synth.data.bad_lines import BadLines
from synth.data.inspired import load_inspired
from synth.data.paths import shared_dataset
from synth.data.redial import load_redial
from synth.errors import SynthError
from synth.filters.pipeline import resolve_input
from synth.runs.records import iter_records

app = typer.Typer(add_completion=False)
HUMAN_SETS = ("redial-test", "redial-train", "inspired-dev", "inspired-test")
EDIT_RATES = (0.02, 0.05, 0.1, 0.2, 0.3)  # share of a copy's words edited, one rate per planted copy in turn
FAISS_THRESHOLD = 0.9  # the highest-recall cosine with precision >= 0.95 on a calibration corpus (seed 1, n 2,000)
BATCH = 256  # dialogues embedded and searched together


@dataclass(frozen=True)
class Planted:
    source: str
    rate: float


def base_pool(runs: list[Path]) -> list[tuple[str, list[str]]]:
    """(id, utterances) of every real dialogue: the shared human sets found, and the runs' model-written turns."""
    pool: list[tuple[str, list[str]]] = []
    for name in HUMAN_SETS:
        path = shared_dataset(name)
        if path is None or not path.exists():
            continue
        skip = BadLines(skip=True)  # INSPIRED's dev file has a few unreadable rows
        loaded = load_redial(path, bad_lines=skip) if name.startswith("redial") else load_inspired(path, bad_lines=skip)
        pool += [(f"{name}:{d.id}", [t.text for t in d.turns]) for d in loaded]
    for run in runs:
        _, path = resolve_input(run, "synth")
        for found in iter_records(path):
            record = found.record
            pool.append((f"run:{record.id}", [turn.text for turn in record.turns[record.scripted_turns :]]))
    if not pool:
        raise SynthError("no real dialogues: the shared data is missing (set SYNTH_SHARED_DATA) and no --run was given")
    return pool


def paraphrase(text: str, rate: float, rng: np.random.Generator, vocabulary: list[str]) -> str:
    """`text` with about `rate` of its words edited (swap with the next word, insert, delete or substitute a
    word), and one movie mention (a ReDial @id or a year) changed when there is one."""
    words = text.split()
    for _ in range(max(1, round(rate * len(words)))):
        at, operation = int(rng.integers(len(words))), int(rng.integers(4))
        if operation == 0 and at + 1 < len(words):
            words[at], words[at + 1] = words[at + 1], words[at]
        elif operation == 1:
            words.insert(at, vocabulary[int(rng.integers(len(vocabulary)))])
        elif operation == 2 and len(words) > 1:
            del words[at]
        else:
            words[at] = vocabulary[int(rng.integers(len(vocabulary)))]
    mentions = [i for i, word in enumerate(words) if word.startswith("@") or _is_year(word.strip("().,?!"))]
    if mentions:
        at = mentions[int(rng.integers(len(mentions)))]
        words[at] = f"@{int(rng.integers(100_000, 999_999))}"
    return " ".join(words)


def _is_year(word: str) -> bool:
    return len(word) == 4 and word.isdigit() and word[:2] in ("19", "20")


def build_corpus(n: int, planted: float, seed: int, runs: list[Path], out: Path) -> dict[str, Planted]:
    """Write the corpus to `out` ({"id", "text"} per line, in stream order); returns the planted copies."""
    rng = np.random.default_rng(seed)
    pool = base_pool(runs)
    utterances = [u for _, turns in pool for u in turns]
    vocabulary = sorted({w for u in utterances[:20_000] for w in u.split()})
    lengths = [len(turns) for _, turns in pool]
    copies = int(n * planted)
    background = n - copies
    if len(pool) > background // 2:  # a small corpus: half of it real dialogues, the rest mixed
        pool = [pool[int(i)] for i in sorted(rng.choice(len(pool), background // 2, replace=False))]
    stream: list[tuple[float, str, str]] = []  # (position, id, text)
    order = rng.permutation(background)
    for (pid, turns), position in zip(pool, order[: len(pool)]):
        stream.append((float(position), pid, utterances_text(turns)))
    for number, position in enumerate(order[len(pool) :]):
        size = lengths[int(rng.integers(len(lengths)))]
        drawn = [utterances[int(i)] for i in rng.integers(len(utterances), size=size)]
        stream.append((float(position), f"mixed:{number}", utterances_text(drawn)))
    by_id = {pid: (pos, text) for pos, pid, text in stream[: len(pool)]}
    truth: dict[str, Planted] = {}
    pool_ids = [pid for pid, _ in pool]
    for number in range(copies):
        source = pool_ids[int(rng.integers(len(pool_ids)))]
        position, text = by_id[source]
        rate = EDIT_RATES[number % len(EDIT_RATES)]
        copy_id = f"copy:{number}"
        stream.append((float(rng.uniform(position, background)), copy_id, paraphrase(text, rate, rng, vocabulary)))
        truth[copy_id] = Planted(source, rate)
    stream.sort(key=lambda row: row[0])
    with out.open("w", encoding="utf-8") as handle:
        for _, pid, text in stream:
            handle.write(json.dumps({"id": pid, "text": text}) + "\n")
    return truth


def _rss_mib(field: str = "VmRSS") -> float:
    """This process's resident memory (VmRSS) or its peak since the last reset (VmHWM), from /proc; the
    lifetime peak (ru_maxrss) where /proc is not there."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _start_pass() -> tuple[float, float]:
    """Reset the peak RSS (Linux: clear_refs 5), so that the pass's own peak is measured; (RSS now, clock)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass
    return _rss_mib(), time.perf_counter()


def _texts(corpus: Path):
    with corpus.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            yield row["id"], row["text"]


def _minhash(corpus: Path, params: dict) -> tuple[list[tuple[str, str]], float, float]:
    finder, drops = NearDuplicateFinder(**params), []
    before, started = _start_pass()
    for pid, text in _texts(corpus):
        found = finder.add(pid, text)
        if found is not None:
            drops.append((found.id, found.kept_id))
    return drops, time.perf_counter() - started, before


def _faiss(corpus: Path, params: dict) -> tuple[list[tuple[str, str]], float, float]:
    """Stream in batches: each batch is searched against the kept dialogues before it, then within itself."""
    import faiss

    from synth.retrievers.embeddings import EmbeddingCache, SentenceEncoder

    with tempfile.TemporaryDirectory() as scratch:  # no cache hits: every text is embedded in the timed pass
        encoder = SentenceEncoder(cache=EmbeddingCache(Path(scratch) / "cache.sqlite"))
        encoder.encode_queries(["warm up"])
        index, kept_ids, drops = faiss.IndexFlatIP(encoder.dim), [], []
        before, started = _start_pass()
        batch: list[tuple[str, str]] = []
        for row in _texts(corpus):
            batch.append(row)
            if len(batch) == BATCH:
                _faiss_batch(batch, encoder, index, kept_ids, drops, params["threshold"])
                batch = []
        if batch:
            _faiss_batch(batch, encoder, index, kept_ids, drops, params["threshold"])
        return drops, time.perf_counter() - started, before


def _faiss_batch(batch, encoder, index, kept_ids, drops, threshold: float) -> None:
    vectors = encoder.encode_queries([text for _, text in batch])
    scores, found = index.search(vectors, 1) if index.ntotal else (np.zeros((len(batch), 1)), np.full((len(batch), 1), -1))
    fresh: list[int] = []
    for i, (pid, _) in enumerate(batch):
        best, kept = float(scores[i, 0]), (kept_ids[int(found[i, 0])] if found[i, 0] >= 0 else None)
        if fresh:
            within = vectors[fresh] @ vectors[i]
            if float(within.max()) > best:
                best, kept = float(within.max()), batch[fresh[int(within.argmax())]][0]
        if kept is not None and best >= threshold:
            drops.append((pid, kept))
        else:
            fresh.append(i)
    if fresh:
        index.add(vectors[fresh])
        kept_ids.extend(batch[i][0] for i in fresh)


METHODS = {"minhash": _minhash, "faiss": _faiss}


def _measure(method: str, corpus: str, params: dict, result: str) -> None:
    """In a child process: run one method over the corpus; write its drops and figures to `result`."""
    drops, seconds, before = METHODS[method](Path(corpus), params)
    figures = {"drops": drops, "seconds": seconds, "rss_before": before, "rss_peak": _rss_mib("VmHWM")}
    Path(result).write_text(json.dumps(figures))


def measure(method: str, corpus: Path, params: dict, scratch: Path) -> dict:
    """One method in a fresh (spawned) process."""
    result = scratch / f"{method}.json"
    child = multiprocessing.get_context("spawn").Process(target=_measure, args=(method, str(corpus), params, str(result)))
    child.start()
    child.join()
    if child.exitcode != 0:
        raise SynthError(f"the {method} measurement failed (exit code {child.exitcode})")
    return json.loads(result.read_text())


def score(drops: list[list[str]], truth: dict[str, Planted]) -> dict[str, float]:
    """Precision over the drops, recall over the planted copies, and recall per edit rate."""
    group = {copy_id: planted.source for copy_id, planted in truth.items()}
    right = [d for d, kept in drops if d in truth and group.get(kept, kept) == truth[d].source]
    caught = set(right)
    figures = {
        "dropped": len(drops),
        "precision": len(right) / len(drops) if drops else 1.0,
        "recall": len(caught) / len(truth) if truth else 0.0,
    }
    for rate in EDIT_RATES:
        copies = [c for c, p in truth.items() if p.rate == rate]
        figures[f"recall@{rate:g}"] = sum(c in caught for c in copies) / len(copies) if copies else 0.0
    return figures


@app.command()
def main(
    n: int = typer.Option(50_000, help="Dialogues in the corpus."),
    planted: float = typer.Option(0.05, min=0.0, max=0.5, help="Share of the corpus that is planted paraphrased copies."),
    run: Optional[list[Path]] = typer.Option(None, help="A synth run whose model-written dialogues join the base pool."),
    seed: int = typer.Option(0, help="Corpus seed."),
    threshold: float = typer.Option(DEFAULT_THRESHOLD, help="MinHash: Jaccard threshold."),
    shingle: int = typer.Option(DEFAULT_SHINGLE, help="MinHash: words per shingle."),
    num_perm: int = typer.Option(DEFAULT_NUM_PERM, help="MinHash: permutations."),
    faiss_threshold: float = typer.Option(FAISS_THRESHOLD, help="FAISS: cosine threshold."),
    faiss_n: int = typer.Option(
        5_000, help="FAISS reads a corpus of FAISS_N dialogues made the same way (MiniLM on a CPU embeds a few dozen "
        "a second; 0: skip); MinHash is measured on it too, so that the two compare on equal ground."
    ),
) -> None:
    """Print the near-duplicate benchmark table."""
    minhash = {"threshold": threshold, "shingle": shingle, "num_perm": num_perm}
    minhash_label, faiss_label = "minhash-lsh", "faiss+MiniLM"
    settings = (f"minhash-lsh: Jaccard >= {threshold} over {shingle}-word shingles, {num_perm} permutations; "
                f"faiss+MiniLM: flat inner-product index over all-MiniLM-L6-v2 embeddings, cosine >= {faiss_threshold}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="synth-dedup-bench-") as scratch_dir:
        scratch = Path(scratch_dir)
        corpus = scratch / "corpus.jsonl"
        truth = build_corpus(n, planted, seed, list(run or []), corpus)
        rows.append((minhash_label, n, score_row(measure("minhash", corpus, minhash, scratch), truth)))
        if 0 < faiss_n < n:  # a corpus of faiss_n dialogues made the same way, for both methods
            corpus = scratch / "small.jsonl"
            truth = build_corpus(faiss_n, planted, seed, list(run or []), corpus)
            rows.append((minhash_label, faiss_n, score_row(measure("minhash", corpus, minhash, scratch), truth)))
        if faiss_n:
            size = min(faiss_n, n)
            rows.append((faiss_label, size, score_row(measure("faiss", corpus, {"threshold": faiss_threshold}, scratch), truth)))
    print_table(rows, seed, planted, settings)


def score_row(figures: dict, truth: dict[str, Planted]) -> dict:
    return {**figures, **score(figures["drops"], truth), "copies": len(truth)}


def print_table(rows: list[tuple[str, int, dict]], seed: int, planted: float, settings: str) -> None:
    table = Table(
        title=f"near-duplicates: corpora of real dialogues with {planted:.0%} planted copies (seed {seed}); "
        "each method in its own process",
        title_justify="left",
        caption=f"{settings}. RSS in MiB, before the pass (imports, model) and its peak during the pass; r@X%: recall "
        "on the copies with X% of their words edited",
        caption_justify="left",
    )
    columns = ["method", "dialogues", "planted", "dialogues/s", "RSS before", "peak RSS", "dropped", "precision",
               "recall", *(f"r@{rate:.0%}" for rate in EDIT_RATES)]
    for column in columns:
        table.add_column(column, justify="left" if column == "method" else "right", overflow="fold")
    for label, size, found in rows:
        table.add_row(
            label, f"{size:,}", f"{found['copies']:,}", f"{size / found['seconds']:,.0f}", f"{found['rss_before']:,.0f}",
            f"{found['rss_peak']:,.0f}", f"{found['dropped']:,}", f"{found['precision']:.3f}", f"{found['recall']:.3f}",
            *(f"{found[f'recall@{rate:g}']:.3f}" for rate in EDIT_RATES),
        )
    console = Console(width=160)
    console.print(table)
    same_size = [found for _, size, found in rows if size == rows[-1][1]]
    if len(same_size) == 2 and rows[-1][0] != rows[0][0]:
        mine, theirs = same_size
        console.print(
            f"on the same {rows[-1][1]:,} dialogues, minhash-lsh against faiss+MiniLM: "
            # speed: how many times faster; memory: the share of faiss+MiniLM's peak RSS
            f"{theirs['seconds'] / mine['seconds']:,.0f}x the speed, {mine['rss_peak'] / theirs['rss_peak']:.2f}x the peak RSS"
        )


if __name__ == "__main__":
    app()
