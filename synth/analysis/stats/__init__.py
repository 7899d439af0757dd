"""Dataset statistics for generated runs and human datasets: `synth stats`."""
