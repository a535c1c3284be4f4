"""Head counts of published models (package data, attention_core/data/published_models.json): how many
heads, how wide each one is (d_model / h), and how many key/value heads (grouped-query attention)."""
from __future__ import annotations

import json
from importlib.resources import files

import numpy as np

from attention_core.teaching import i18n
from attention_core.teaching.tables import Table


def published_models() -> list[dict]:
    """[{name, year, source, layers, d_model, heads, kv_heads}] in the order of the data file."""
    data = json.loads(files("attention_core.data").joinpath("published_models.json").read_text(encoding="utf-8"))
    return data["models"]


def head_table(lang: str | None = None) -> Table:
    """One row per model: layers, d_model, heads, d_k = d_model / heads (computed), KV heads."""
    rows = published_models()
    for r in rows:
        if r["d_model"] % r["heads"]:
            raise ValueError(f"{r['name']}: d_model {r['d_model']} is not divisible by {r['heads']} heads")
    values = np.array([[r["layers"], r["d_model"], r["heads"], r["d_model"] // r["heads"], r["kv_heads"]]
                       for r in rows])
    cols = [i18n.t(key, lang) for key in ("published.layers", "published.d_model", "published.heads",
                                          "published.d_k", "published.kv_heads")]
    return Table(values, [f"{r['name']} ({r['year']})" for r in rows], cols, digits=0)
