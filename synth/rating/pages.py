"""`synth rate pages`: a rating round written to a folder: one self-contained HTML page per rater (its styles and
script inside, nothing fetched, progress kept in the browser, ratings saved as a JSON Lines download) and the key
beside the pages. A page is rendered from the items' turns alone: no source, path, id or model reaches it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from synth.analysis.stats.run import open_corpora
from synth.errors import SynthError
from synth.html_templates import page_environment
from synth.rating.items import BlindItem, blind_items, round_fingerprint, share_out, shown_dialogues
from synth.rating.key import KEY_FILE, Key, KeyItem, write_key
from synth.rating.protocols import Protocol
from synth.runs.atomic import write_text_atomic


@dataclass
class RoundOptions:
    protocol: Protocol
    criteria: dict[str, str]  # head to head: name -> question; defects: category -> description
    sample: int  # dialogues drawn per source (head to head: pairs per pair of sources, at most)
    raters: int
    overlap: float  # the share of the items every rater gets (for agreement)
    seed: int


@dataclass
class RoundSummary:
    key: Path
    pages: dict[str, Path]  # rater -> page
    items: int
    per_rater: int  # items on the fullest page
    shared: int  # items on every page


def write_round(specs: list[str], out: Path, options: RoundOptions) -> RoundSummary:
    """Draw the items from the datasets `specs` ('LABEL=PATH', 'PATH' or a shared set's name) and write the pages
    and the key into `out`; a folder that already holds a key is refused (its returned ratings need it)."""
    key_path = out / KEY_FILE
    if key_path.exists():
        raise SynthError(f"{key_path} exists: the ratings of that round need it; write the new round to another folder")
    corpora = open_corpora(specs, sample=options.sample, seed=options.seed)
    labels = [corpus.name for corpus in corpora]
    doubled = next((label for label in labels if labels.count(label) > 1), None)
    if doubled is not None:
        raise SynthError(f"two sources are called '{doubled}': name them apart as LABEL=PATH")
    items = blind_items(options.protocol, [shown_dialogues(corpus) for corpus in corpora], options.seed)
    if not items:
        raise SynthError(f"no dialogues to rate in {', '.join(specs)}")
    raters = [f"rater-{number}" for number in range(1, options.raters + 1)]
    pages, shared = share_out(items, raters, options.overlap, options.seed)
    round_id = round_fingerprint(options.protocol, options.criteria, items)
    out.mkdir(parents=True, exist_ok=True)
    template = page_environment("synth.rating").get_template("rate.html.j2")
    written = {}
    for rater, mine in pages.items():
        page = template.render(round=round_id, rater=rater, protocol=options.protocol, criteria=options.criteria,
                               items=[_page_item(item) for item in mine])
        written[rater] = out / f"{rater}.html"
        write_text_atomic(written[rater], page)
    key = Key(
        round=round_id, protocol=options.protocol, criteria=options.criteria,
        sources={corpus.name: str(corpus.path.resolve()) for corpus in corpora}, seed=options.seed,
        items={item.token: _key_item(item) for item in items},
        raters={rater: [item.token for item in mine] for rater, mine in pages.items()},
        overlap=[item.token for item in shared],
    )
    write_key(key, key_path)
    return RoundSummary(key_path, written, len(items), max(len(mine) for mine in pages.values()), len(key.overlap))


def _key_item(item: BlindItem) -> KeyItem:
    shown = item.dialogues
    return KeyItem(sources=[d.source for d in shown], dialogues=[d.dialogue for d in shown],
                   turns=[len(d.turns) for d in shown])


def _page_item(item: BlindItem) -> dict[str, object]:
    """What the page may show of an item: its opaque id and its dialogues' turns, nothing else."""
    return {"token": item.token, "dialogues": [dialogue.turns for dialogue in item.dialogues]}
