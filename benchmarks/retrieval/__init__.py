"""Retrieval benchmark: recall@k, MRR and queries/s of each retriever on real dialogues."""
