"""`synth evaluate`: synth's seeker talks to a conversational recommender and scores it (issue #44)."""
