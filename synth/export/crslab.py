"""A run in CRSLab's ReDial format (Zhou et al., 2021), as CRSLab 0.1.2's ReDialDataset reads it from
data/dataset/redial/nltk/ (the layout DistillRecDial's converter targets too): {train,valid,test}_data.json split
by user, each a JSON list of `{"conv_id": record id, "dialog": [{"utt_id", "role", "text", "movies", "entity",
"word"}]}`, one utterance per turn with text (turns empty after cleaning are left out), and the side files
KBRD, KGSF and the ReDial models read.

What synth fills, and how:
- `text`: the turn cleaned of synth's markup ([EOD], emphasis), each title of the dialogue's items replaced by its
  mention token "@<ReDial id>" (the ids of synth's ReDial export, synth.export.redial), then split into words,
  clitics ("do", "n't") and punctuation as nltk's word_tokenize does, case kept, as CRSLab's own ReDial data is.
- entities: every catalog item is a movie entity "<http://synth/item/ID>" (the catalog id, URL-escaped), every
  genre "<http://synth/genre/Name>" (spaces as underscores). entity2id.json numbers movies from 1 in ReDial-id
  order, then genres by name; 0 stays free, as it is CRSLab's pad_entity. `movies` names the items tagged in a
  turn, `entity` the genres it names (a genre's name as a whole word, any case, plural "s" allowed), each once.
- dbpedia_subkg.json: `{head id: [[relation id, tail id], ...]}` with every entity a head (so CRSLab gives each a
  self-loop, its relation 185), and one link, relation GENRE_RELATION (0), from a movie to each of its genres.
  CRSLab keeps a relation only when it has more than 1000 edges, counting both directions and self-loops: below
  about 1000 items the KG it builds is empty and KBRD's and KGSF's R-GCN cannot be built (the export warns).
- movie_ids.json: the entity ids of all catalog items. token2id.json: CRSLab's nltk vocabulary, __pad__,
  __start__, __end__, __unk__ (0-3), the training split's tokens in order of appearance, then _split_.
- `word` and concept2id.json: synth has no ConceptNet. A turn's words are its lower-cased content words (a small
  stop-word list removed) and its mention tokens, as CRSLab's ReDial words include them; concept2id.json
  numbers every catalog mention token, then every word of the export, from 1 (0 is pad_word).
  conceptnet_subkg.txt is empty: no word graph (KGSF's word GCN gets no edges but the self-loops it adds).
- synth_items.json (synth's own): movie entity -> catalog id, mention token and "Title (Year)", which
  synth.data.crslab uses to read titles back.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

from synth.data.crslab import CRSLAB_ITEMS_FILE
from synth.data.mentions import TitleTagger, clean_text, dialogue_items
from synth.export.coverage import MentionCoverage, mention_facts
from synth.export.redial import redial_ids
from synth.export.splits import RunSplits, SplitFiles
from synth.records import DialogueRecord, Item
from synth.runs.folder import RunFolder

log = logging.getLogger(__name__)

CRSLAB_PATTERN = "{split}_data.json"
TOKENS_FILE = "token2id.json"
ENTITIES_FILE = "entity2id.json"
ENTITY_KG_FILE = "dbpedia_subkg.json"
CONCEPTS_FILE = "concept2id.json"
CONCEPT_KG_FILE = "conceptnet_subkg.txt"
MOVIES_FILE = "movie_ids.json"
SPECIAL_TOKENS = ("__pad__", "__start__", "__end__", "__unk__")  # CRSLab's nltk special_token_idx: 0-3
SPLIT_TOKEN = "_split_"  # the last token of CRSLab's nltk vocabulary
VOCABULARY_SPLIT = "train"
GENRE_RELATION = 0  # CRSLab adds self-loops itself, as relation 185
CRSLAB_MIN_EDGES = 1000  # CRSLab's _entity_kg_process drops a relation with this many edges or fewer
ROLES = {"seeker": "Seeker", "recommender": "Recommender"}
STOP_WORDS = frozenset(
    "a about an and are as at be been but by can could did do does for from had has have he her him his how i if in "
    "into is it its just me my no not of on or our she so some than that the their them then there these they this "
    "to too us was we were what when which who will with would you your yes yeah ok okay oh hi hello hey also very "
    "really am any all more most much one get got".split()
)
_MENTION = r"@\d+"
_CLITIC = r"\w+(?=n['’]t\b)|n['’]t\b|['’](?:s|m|d|ll|re|ve)\b"  # "do" + "n't", "I" + "'m"
_TOKEN = re.compile(rf"{_MENTION}|{_CLITIC}|\w+(?:-\w+)*|\.\.+|\S", re.IGNORECASE)
_WORD = re.compile(rf"{_MENTION}|[^\W\d_][\w-]*")


def movie_entity(item_id: str) -> str:
    """The entity name of a catalog item."""
    return f"<http://synth/item/{quote(item_id, safe='')}>"


def genre_entity(genre: str) -> str:
    """The entity name of a genre."""
    return f"<http://synth/genre/{quote(genre.replace(' ', '_'), safe='')}>"


def tokenize(text: str) -> list[str]:
    """Words, clitics and punctuation, the way nltk's word_tokenize splits English; mention tokens kept whole."""
    return _TOKEN.findall(text)


class GenreFinder:
    """Finds the catalog's genres named in a text: a genre's words as whole words, any case, plural "s" allowed."""

    def __init__(self, genres: list[str]):
        patterns = {
            r"[\W_]+".join(map(re.escape, words)): genre for genre in genres if (words := re.findall(r"\w+", genre))
        }
        ordered = sorted(patterns, key=len, reverse=True)
        self._genres = [patterns[pattern] for pattern in ordered]
        alternatives = "|".join(f"(?P<g{n}>{pattern})" for n, pattern in enumerate(ordered))
        self._pattern = re.compile(rf"(?<!\w)(?:{alternatives})s?(?!\w)", re.IGNORECASE) if ordered else None

    def find(self, text: str) -> list[str]:
        """The genres named in `text`, each once, in order."""
        if self._pattern is None:
            return []
        found = (self._genres[int(m.lastgroup[1:])] for m in self._pattern.finditer(text))  # type: ignore[index]
        return list(dict.fromkeys(found))


def crslab_object(
    record: DialogueRecord,
    run: RunFolder,
    ids: dict[str, int],
    genres: GenreFinder,
    coverage: MentionCoverage | None = None,
) -> dict[str, Any]:
    """One conversation in CRSLab's fields."""
    items = dialogue_items(record, run.items)
    tagger = TitleTagger(items, run.domain.short_titles)
    dialog: list[dict[str, Any]] = []
    mentioned: set[str] = set()
    for turn in record.turns:
        text = clean_text(turn.text)
        if not text:
            continue
        tagged_text, mentions = tagger.tag(text, lambda item: f"@{ids[item]}")
        tagged = [mention.item for mention in mentions]
        if coverage is not None:
            coverage.add_utterance(text, items, mentions)
        mentioned.update(tagged)
        tokens = tokenize(tagged_text)
        dialog.append(
            {
                "utt_id": len(dialog),
                "role": ROLES[turn.role],
                "text": tokens,
                "movies": [movie_entity(item) for item in dict.fromkeys(tagged)],
                "entity": [genre_entity(genre) for genre in genres.find(tagged_text)],
                "word": list(dict.fromkeys(word for word in map(str.lower, tokens) if _is_concept(word))),
            }
        )
    if coverage is not None:
        coverage.add_dialogue(record.id, len(mentioned))
    return {"conv_id": record.id, "dialog": dialog}


def export_crslab(run: RunFolder, folder: Path, splits: RunSplits) -> dict[str, Any]:
    """Write the split files and the side files into `folder`; returns what the export's marker records (the
    mention coverage, and the KG's size and the relations CRSLab keeps of it)."""
    ids = redial_ids(run.items)
    catalog = sorted(ids, key=ids.__getitem__)
    genre_names = sorted({genre for item in run.items.values() for genre in item.genres})
    finder = GenreFinder(genre_names)
    vocabulary = dict.fromkeys(SPECIAL_TOKENS)
    concepts = dict.fromkeys(f"@{ids[item]}" for item in catalog)
    coverage = MentionCoverage(short_titles=run.domain.short_titles)
    with SplitFiles(folder, CRSLAB_PATTERN, splits.names) as files:
        for split, record in splits.records(run):
            conversation = crslab_object(record, run, ids, finder, coverage)
            for utterance in conversation["dialog"]:
                if split == VOCABULARY_SPLIT:
                    vocabulary.update(dict.fromkeys(utterance["text"]))
                concepts.update(dict.fromkeys(utterance["word"]))
            files.write(split, conversation)
    vocabulary.update({SPLIT_TOKEN: None})
    entities = [movie_entity(item) for item in catalog] + [genre_entity(genre) for genre in genre_names]
    entity_ids = {entity: number for number, entity in enumerate(dict.fromkeys(entities), start=1)}
    graph = _entity_graph(run.items, catalog, entity_ids)
    _write_json(folder / TOKENS_FILE, {token: number for number, token in enumerate(vocabulary)})
    _write_json(folder / ENTITIES_FILE, entity_ids)
    _write_json(folder / ENTITY_KG_FILE, graph)
    _write_json(folder / MOVIES_FILE, [entity_ids[movie_entity(item)] for item in catalog])
    _write_json(folder / CONCEPTS_FILE, {concept: number for number, concept in enumerate(concepts, start=1)})
    (folder / CONCEPT_KG_FILE).write_text("", encoding="utf-8")
    _write_json(
        folder / CRSLAB_ITEMS_FILE,
        {
            movie_entity(item): {"itemId": item, "mention": f"@{ids[item]}", "title": run.title(item)}
            for item in catalog
        },
    )
    return {"mentions": mention_facts(coverage), "entity_kg": _kg_facts(graph)}


def _is_concept(word: str) -> bool:
    return word not in STOP_WORDS and _WORD.fullmatch(word) is not None


def _entity_graph(items: dict[str, Item], catalog: list[str], entity_ids: dict[str, int]) -> dict[str, list[list[int]]]:
    """Every entity a head; each movie linked to its genres."""
    graph: dict[str, list[list[int]]] = {str(number): [] for number in entity_ids.values()}
    for item in catalog:
        genres = dict.fromkeys(entity_ids[genre_entity(genre)] for genre in items[item].genres)
        graph[str(entity_ids[movie_entity(item)])] = [[GENRE_RELATION, genre] for genre in genres]
    return graph


def _kg_facts(graph: dict[str, list[list[int]]]) -> dict[str, Any]:
    """The KG's size, and the relations CRSLab keeps of it (its edges counted as _entity_kg_process counts them)."""
    links = sum(len(tails) for tails in graph.values())
    edges = {"self-loop": len(graph), "genre": 2 * links}
    kept = [relation for relation, count in edges.items() if count > CRSLAB_MIN_EDGES]
    if not kept:
        log.warning(
            "CRSLab keeps only KG relations with more than %d edges; this export's KG (%d entities, %d genre "
            "links) has none, so KBRD and KGSF cannot build their R-GCN on it",
            CRSLAB_MIN_EDGES,
            len(graph),
            links,
        )
    return {"entities": len(graph), "genre_links": links, "relations_crslab_keeps": kept}


def _write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
