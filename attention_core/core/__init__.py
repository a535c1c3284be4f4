"""The attention library: NumPy only, the definitions every notebook computes with.

Never imports matplotlib, ipywidgets, IPython, torch, or the layers above it (teaching, labs); a
test walks the imports. Its public names are re-exported as `attention_core.*` (`ac.softmax`, ...).
"""
