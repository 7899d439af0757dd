"""Small data the synth project authors itself (the demo catalog and reviews)."""
