"""Dialogue strategy: a model of how people move through a recommendation dialogue (which acts each side
plays, turn by turn, and how long they speak), learned from IARD's annotated ReDial dialogues, and the
per-dialogue plans the simulators follow (`--strategy human`)."""
