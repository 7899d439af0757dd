"""Loaders that turn data files into typed tables."""
