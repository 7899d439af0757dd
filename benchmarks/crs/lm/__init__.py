"""The causal language model that `lm-crs` fine-tunes: loading, prompts, training and inference."""
