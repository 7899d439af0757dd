"""Exports of a synth run: PEARL json, ReDial jsonl, a Hugging Face DatasetDict with its card; publishing."""
