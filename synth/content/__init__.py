"""Decided wording: the seeker's state decides what each turn says, the model only words it (issue #63).

A small model asked to play a person with a hidden goal, keep the history and follow a plan in one free reply
fails at one of them in most dialogues. Here those decisions are made in code, in four steps, one module each,
in the order a turn runs them:

1. **state** (`synth.content.state`): the seeker's state, from the data: what it wants (its hidden target's
   genres, era and mood words, never the title), what it has seen and what it thought of it (its ratings and
   own words), what it dislikes; and the conversation's ledger of what has been said so far.
2. **content** (`synth.content.decide`, the recommender's; `synth.content.seeker`, the seeker's): the turn's
   content, seeded and deterministic, from the state, the catalog, the planned move and the ledger: which taste
   the recommender asks about, which values the seeker reveals, which candidate is offered and why (its catalog
   facts that match what the seeker said), how the seeker reacts to it, what the recommender answers. The
   recommender's side reads only the ledger, never the seeker's state. Their words, the ways of asking, of
   saying why an offer fits and of saying each template sentence, are in `synth.content.phrases`; what the
   catalog says of an item (its plot, a critic's words, its people, its kind), in `synth.content.facts`.
3. **wording** (`synth.content.wording`): a short prompt (the content's points and its template sentence, the
   speaker's role, its way of talking) for one short reply that says the sentence in the speaker's own words;
   the template sentence itself says the turn where no reply does.
4. **verification** (`synth.content.verification`): the reply says the content (its titles) and nothing the
   content does not hold (another title, a person or a plot the facts do not give, the other role's words, a
   viewing of a movie the seeker has not seen, a greeting mid-talk, "they" for the other side, text the length
   cap cut).

The simulators word and verify (synth.simulators); the games keep the state and ask for the content
(synth.game, synth.gorecdial). Nothing here reaches up into either."""
