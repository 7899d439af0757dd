"""The public datasets synth reads, as `synth data fetch` gets them: each one's official files (URL, checksum,
size) and the terms it is published under. Checksums are in pooch's form ("sha256:..." or "md5:..."); where
the publisher gives one (GroupLens's .md5 files) it is that one, else the sha256 of the file at the pinned
commit the URL names. A file whose checksum could not be taken from the machine synth is developed on (no
internet there) is *unpinned*: no checksum and no members; `fetch` records the sha256 it received in SOURCE.json
and `verify` checks the file against that."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RemoteFile:
    url: str
    name: str  # the file's name in the cache
    checksum: str | None  # pooch form; None: the members are checked instead (see `members`), or unpinned
    size: str  # as published or measured, e.g. "3,790,112 bytes" or "about 239 MB"
    members: tuple[tuple[str, str], ...] = ()  # (member path in the archive, "md5:...") checked after download

    @property
    def pinned(self) -> bool:
        """Whether the registry holds a checksum of the file or of its members (else: the one received at fetch)."""
        return self.checksum is not None or bool(self.members)


@dataclass(frozen=True)
class Dataset:
    name: str
    title: str
    files: tuple[RemoteFile, ...]
    license: str
    citation: str
    used_by: str  # which synth option reads it

    def file(self, name: str) -> RemoteFile:
        return next(f for f in self.files if f.name == name)


_GROUPLENS = "https://files.grouplens.org/datasets/movielens/"
_GROUPLENS_TERMS = (
    "GroupLens usage license: research use only, no commercial use without permission, cite Harper & Konstan "
    "(2015); redistribution only under these same terms."
)
# ml-latest-small's members, as GroupLens has published them since 2018-09-26 (the archive itself is
# re-packed by mirrors, so its members are checked, not its bytes)
_ML_SMALL_MEMBERS = (
    ("ml-latest-small/README.txt", "md5:9bc20a696092024abe52696ee6c5837f"),
    ("ml-latest-small/links.csv", "md5:316913f95cdad64c745ca22f3630e230"),
    ("ml-latest-small/movies.csv", "md5:ed94fab72b62442ef8150d9446e000d6"),
    ("ml-latest-small/ratings.csv", "md5:325a6f09399d1c45671f187505e1a100"),
    ("ml-latest-small/tags.csv", "md5:1b2d21a7be1cc23d327b11155a4a6aea"),
)
_REDIAL = "https://raw.githubusercontent.com/ReDialData/website/849e9eb1bb60e312f8bf4daa82fc10a285e9318b/"
_INSPIRED = "https://raw.githubusercontent.com/sweetpeach/Inspired/782d7c1845d11f75d2542809c7f2a51b63ef0304/data/"
_AMAZON_2023 = "https://mcauleylab.ucsd.edu/public_datasets/data/amazon_2023/raw/"
_AMAZON_2023_TERMS = (
    "Amazon Reviews 2023 (McAuley Lab, UC San Diego): released for research use; cite Hou et al. (2024); do not "
    "redistribute the reviews."
)
_GOODREADS = "https://datarepo.eng.ucsd.edu/mcauley_group/gdrive/goodreads/"
_GOODREADS_TERMS = (
    "UCSD Book Graph (Goodreads, scraped 2017): academic use only; do not redistribute. Cite Wan & McAuley (2018) "
    "and, for the reviews, Wan et al. (2019)."
)
_UNMEASURED = "size not measured here"

DATASETS: dict[str, Dataset] = {
    "movielens-small": Dataset(
        "movielens-small", "MovieLens ml-latest-small (100,836 ratings of 9,742 movies by 610 users)",
        (RemoteFile(_GROUPLENS + "ml-latest-small.zip", "ml-latest-small.zip", None, "about 1 MB",
                    _ML_SMALL_MEMBERS),),
        _GROUPLENS_TERMS, "Harper & Konstan, ACM TiiS 5(4):19, 2015", "--source movielens, movielens+rt (--movielens)",
    ),
    "movielens-25m": Dataset(
        "movielens-25m", "MovieLens 25M (25,000,095 ratings of 62,423 movies by 162,541 users)",
        (RemoteFile(_GROUPLENS + "ml-25m.zip", "ml-25m.zip", "md5:6b51fb2759a8657d3bfcbfc42b592ada",
                    "261,978,986 bytes"),),
        _GROUPLENS_TERMS, "Harper & Konstan, ACM TiiS 5(4):19, 2015", "--movielens PATH",
    ),
    "movielens-32m": Dataset(
        "movielens-32m", "MovieLens 32M (32,000,204 ratings of 87,585 movies by 200,948 users)",
        (RemoteFile(_GROUPLENS + "ml-32m.zip", "ml-32m.zip", "md5:d472be332d4daa821edc399621853b57",
                    "about 239 MB"),),
        _GROUPLENS_TERMS, "Harper & Konstan, ACM TiiS 5(4):19, 2015", "--movielens PATH",
    ),
    "rt-critics": Dataset(
        "rt-critics", "Rotten Tomatoes top-critic quotes on MovieLens movies (Harvard CS109 2013; 27,669 rows)",
        (RemoteFile("https://raw.githubusercontent.com/bfeeny/CS109-HW3/d07c733f29c55fcddd226fb613f3660e1b199294/"
                    "critics.csv", "critics.csv",
                    "sha256:d90205c77cc3ad9572afda8941eb8f3cbe11b0c19c416c0b8a3143b534417d79", "3,985,456 bytes"),),
        "No terms stated: excerpts of copyrighted reviews from the retired Rotten Tomatoes API, shared for a course. "
        "Research use only; do not redistribute.",
        "Harvard CS109 (2013), homework 3", "--source movielens+rt (--rt-critics)",
    ),
    "redial": Dataset(
        "redial", "ReDial test split (1,342 dialogues) and its movie list",
        (RemoteFile(_REDIAL + "test_data", "test_data.jsonl",
                    "sha256:d7781750787d104ac005e829cc7e6277d25b14644a223b0c2445aaaded6b19ac", "3,790,112 bytes"),
         RemoteFile(_REDIAL + "movies_with_mentions.csv", "movies_with_mentions.csv",
                    "sha256:0d408daa474ac95b959a739a261dddd997dd800f5ea585da15a434a26187dbb0", "226,703 bytes")),
        "CC BY 4.0.", "Li et al., NeurIPS 2018", "synth stats / report --compare / benchmark: redial-test",
    ),
    "inspired": Dataset(
        "inspired", "INSPIRED dev and test dialogues (99 + 99)",
        (RemoteFile(_INSPIRED + "dialog_data/dev.tsv", "dev.tsv",
                    "sha256:15a955be002222ba9e95f886802e06a91fb5e457f8a25deae3e7908d58faa947", "1,318,247 bytes"),
         RemoteFile(_INSPIRED + "dialog_data/test.tsv", "test.tsv",
                    "sha256:a10f63ff26045158460730d4829ffba74bee86fb744d9f48c1c1c511ef609993", "1,239,679 bytes")),
        "No license stated upstream: released for research with the paper; cite it.",
        "Hayati et al., EMNLP 2020", "synth stats / report --compare / benchmark: inspired-dev, inspired-test",
    ),
    "iard": Dataset(
        "iard", "IARD: 336 ReDial dialogues annotated with intents",
        (RemoteFile("https://raw.githubusercontent.com/wanlingcai1997/umap_2020_IARD/"
                    "021d2a8f333dacb8a0e61096dbec23a899bbd784/umap2020_IARD_Cai.json", "umap2020_IARD_Cai.json",
                    "sha256:aa7b9bad68765d80b653d716d124e561cc912437f23f9fa941e222361fb9883f", "2,136,923 bytes"),),
        "Research use, no commercial use without the authors' permission, redistribution under the same terms "
        "(the repository also carries an MIT license file).",
        "Cai & Chen, UMAP 2020", "synth acts (--iard), python -m synth.strategy.fit",
    ),
    # unpinned: no checksum of these could be taken here (see the module's docstring)
    "amazon-2023-all-beauty": Dataset(
        "amazon-2023-all-beauty", "Amazon Reviews 2023, All_Beauty (about 701.5K reviews of 112.6K products)",
        (RemoteFile(_AMAZON_2023 + "review_categories/All_Beauty.jsonl.gz", "All_Beauty.jsonl.gz", None, _UNMEASURED),
         RemoteFile(_AMAZON_2023 + "meta_categories/meta_All_Beauty.jsonl.gz", "meta_All_Beauty.jsonl.gz", None,
                    _UNMEASURED)),
        _AMAZON_2023_TERMS, "Hou et al., Bridging Language and Items for Retrieval and Recommendation, arXiv:2403.03952, "
        "2024", "--source amazon:amazon-2023-all-beauty",
    ),
    "goodreads-poetry": Dataset(
        "goodreads-poetry", "UCSD Goodreads, poetry (154,555 reviews of 36,514 books) and the authors' names",
        (RemoteFile(_GOODREADS + "byGenre/goodreads_reviews_poetry.json.gz", "goodreads_reviews_poetry.json.gz", None,
                    _UNMEASURED),
         RemoteFile(_GOODREADS + "byGenre/goodreads_books_poetry.json.gz", "goodreads_books_poetry.json.gz", None,
                    _UNMEASURED),
         RemoteFile(_GOODREADS + "goodreads_book_authors.json.gz", "goodreads_book_authors.json.gz", None, _UNMEASURED)),
        _GOODREADS_TERMS, "Wan & McAuley, RecSys 2018; Wan et al., ACL 2019", "--source goodreads:goodreads-poetry",
    ),
}
