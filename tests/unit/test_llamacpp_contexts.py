"""Which llama.cpp context serves a call in the serial backend (llamacpp-serial): the KV-reuse policy, without
loading a model."""

from __future__ import annotations

import itertools

import pytest

from synth.llm.llamacpp_serial import SerialLlamaCppBackend


class FakeContext:
    """Stands in for a llama_cpp.Llama: only its identity matters to the policy."""

    ids = itertools.count()

    def __init__(self) -> None:
        self.id = next(self.ids)


def backend(n_contexts: int) -> SerialLlamaCppBackend:
    b = SerialLlamaCppBackend("unused.gguf", n_contexts=n_contexts)
    b._new_context = FakeContext  # type: ignore[method-assign]
    return b


def call(system: str, transcript: list[str], instruction: str) -> list[dict[str, str]]:
    user = "The conversation so far:\n" + "".join(f"{line}\n" for line in transcript) + instruction
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


RECOMMENDER = "You are a friendly movie Recommender."


def seeker(persona: str) -> str:
    return f"You play a movie fan. Your reviews: {persona}"


def test_roles_keep_their_own_context_across_turns_and_dialogues() -> None:
    b = backend(2)
    served = []
    for persona in ["likes noir", "likes musicals"]:
        transcript: list[str] = []
        for turn in range(3):
            served.append(("R", b._context_for(call(RECOMMENDER, transcript, "Ask or recommend."))))
            transcript.append(f"Recommender: line {turn}")
            served.append(("S", b._context_for(call(seeker(persona), transcript, "Answer."))))
            transcript.append(f"Seeker: line {turn}")
    by_role = {role: {ctx.id for r, ctx in served if r == role} for role in "RS"}
    assert len(by_role["R"]) == 1 and len(by_role["S"]) == 1
    assert by_role["R"] != by_role["S"]


@pytest.mark.parametrize("n_contexts", [1, 2, 3])
def test_the_pool_never_grows_past_its_size(n_contexts: int) -> None:
    b = backend(n_contexts)
    for persona in ["a", "b", "c", "d"]:
        b._context_for(call(seeker(persona), [], "Answer."))
        b._context_for(call(RECOMMENDER, [], "Ask."))
    assert len(b._contexts) == n_contexts


def test_a_new_persona_takes_the_least_recently_used_context() -> None:
    b = backend(2)
    r = b._context_for(call(RECOMMENDER, [], "Ask."))
    s = b._context_for(call(seeker("noir"), ["Recommender: hi"], "Answer."))
    assert b._context_for(call(RECOMMENDER, [], "Ask.")) is r  # the next dialogue opens
    assert b._context_for(call(seeker("musicals"), ["Recommender: hello"], "Answer.")) is s


def test_the_grammar_keeps_the_schema_order_so_the_rationale_comes_first(catalog) -> None:
    from synth.llm.llamacpp import grammar_for
    from synth.replies import recommender_schema, seeker_schema

    def root_rule(schema: dict) -> str:
        return next(line for line in grammar_for(schema).splitlines() if line.startswith("root"))

    root = root_rule(recommender_schema(list(catalog.values())[:3]))
    assert root.index("think-kv") < root.index("item-kv") < root.index("utterance-kv")
    root = root_rule(seeker_schema(decides=True))
    assert root.index("utterance-kv") < root.index("accept-kv")
