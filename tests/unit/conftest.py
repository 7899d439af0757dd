"""Fixtures of the decided-wording tests (test_content*.py): a seeker's state and the items it speaks of."""

import pytest

from synth.content.state import pearl_state
from synth.records import Item, Persona
from tests.helpers import review


@pytest.fixture
def items() -> dict[str, Item]:
    return {
        "t": Item(id="t", title="Groundhog Day", year=1993, genres=["Comedy", "Romance"],
                  description="A weatherman relives one day until he gets it right.", directors=["Harold Ramis"],
                  cast=["Bill Murray"]),
        "a": Item(id="a", title="Airplane!", year=1980, genres=["Comedy"], description="A disaster-movie spoof."),
        "h": Item(id="h", title="The Shining", year=1980, genres=["Horror"], description="A hotel drives a writer mad."),
        "s": Item(id="s", title="Scream", year=1996, genres=["Horror"], description="A masked killer stalks teens."),
        "w": Item(id="w", title="Heat", year=1995, genres=["Action", "Crime"], description="A cop hunts a thief."),
        "r": Item(id="r", title="Notting Hill", year=1999, genres=["Comedy", "Romance"], description="A bookseller meets a star."),
    }


@pytest.fixture
def state(items):
    persona = Persona(user_id="u", general=[review("a", 0.9, "Silly and witty all the way. Loved it."), review("h", 0.1)],
                      target=review("t", 0.95, "Sweet, witty and warm."))
    other = {"r": review("r", 0.7, "Nice enough.")}
    return pearl_state(persona, items, other.get)
