"""Dialogue acts: IARD's seeker intents and recommender actions, a tagger trained on IARD, a satisfaction
predictor, and the act profiles `synth stats --acts` compares across datasets."""
