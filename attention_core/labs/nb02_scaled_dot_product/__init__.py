"""Notebook 02 (scaled dot-product attention): why divide by sqrt(Dk), and its widget."""
