"""Readers of the public review formats (Amazon Reviews 2023, Yelp, UCSD Goodreads) into synth's items and reviews."""
