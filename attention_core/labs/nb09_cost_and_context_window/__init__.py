"""Notebook 09 (cost and the context window): n^2 pairs, measured time and memory."""
