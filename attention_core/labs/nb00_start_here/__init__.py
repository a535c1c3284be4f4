"""Notebook 00 (start here): the dot-product widget."""
