"""Notebook 05 (self- and cross-attention): a translation alignment from hand-set features."""
