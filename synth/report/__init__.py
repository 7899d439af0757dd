"""`synth report`: one self-contained HTML page about a run, for reading dialogues and distributions."""
