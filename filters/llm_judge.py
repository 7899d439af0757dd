"""The LLM judge, through any configured backend, with the prompts in prompts/judge_*.j2.

Small models judge "is this a contradiction?" badly but compare stances well. So the judge asks, for
one (premise, claim) pair at a time, what topic the premise is about and how each side feels about it
(positive, negative, not mentioned); opposite feelings on the same topic are a contradiction. Every
pair is checked, premise by premise so that consecutive prompts share their start (KV and prefix
caches), until one contradicts. With `screen`, one call per dialogue first names the most suspicious
pair and only that pair is checked: far fewer calls, for models strong enough to screen (the packaged
1.5B model misses planted contradictions when screening, so it is off by default)."""

from __future__ import annotations

from typing import Any

from synth.filters.dialogue import Statement
from synth.filters.judge_protocol import Claim, Finding, JudgeError, Kind
from synth.filters.titles import normalise
from synth.llm.ask import ask_until_parsed
from synth.llm.base import ChatBackend
from synth.prompting import PromptSet
from synth.replies import ReplyFormatError, extract_json

# What each kind calls its claims and premises in the screen's JSON answer, and a claim in the stance check.
_FIELDS: dict[str, tuple[str, str]] = {"persona": ("utterance", "review"), "guess": ("note", "statement")}
_CLAIM_LABEL = {"persona": "what the same fan said later in a chat", "guess": "the recommender's note or message about the seeker"}
FEELINGS = ("positive", "negative")
GENERIC_WORDS = {
    "movie",
    "movies",
    "film",
    "films",
    "kind",
    "kinds",
    "type",
    "types",
    "genre",
    "genres",
    "quality",
    "qualities",
    "the",
    "and",
    "with",
    "about",
    "that",
    "this",
    "story",
    "stories",
    "something",
    "watch",
    "watching",
}
THINK_MAX_CHARS = 300


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def screen_schema(kind: Kind, claims: int, premises: int) -> dict[str, Any]:
    """The screen's answer: a one-sentence rationale, the verdict, and the pair's numbers (0: none)."""
    claim_field, premise_field = _FIELDS[kind]
    return _object(
        {
            "think": {"type": "string", "minLength": 1, "maxLength": THINK_MAX_CHARS},
            "contradiction": {"type": "boolean"},
            claim_field: {"type": "integer", "enum": list(range(claims + 1))},
            premise_field: {"type": "integer", "enum": list(range(premises + 1))},
        }
    )


STANCE_SCHEMA = _object(
    {
        "topic": {"type": "string", "minLength": 1, "maxLength": 80},
        "a_feels": {"type": "string", "enum": list(FEELINGS)},
        "b_feels": {"type": "string", "enum": [*FEELINGS, "not_mentioned"]},
    }
)


class LLMJudge:
    """Format problems are retried with the temperature raised; after the last retry they are raised as
    JudgeError, which the pipeline records as a judge failure (the dialogue is kept)."""

    method = "llm"

    def __init__(
        self,
        backend: ChatBackend,
        prompts: PromptSet,
        *,
        max_tokens: int = 200,
        retries: int = 2,
        screen: bool = False,
        seed: int = 0,
    ):
        self.backend, self.prompts = backend, prompts
        self.max_tokens, self.retries, self.use_screen, self.seed = max_tokens, retries, screen, seed

    @property
    def description(self) -> str:
        """The method, backend, model (known once loaded), steps and prompt hashes, for reports."""
        steps = "screen, then stance check of the suspect pair" if self.use_screen else "stance check of every pair"
        model = self.backend.model_info.name
        return f"llm judge ({self.backend.name}: {model}; {steps}; prompts {self.prompts.hashes})"

    async def contradiction(self, kind: Kind, claims: list[Claim]) -> Finding | None:
        if self.use_screen:
            suspect = await self.screen(kind, claims)
            return None if suspect is None else await self.stance(kind, *suspect)
        premises = list(dict.fromkeys(p for claim in claims for p in claim.premises))
        for premise in premises:
            for claim in claims:
                if premise in claim.premises:
                    found = await self.stance(kind, claim, premise)
                    if found is not None:
                        return found
        return None

    async def screen(self, kind: Kind, claims: list[Claim]) -> tuple[Claim, Statement] | None:
        """The pair the model finds most likely to contradict, or None."""
        premises = list(claims[-1].premises)  # guess: the last note has seen every earlier statement
        context = [{"text": c.text, "turn": c.turn, "seen": len(c.premises)} for c in claims]
        user = self.prompts.render(f"judge_{kind}", premises=premises, claims=context)
        claim_field, premise_field = _FIELDS[kind]

        def read(data: dict[str, Any]) -> tuple[Claim, Statement] | None:
            if not isinstance(data.get("contradiction"), bool):
                raise ReplyFormatError("'contradiction' is missing or not true/false")
            if not data["contradiction"]:
                return None
            claim = _pick(data, claim_field, claims)
            return claim, _pick(data, premise_field, list(claim.premises))

        return await self._ask(user, screen_schema(kind, len(claims), len(premises)), read)

    async def stance(self, kind: Kind, claim: Claim, premise: Statement) -> Finding | None:
        """A finding when the claim feels the opposite of the premise about the premise's topic."""
        user = self.prompts.render("judge_stance", premise=premise, claim=claim, claim_label=_CLAIM_LABEL[kind])

        def read(data: dict[str, Any]) -> Finding | None:
            topic, a_feels, b_feels = data.get("topic"), data.get("a_feels"), data.get("b_feels")
            if not isinstance(topic, str) or a_feels not in FEELINGS or b_feels not in (*FEELINGS, "not_mentioned"):
                raise ReplyFormatError("expected 'topic', 'a_feels' (positive/negative) and 'b_feels'")
            if b_feels == "not_mentioned" or b_feels == a_feels:
                return None
            if not (grounded(topic, premise.text) and grounded(topic, claim.text)):
                return None  # a topic neither statement names ("movie quality") is the model's invention
            return Finding(claim, premise, None, f"about {topic.strip()}, one is {a_feels} and the other {b_feels}")

        return await self._ask(user, STANCE_SCHEMA, read)

    async def _ask(self, user: str, schema: dict[str, Any], read: Any) -> Any:
        messages = [{"role": "system", "content": self.prompts.render("judge_system")}, {"role": "user", "content": user}]
        problems: list[str] = []
        try:
            return await ask_until_parsed(
                self.backend, messages, schema, lambda text: read(extract_json(text)), max_tokens=self.max_tokens,
                temperature=0.0, seed=self.seed, retries=self.retries, problems=problems,
            )
        except ReplyFormatError:
            raise JudgeError(f"no valid judge answer in {len(problems)} attempts; last: {problems[-1]}") from None

    async def check(self) -> None:
        await self.backend.check()

    async def aclose(self) -> None:
        await self.backend.aclose()


def grounded(topic: str, text: str) -> bool:
    """Whether `text` names the topic: a distinctive topic word (not 'movie', 'film', ...) shares its
    first four letters with a word of the text ('slow films' is in 'too slow for me')."""
    words = {w[:4] for w in normalise(text).split()}
    return any(w[:4] in words for w in normalise(topic).split() if len(w) >= 3 and w not in GENERIC_WORDS)


def _pick(data: dict[str, Any], field: str, options: list) -> Any:
    number = data.get(field)
    if not isinstance(number, int) or not 1 <= number <= len(options):
        raise ReplyFormatError(f"'{field}' must be 1..{len(options)} when there is a contradiction")
    return options[number - 1]
