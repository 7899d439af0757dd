"""Measuring dialogues: corpus statistics, text and ranking metrics, dialogue acts. Used by the filters,
exports, reports and benchmarks; imports nothing above the core, retrievers and backends."""
