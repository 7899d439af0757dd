"""Dialogue filters (basic and preference-based), each drop with its reason."""
