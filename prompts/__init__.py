"""Prompt templates (Jinja2) for the simulators; their hashes are recorded in every run."""
