"""Data that ships with the package: the self-test bank (quiz/) and the trained models (models/).

Read it with importlib.resources.files("attention_core.data"), so a normal `pip install .` works.
The top-level `data` folder of the repository is a link to this one.
"""
