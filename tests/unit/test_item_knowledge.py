import asyncio
import json

from synth.item_knowledge import SummaryCache, summarize_items
from synth.llm.scripted import ScriptedBackend


def test_summaries_are_made_once_then_cached(tmp_path, catalog, reviews):
    def script(messages, schema):
        assert "liked" in schema["properties"]
        return json.dumps({"liked": "the pacing", "disliked": "the ending"})

    backend = ScriptedBackend(script)
    cache = SummaryCache(tmp_path / "s.sqlite")
    described, counts = asyncio.run(summarize_items(catalog, reviews, backend, cache, progress=False))
    reviewed = {r.item for r in reviews}
    assert counts == {"summaries_cached": 0, "summaries_made": len(reviewed), "summaries_failed": 0}
    item = next(iter(reviewed))
    assert described[item].description.startswith(catalog[item].description)
    assert described[item].description.endswith("Reviewers liked: the pacing Disliked: the ending")
    assert len(backend.calls) == len(reviewed)

    again = ScriptedBackend(script)
    _, counts = asyncio.run(summarize_items(catalog, reviews, again, SummaryCache(tmp_path / "s.sqlite"), progress=False))
    assert counts["summaries_cached"] == len(reviewed) and again.calls == []


def test_a_summary_that_never_parses_is_counted_not_fatal(tmp_path, catalog, reviews):
    backend = ScriptedBackend(lambda m, s: "no json")
    described, counts = asyncio.run(
        summarize_items(catalog, reviews[:3], backend, SummaryCache(tmp_path / "s.sqlite"), progress=False)
    )
    assert counts["summaries_failed"] == len({r.item for r in reviews[:3]}) and counts["summaries_made"] == 0
    assert described == catalog
