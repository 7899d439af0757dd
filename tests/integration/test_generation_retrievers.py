"""Generation uses the chosen retriever end to end: the real embedded model plays with hybrid
(BM25 + FAISS/MiniLM) retrieval (the shared SmolLM2 run's `--retriever hybrid`), and every candidate list is what
that retriever returns."""

import pytest

from synth.game import GameRules, select_candidates
from synth.retrievers.factory import build_retriever
from synth.turns import SEED_EXCHANGE  # the game's steps count from its end
from tests.helpers import SMOLLM_RUN_ARGS, read_records

pytestmark = pytest.mark.integration


def test_hybrid_retrieval_drives_the_candidates(smollm_run, catalog):
    assert "hybrid" in SMOLLM_RUN_ARGS
    retriever = build_retriever("hybrid", catalog)
    # the run's rules: `synth generate`'s default strategy (human), SMOLLM_RUN_ARGS's cap
    rules = GameRules(strategy="human", max_utterances=int(SMOLLM_RUN_ARGS[SMOLLM_RUN_ARGS.index("--max-utterances") + 1]))
    checked = 0
    for record in read_records(smollm_run):
        assert record.generation.retriever == retriever.name == "hybrid(bm25+dense(sentence-transformers/all-MiniLM-L6-v2))"
        pool = set(catalog) - {r.item for r in record.persona.general}
        turns = record.turns[record.scripted_turns :]  # the query: the dialogue so far, scripted opening left out
        recommendations = 0
        for index, turn in enumerate(turns):
            if turn.candidates:
                query = " ".join(t.text for t in turns[:index])
                expected = select_candidates(retriever, query, pool, record.target_item.id, recommendations, rules,
                                             last_offer=rules.last_offer(record.scripted_turns + index - len(SEED_EXCHANGE)))
                assert [c.item_id for c in turn.candidates] == [c.item_id for c in expected]
                assert [c.score for c in turn.candidates] == pytest.approx([c.score for c in expected])
                checked += 1
            if turn.recommended_item:
                pool.discard(turn.recommended_item)
                recommendations += 1
    assert checked >= 2
