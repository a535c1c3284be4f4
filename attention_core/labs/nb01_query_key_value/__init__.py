"""Notebook 01 (Query, Key, Value): the hand-set coreference model and the one-step widget."""
