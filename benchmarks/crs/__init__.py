"""CRS baselines trained and scored on generated and human dialogues: `synth benchmark`."""
