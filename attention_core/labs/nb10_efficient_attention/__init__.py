"""Notebook 10 (efficient attention): online softmax, peak memory, windows and a needle task."""
