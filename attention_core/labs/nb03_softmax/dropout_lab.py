"""Attention dropout next to temperature (notebook 03): dropout zeroes random weights while training,
a regulariser; the temperature reshapes the whole distribution. Only the second sets how peaked it is."""
from __future__ import annotations

import numpy as np

from attention_core.core.softmax import softmax
from attention_core.core.validation import as_float_array, as_generator
from attention_core.teaching import i18n
from attention_core.teaching.tables import Table


def attention_dropout(weights, p: float, rng, *, training: bool = True) -> np.ndarray:
    """Dropout on attention weights (..., Tk), as torch's nn.Dropout applies it: while training, each
    weight is set to 0 with probability p and the survivors are divided by 1 - p, so the expected
    weights are unchanged; at inference (training=False) the weights pass through untouched."""
    weights = as_float_array(weights, "weights")
    if not 0.0 <= p < 1.0:
        raise ValueError(f"p: expected a probability in [0, 1), got {p!r}")
    if not training or p == 0.0:
        return weights.copy()
    keep = as_generator(rng).random(weights.shape) >= p                 # (..., Tk) True = kept
    return np.where(keep, weights / (1.0 - p), 0.0)


def dropout_vs_temperature(scores, *, p: float = 0.5, temperatures=(0.5, 2.0), n_draws: int = 10000,
                           seed: int = 0, lang: str | None = None) -> Table:
    """One row of scores seen five ways: softmax, at two temperatures, two dropout draws, the mean of
    n_draws dropout draws and dropout at inference. A Table with a last column, the row's sum."""
    scores = as_float_array(scores, "scores", ndim=1)
    rng = as_generator(seed)
    w = softmax(scores)                                                  # (Tk,)
    rows, names = [w], [i18n.t("softmax_lab.row_softmax", lang)]
    for t in temperatures:
        rows.append(softmax(scores / t))
        names.append(i18n.t("softmax_lab.row_temperature", lang, t=f"{t:g}"))
    for draw in (1, 2):
        rows.append(attention_dropout(w, p, rng))
        names.append(i18n.t("softmax_lab.row_dropout_draw", lang, p=f"{p:g}", i=draw))
    many = attention_dropout(np.broadcast_to(w, (n_draws, w.size)), p, rng)   # (n_draws, Tk)
    rows.append(many.mean(axis=0))
    names.append(i18n.t("softmax_lab.row_dropout_mean", lang, n=f"{n_draws:,}"))
    rows.append(attention_dropout(w, p, rng, training=False))
    names.append(i18n.t("softmax_lab.row_dropout_eval", lang))
    values = np.column_stack([np.stack(rows), np.stack(rows).sum(axis=1)])
    cols = [str(j) for j in range(w.size)] + [i18n.t("softmax_lab.col_sum", lang)]
    return Table(values, names, cols, digits=3)
