"""python -m synth.benchmarks.perf.review_formats: time and peak memory of reading a large Amazon Reviews 2023
category (synth.data.formats.amazon), with and without `max_source_reviews`, side by side in one run.

Writes a synthetic category of `--reviews` review lines and `--items` metadata lines in the published format
(every field of the real files, made-up words) into a temporary folder, then reads it in a fresh
process per setting, each reporting its own peak resident memory (ru_maxrss) and wall time: the whole file, and
the first N reviews for each `--cap`. The point is the shape: capped reads stay flat however large the file,
an uncapped read grows with the reviews it keeps.
"""

from __future__ import annotations

import json
import multiprocessing
import random
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from synth.data.bad_lines import BadLines
from synth.data.formats.amazon import amazon_files, load_amazon

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
console = Console(width=160)
WORDS = ("gentle scent lasts bottle hair skin soft smooth price value quality works great would buy again "
         "not worth small travel size dry oily mild clean fresh").split()


def write_category(folder: Path, reviews: int, items: int, seed: int = 0) -> tuple[Path, Path]:
    """`Synthetic.jsonl` and `meta_Synthetic.jsonl` in `folder`: items `B{i}`, reviews of Zipf-like items."""
    rng = random.Random(seed)
    review_path, meta_path = folder / "Synthetic.jsonl", folder / "meta_Synthetic.jsonl"
    with meta_path.open("w") as meta:
        for i in range(items):
            meta.write(json.dumps({
                "main_category": "All Beauty", "title": f"Brand{i % 500} Product {i} " + " ".join(rng.sample(WORDS, 6)),
                "average_rating": 4.2, "rating_number": 12, "features": [" ".join(rng.sample(WORDS, 8))] * 3,
                "description": [" ".join(rng.choices(WORDS, k=40))], "price": "12.99", "store": f"Brand{i % 500}",
                "categories": ["Beauty", "Hair Care"], "details": {"Brand": f"Brand{i % 500}"}, "parent_asin": f"B{i}",
            }) + "\n")
    with review_path.open("w") as out:
        for n in range(reviews):
            item = min(int(rng.paretovariate(1.2)) - 1, items - 1)
            out.write(json.dumps({
                "rating": float(rng.randint(1, 5)), "title": " ".join(rng.sample(WORDS, 3)),
                "text": " ".join(rng.choices(WORDS, k=35)), "images": [], "asin": f"B{item}", "parent_asin": f"B{item}",
                "user_id": f"U{rng.randrange(reviews // 4 + 1)}", "timestamp": 1588687728923 + n,
                "helpful_vote": 0, "verified_purchase": True,
            }) + "\n")
    return review_path, meta_path


def _read(folder: str, cap: int | None, results: Any) -> None:
    start = time.perf_counter()
    reviews, metadata = amazon_files(Path(folder))
    source = load_amazon(reviews, metadata, bad_lines=BadLines(skip=True), max_reviews=cap)
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    results.put((len(source.reviews), len(source.catalog), seconds, peak_mb))


def measure(folder: Path, cap: int | None) -> tuple[int, int, float, float]:
    """(reviews kept, items kept, seconds, peak RSS in MB) of one read in a fresh process."""
    context = multiprocessing.get_context("spawn")  # a fresh interpreter: its peak is this read's alone
    results = context.Queue()
    process = context.Process(target=_read, args=(str(folder), cap, results))
    process.start()
    found = results.get()
    process.join()
    return found


@app.command()
def main(
    reviews: int = typer.Option(2_000_000, help="Review lines to write."),
    items: int = typer.Option(200_000, help="Metadata lines to write."),
    cap: list[int] = typer.Option([10_000, 100_000], "--cap", help="max_source_reviews settings to read with."),
    whole: bool = typer.Option(True, help="Also read the whole file (no cap)."),
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        review_path, meta_path = write_category(folder, reviews, items)
        sizes = review_path.stat().st_size / 1e9, meta_path.stat().st_size / 1e9
        console.print(f"wrote {reviews:,} reviews ({sizes[0]:.2f} GB) and {items:,} items ({sizes[1]:.2f} GB) "
                      f"in {time.perf_counter() - start:.0f} s")
        table = Table("max_source_reviews", "reviews kept", "items kept", "seconds", "peak RSS (MB)")
        for setting in [*cap, *([None] if whole else [])]:
            kept, kept_items, seconds, peak = measure(folder, setting)
            table.add_row("none" if setting is None else f"{setting:,}", f"{kept:,}", f"{kept_items:,}",
                          f"{seconds:.1f}", f"{peak:.0f}")
        console.print(table)


if __name__ == "__main__":
    app()
