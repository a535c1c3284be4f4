"""Notebook 08 (attention versus RNN): path length, sequential steps, a trained recall task."""
