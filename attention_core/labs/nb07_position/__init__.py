"""Notebook 07 (position): order blindness, sinusoidal tables, RoPE, score bias and windows."""
