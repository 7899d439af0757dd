"""Near-duplicate dialogues: MinHash LSH (datasketch) over word shingles proposes earlier dialogues that may
say nearly the same thing; the Jaccard similarity of the two shingle sets, computed exactly on the pair,
decides. Streaming: dialogues come in order, each is compared with the kept ones before it, and the first
of a group is the one kept.

A dialogue's sketch (its shingle hashes and MinHash signature) is a pure function of its text, so it can be
computed anywhere (Ray workers) and added to one finder in order; the finder holds the LSH index and the
kept dialogues' shingle hashes, never their texts."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np
from datasketch import LeanMinHash, MinHash, MinHashLSH
from datasketch.hashfunc import sha1_hash32

from synth.records import DialogueRecord
from synth.replies import END_MARKER
from synth.tokens import word_runs

DEFAULT_THRESHOLD = 0.5  # Jaccard of 3-word shingles: about one word in ten changed (benchmarks/perf/dedup.py)
DEFAULT_SHINGLE = 3
DEFAULT_NUM_PERM = 64
SEED = 1  # datasketch's permutation seed: the same in every process, so sketches from any worker compare
SCHEME = "affine32"
# The index looks for candidates from a Jaccard this much below the threshold (64 permutations: 16 bands of
# 4), so that few pairs at the threshold are missed; each candidate costs one exact Jaccard.
LSH_MARGIN = 0.1
_HASH = np.dtype("<u4")  # shingle hashes and signatures travel as little-endian uint32


@dataclass(frozen=True)
class NearDuplicate:
    """A dialogue (`id`, dropped) that nearly repeats an earlier kept one (`kept_id`, the first of its
    group); `similarity` is the exact Jaccard similarity of their word-shingle sets."""

    id: str
    kept_id: str
    similarity: float


@dataclass(frozen=True)
class Sketch:
    """What the finder needs of one dialogue: its sorted, distinct shingle hashes (32-bit) and its MinHash
    signature."""

    shingles: np.ndarray
    signature: np.ndarray

    def to_bytes(self) -> bytes:
        """Signature then shingles, as little-endian uint32 (the signature's length is the finder's num_perm)."""
        return self.signature.astype(_HASH).tobytes() + self.shingles.astype(_HASH).tobytes()

    @classmethod
    def from_bytes(cls, data: bytes, num_perm: int) -> Sketch:
        values = np.frombuffer(data, dtype=_HASH).astype(np.uint32)
        return cls(shingles=values[num_perm:], signature=values[:num_perm])


def utterances_text(texts: Iterable[str]) -> str:
    """The utterances joined into the text that is compared, the end-of-dialogue marker left out."""
    return " ".join(text.replace(END_MARKER, " ").strip() for text in texts)


def dialogue_text(record: DialogueRecord) -> str:
    """The text compared: the model-written utterances (the game's scripted opening turns skipped), joined."""
    return utterances_text(turn.text for turn in record.turns[record.scripted_turns :])


def shingle_hashes(text: str, shingle: int = DEFAULT_SHINGLE) -> np.ndarray:
    """The sorted, distinct 32-bit hashes of the text's `shingle`-word shingles (lower-cased words; a text
    shorter than a shingle is one shingle; no words, no shingles)."""
    words = word_runs(text.lower())
    count = max(len(words) - shingle + 1, 1) if words else 0
    hashes = [sha1_hash32(" ".join(words[i : i + shingle]).encode()) for i in range(count)]
    return np.unique(np.array(hashes, dtype=np.uint32))


def sketch_text(text: str, shingle: int = DEFAULT_SHINGLE, num_perm: int = DEFAULT_NUM_PERM) -> Sketch:
    """The sketch of one text."""
    shingles = shingle_hashes(text, shingle)
    minhash = MinHash(num_perm=num_perm, seed=SEED, hashfunc=int, scheme=SCHEME)
    minhash.update_batch(shingles.tolist())
    return Sketch(shingles=shingles, signature=minhash.hashvalues.astype(np.uint32))


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """Jaccard similarity of two sorted, distinct hash arrays."""
    common = np.intersect1d(a, b, assume_unique=True).size
    union = a.size + b.size - common
    return common / union if union else 0.0


class NearDuplicateFinder:
    """Streaming: dialogues are added in order; each is checked against all earlier kept ones. A dialogue
    whose Jaccard similarity to a kept one reaches `threshold` is a near-duplicate of the most similar
    (the earliest among equals) and is not kept; any other is kept and indexed."""

    def __init__(
        self, threshold: float = DEFAULT_THRESHOLD, shingle: int = DEFAULT_SHINGLE, num_perm: int = DEFAULT_NUM_PERM
    ):
        if not 0 < threshold <= 1:
            raise ValueError(f"threshold must be in (0, 1], not {threshold}")
        self.threshold, self.shingle, self.num_perm = threshold, shingle, num_perm
        self.index = MinHashLSH(threshold=max(threshold - LSH_MARGIN, 0.05), num_perm=num_perm)
        self.kept_ids: list[str] = []  # LSH keys are positions here, so repeated ids are no problem
        self.kept_shingles: list[np.ndarray] = []

    def sketch(self, text: str) -> Sketch:
        """The sketch of `text` with this finder's settings."""
        return sketch_text(text, self.shingle, self.num_perm)

    def add(self, id: str, text: str) -> NearDuplicate | None:
        """Compare one dialogue with the kept ones: its near-duplicate record, or None (it is kept)."""
        return self.add_sketch(id, self.sketch(text))

    def add_sketch(self, id: str, sketch: Sketch) -> NearDuplicate | None:
        """As `add`, from a sketch made with the same shingle and num_perm (e.g. by a Ray worker)."""
        if len(sketch.signature) != self.num_perm:
            raise ValueError(f"a sketch of {len(sketch.signature)} permutations, this finder uses {self.num_perm}")
        if not sketch.shingles.size:
            return None  # nothing said: nothing to compare, nothing to index
        minhash = LeanMinHash(seed=SEED, hashvalues=sketch.signature, scheme=SCHEME)
        best, best_at = 0.0, -1
        for at in sorted(self.index.query(minhash)):
            similarity = jaccard(sketch.shingles, self.kept_shingles[at])
            if similarity > best:
                best, best_at = similarity, at
        if best >= self.threshold:
            return NearDuplicate(id=id, kept_id=self.kept_ids[best_at], similarity=best)
        self.index.insert(len(self.kept_ids), minhash, check_duplication=False)
        self.kept_ids.append(id)
        self.kept_shingles.append(sketch.shingles)
        return None


def near_duplicates(texts: Iterable[tuple[str, str]], **params: float) -> Iterator[NearDuplicate]:
    """The near-duplicates among (id, text) pairs taken in order; `params` are NearDuplicateFinder's."""
    finder = NearDuplicateFinder(**params)  # type: ignore[arg-type]
    for id, text in texts:
        found = finder.add(id, text)
        if found is not None:
            yield found
