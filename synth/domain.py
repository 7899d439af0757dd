"""The domain profile: what the items are (movies, books, products, restaurants) and how prompts and scripted
lines speak of them. Every prompt template is written once over the profile (synth.prompting renders the
profile into the template text before the template is compiled); the built-in profiles ship as YAML files in
`prompts/domains/`, and a user's YAML file with the same fields is validated the same way."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from synth.errors import InputError, SynthError
from synth.short_titles import ShortTitleRule

DEFAULT_DOMAIN = "movies"
ItemField = Literal["genres", "description", "directors", "cast"]
JINJA_MARKS = ("{{", "{%", "{#", "[[", "[%", "[#")  # a profile's words are text: none may read as template code


class Domain(BaseModel):
    """One domain's words. Movies' values are shown; each is the exact phrase the prompts put in its place."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str  # "movies"
    noun: str  # "movie"
    plural: str  # "movies"
    article: str = "a"  # "a movie"; "an" for a noun that starts with a vowel sound
    seeker_role: str  # "a movie fan": who the seeker plays
    seeker_noun: str  # "fan": "the same fan said"
    audience: str  # "viewer": "how one viewer rated some movies"
    goal: str  # "one movie to watch tonight"
    verb: str  # "watch": "you will not watch it"
    verb_past: str  # "watched": "never say they liked or watched something they did not"
    seen: str  # "seen": "you have seen it"
    when: str  # "tonight": "what you are after tonight"
    taste: str  # "genres, moods or movies they liked": what the recommender asks about
    taste_short: str  # "genres, mood, movies they love": the GoRecDial expert's questions
    qualities: str  # "genres, mood, themes": what a GoRecDial seeker's five loved items share
    summary_aspects: str  # "genres, moods and themes": what a persona summary describes
    genre_word: str  # "genres": what the catalog's `genres` are ("categories", "cuisines")
    # genres said as nouns of their own ("a comedy", "comedies"), singular -> plural; the others are said with the
    # domain's noun ("a horror movie", "horror movies")
    genre_nouns: dict[str, str] = {}
    directors_label: str  # "directed by": how the item's `directors` are introduced
    cast_label: str  # "starring": how the item's `cast` is introduced
    credits: str  # "an actor or a director": what the recommender must never invent besides a year and a genre
    item_fields: list[ItemField]  # the item fields that describe an item to the recommender
    item_format: str  # "Title (Year)": how an item is written in dialogue (items' `display`)
    # how a long title may be said short (synth.short_titles): movies' titles match whole
    short_titles: ShortTitleRule = "whole"
    greeting: str  # the recommender's scripted first line
    greetings: list[str] = []  # other ways of saying it: decided wording draws one of all of them per dialogue
    seeker_opening: str  # the seeker's scripted first line (PEARL's fixed course)
    gorecdial_expert_example: str  # the GoRecDial expert prompt's example exchange
    gorecdial_seeker_example: str  # the GoRecDial seeker prompt's example exchange
    judge_examples: str  # the contradiction judge's examples, one "- A / B -> verdict" line each
    # PEARL's example exchanges: a file in the prompts folder, or the mapping itself (seeker, recommender,
    # openings, styles; see prompts/pearl_examples.yaml)
    pearl_examples: str | dict[str, Any] = "pearl_examples.yaml"
    # words a reply must not call the items by (another domain's: "movie" in a books run); movies have none
    foreign_words: list[str] = []
    sources: str = "your own --catalog and --reviews"  # the sources that fit, for the error of a source that does not

    @property
    def a_noun(self) -> str:
        """The noun with its article: 'a movie'."""
        return f"{self.article} {self.noun}"

    @property
    def seeker_role_sentence_start(self) -> str:
        """The seeker's role opening a sentence: 'A movie fan'."""
        return self.seeker_role[:1].upper() + self.seeker_role[1:]

    @field_validator("*")
    @classmethod
    def _plain_text(cls, value: Any) -> Any:
        texts = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        for text in texts:
            mark = next((m for m in JINJA_MARKS if isinstance(text, str) and m in text), None)
            if mark is not None:
                raise ValueError(f"contains {mark!r}, which a prompt template would read as code")
        return value

    @field_validator("item_fields")
    @classmethod
    def _some_fields(cls, value: list[str]) -> list[str]:
        if not value:
            raise ValueError("name at least one item field (genres, description, directors, cast)")
        return value


def builtin_domains() -> tuple[str, ...]:
    """The names of the profiles shipped with synth."""
    return tuple(sorted(p.stem for p in _builtin_folder().glob("*.yaml")))


def _builtin_folder() -> Path:
    return Path(str(resources.files("synth.prompts"))) / "domains"


def resolve_domain(name_or_path: str) -> Path:
    """The YAML file of a built-in profile's name, or the path given; a SynthError for neither."""
    builtin = _builtin_folder() / f"{name_or_path}.yaml"
    if builtin.is_file():
        return builtin
    path = Path(name_or_path).expanduser()
    if path.suffix in {".yaml", ".yml"}:
        return path
    raise SynthError(
        f"domain '{name_or_path}': not a built-in profile ({', '.join(builtin_domains())}) nor a .yaml file"
    )


# The domain of each public review format's items where --domain does not say (synth.data.formats).
FORMAT_DOMAINS = {"amazon": "products", "yelp": "restaurants", "goodreads": "books"}


def load_domain(name_or_path: str = DEFAULT_DOMAIN) -> Domain:
    """The profile of a built-in name ('movies', 'books', ...) or a YAML file; a bad file is an InputError
    naming the file and the field."""
    return _load(resolve_domain(name_or_path).resolve())


@lru_cache(maxsize=None)
def _load(path: Path) -> Domain:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(path, f"cannot read the domain profile: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise InputError(path, f"not valid YAML: {exc}") from None
    if not isinstance(raw, dict):
        raise InputError(path, "a domain profile must be a YAML mapping of its fields")
    try:
        return Domain.model_validate(raw)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"])
        message = "missing" if error["type"] == "missing" else error["msg"]
        raise InputError(path, message, field=field) from None


def domain_in_effect(domain: str | None, source: str | None, source_format: str | None = None) -> str:
    """--domain where given, else the domain of the public review format a source reads, else movies."""
    review_format = source_format or (source or "").partition(":")[0]
    return domain or FORMAT_DOMAINS.get(review_format, DEFAULT_DOMAIN)


def domain_for_run(config: dict[str, Any]) -> Domain:
    """The profile of a run, from its manifest config (movies for a run written before domains existed)."""
    return load_domain(domain_in_effect(config.get("domain"), config.get("source"), config.get("source_format")))

