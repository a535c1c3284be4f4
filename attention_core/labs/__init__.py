"""One subpackage per notebook (`nb02_scaled_dot_product` for notebooks/*/02_scaled_dot_product.ipynb):
that notebook's experiments, its widgets, the checkers of its exercises (checks.py, their words in
check_strings.py) and its strings. A lab imports the library, the backends,
the teaching machinery and earlier labs (the course builds on what came before), never a later one.
"""
