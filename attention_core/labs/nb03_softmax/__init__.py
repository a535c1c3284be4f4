"""Notebook 03 (softmax): its steps, overflow, Jacobian, competition, and the temperature widget."""
