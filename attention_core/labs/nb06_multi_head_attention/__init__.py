"""Notebook 06 (multi-head attention): readable hand-set heads, ablation, the cost of h."""
