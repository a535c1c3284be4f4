"""Notebook 04 (masking): naive masked softmax, padded batches, future leaks, a KV cache, the mask widget."""
