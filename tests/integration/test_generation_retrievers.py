"""Generation uses the chosen retriever end to end: the real embedded model plays with hybrid
(BM25 + FAISS/MiniLM) retrieval, and every candidate list is what that retriever returns."""

import pytest

from synth.game import GameRules, select_candidates
from synth.retrievers.factory import build_retriever
from synth.turns import SEED_EXCHANGE
from tests.helpers import read_records, run_synth

pytestmark = pytest.mark.integration


def test_hybrid_retrieval_drives_the_candidates(tmp_path, catalog):
    result = run_synth(
        "generate", "--n", "1", "--seed", "5", "--out", str(tmp_path), "--model", "packaged:smollm2-135m",
        "--retriever", "hybrid", "--strategy", "pearl", "--reply-resamples", "0", "--max-utterances", "6", "--no-progress",
    )
    assert result.returncode == 0, result.stderr
    [record] = read_records(tmp_path)
    retriever = build_retriever("hybrid", catalog)
    assert record.generation.retriever == retriever.name == "hybrid(bm25+dense(sentence-transformers/all-MiniLM-L6-v2))"

    rules = GameRules()
    pool = set(catalog) - {r.item for r in record.persona.general}
    turns = record.turns[len(SEED_EXCHANGE) :]
    checked = recommendations = 0
    for index, turn in enumerate(turns):
        if turn.candidates:
            query = " ".join(t.text for t in turns[:index])
            expected = select_candidates(retriever, query, pool, record.target_item.id, recommendations, rules)
            assert [c.item_id for c in turn.candidates] == [c.item_id for c in expected]
            assert [c.score for c in turn.candidates] == pytest.approx([c.score for c in expected])
            checked += 1
        if turn.recommended_item:
            pool.discard(turn.recommended_item)
            recommendations += 1
    assert checked >= 2
