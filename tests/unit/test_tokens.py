"""The tokenizers in synth.tokens keep the differences their users were measured with."""

from synth.tokens import ascii_words, search_terms, terms, word_runs, words


def test_each_tokenizer_splits_the_same_text_its_own_way():
    text = "Don't miss Amélie's café_scene, it's GREAT!"
    assert words(text) == ["don't", "miss", "amélie's", "café", "scene", "it's", "great"]
    assert terms(text) == ["don't", "miss", "am", "lie's", "caf", "scene", "it's", "great"]
    assert search_terms(text) == ["don't", "miss", "am", "lie's", "caf", "scene", "great"]
    assert ascii_words(text) == ["don", "t", "miss", "am", "lie", "s", "caf", "scene", "it", "s", "great"]
    assert word_runs(text) == ["Don", "t", "miss", "Amélie", "s", "café_scene", "it", "s", "GREAT"]
