"""Hand-labelled (premise, claim) pairs for the LLM judge's stance check: whether the claim says the
opposite of the premise. Written for this benchmark; they include the hard cases (negation, a new wish
that is not a contradiction, unrelated topics) on which small models go wrong."""

from __future__ import annotations

FAN = "what the same fan said later in a chat"
NOTE = "the recommender's note about the seeker"

# (premise label, premise, claim kind, claim, contradiction?)
JUDGE_PAIRS: list[tuple[str, str, str, str, bool]] = [
    ("review, disliked it", "Slow and dull; I hated every minute of this quiet drama.", FAN, "I adore slow, quiet dramas; the slower the better.", True),
    ("review, disliked it", "Slow and dull; I hated every minute of this quiet drama.", FAN, "I want something fast with lots of action.", False),
    ("review, loved it", "Relentless car chases and explosions, pure fun.", FAN, "Car chases bore me to tears.", True),
    ("review, loved it", "Relentless car chases and explosions, pure fun.", FAN, "Hi! I'm in the mood for something light.", False),
    ("review, loved it", "A gorgeous, heartfelt musical; I sang along all night.", FAN, "Please, no musicals: I can't stand people bursting into song.", True),
    ("review, loved it", "A gorgeous, heartfelt musical; I sang along all night.", FAN, "Something with great songs would be lovely tonight.", False),
    ("review, disliked it", "Too gory for me; I looked away for half of it.", FAN, "The bloodier the better, I love a good splatter film.", True),
    ("review, disliked it", "Too gory for me; I looked away for half of it.", FAN, "Something gentle, nothing with blood please.", False),
    ("review, disliked it", "Slow and dull; I fell asleep twice.", FAN, "I love stories about friendship and hope, nothing too slow.", False),
    ("review, loved it", "Laughed from start to finish, a perfect comedy.", FAN, "I'd like a mystery with a clever twist this time.", False),
    ("seeker turn 3", "I can't stand horror movies; they give me nightmares.", NOTE, "The seeker loves horror films, so I'll pick a scary one.", True),
    ("seeker turn 3", "I can't stand horror movies; I want something gentle and funny.", NOTE, "The seeker wants a gentle comedy, so I'll pick a light one.", False),
    ("seeker turn 3", "I love stories about friendship and hope.", NOTE, "The seeker dislikes stories about friendship.", True),
    ("seeker turn 3", "I love stories about friendship and hope.", NOTE, "They like tension.", False),
    ("seeker turn 5", "I've seen it and it felt long to me. Something more uplifting?", NOTE, "They want hope and friendship.", False),
    ("seeker turn 5", "Animated films are my favourite, especially old Disney ones.", NOTE, "The seeker does not enjoy animation.", True),
]
