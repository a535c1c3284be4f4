"""Notebook 11 (review): where each self-test question is demonstrated, one step using everything."""
