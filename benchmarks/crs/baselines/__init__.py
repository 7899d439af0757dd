"""The CRS baselines, each a small module behind `Recommender` or `Responder` (base.py)."""
