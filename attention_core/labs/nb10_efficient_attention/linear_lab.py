"""Linear attention (notebook 10): replace exp(q . k) by a kernel feature map, phi(q) . phi(k), and the
product can be regrouped so that no (T, T) matrix is ever formed.

    softmax attention:  out_i = sum_j exp(q_i . k_j / sqrt(d)) v_j / sum_j exp(q_i . k_j / sqrt(d))
    linear attention:   out_i = phi(q_i) (sum_j phi(k_j)^T v_j) / phi(q_i) (sum_j phi(k_j))

with phi(x) = elu(x) + 1 > 0 (Katharopoulos et al., 2020, "Transformers are RNNs"). The sums over j are
a (Dk, Dv) matrix and a (Dk,) vector computed once, so the cost is O(T Dk Dv) instead of O(T^2 D), and
the memory O(Dk Dv). The price: the weights phi(q_i) . phi(k_j) / sum are not softmax's, and they cannot
be as peaked. Non-causal here (every query sees every key). Shapes: q, k (T, Dk), v (T, Dv).
"""
from __future__ import annotations

import numpy as np

from attention_core.core.attention import scaled_dot_product_attention
from attention_core.core.validation import as_float_array, checked, describe


def feature_map(x) -> np.ndarray:
    """phi(x) = elu(x) + 1: x + 1 for x > 0, exp(x) otherwise; every entry is positive."""
    x = as_float_array(x, "x")
    return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))


def linear_inputs(q, k, v) -> dict:
    """linear_attention's arguments, checked: q (Tq, Dk), k (Tk, Dk), v (Tk, Dv)."""
    q, k, v = (as_float_array(a, name, ndim=2) for a, name in ((q, "q"), (k, "k"), (v, "v")))
    if q.shape[1] != k.shape[1] or k.shape[0] != v.shape[0]:
        raise ValueError(f"q, k, v: expected (Tq, Dk), (Tk, Dk), (Tk, Dv), got {describe(q)}, {describe(k)}, "
                         f"{describe(v)}")
    return dict(q=q, k=k, v=v)


@checked(linear_inputs)
def linear_attention(q, k, v) -> np.ndarray:
    """(T, Dv) output of linear attention, regrouped: phi(Q) (phi(K)^T V), normalised row by row.
    The largest intermediate is (Dk, Dv): nothing of size T x T."""
    fq, fk = feature_map(q), feature_map(k)                       # (Tq, Dk), (Tk, Dk)
    kv = fk.T @ v  # [en] (Dk, Dv): sum_j phi(k_j)^T v_j [zh] (Dk, Dv)：对 j 求和 phi(k_j)^T v_j
    z = fk.sum(axis=0)  # [en] (Dk,): sum_j phi(k_j) [zh] (Dk,)：对 j 求和 phi(k_j)
    return (fq @ kv) / (fq @ z)[:, None]                           # (Tq, Dv)


def linear_weights(q, k) -> np.ndarray:
    """(Tq, Tk) weights that linear attention applies implicitly, phi(q_i) . phi(k_j) / sum_j (for
    comparison on small T only: forming them is exactly what linear attention avoids)."""
    s = feature_map(q) @ feature_map(k).T                          # (Tq, Tk) all positive
    return s / s.sum(axis=-1, keepdims=True)


def weight_distance(q, k) -> dict:
    """How far linear attention's weights are from softmax's on the same q, k: the mean total variation
    distance of the rows (0 = the same, 1 = disjoint) and the mean largest weight of each."""
    _, w_soft = scaled_dot_product_attention(q, k, k)              # (Tq, Tk)
    w_lin = linear_weights(q, k)
    return {"tv": float(0.5 * np.abs(w_soft - w_lin).sum(axis=-1).mean()),
            "max_softmax": float(w_soft.max(axis=-1).mean()), "max_linear": float(w_lin.max(axis=-1).mean())}


def planted_key(t: int = 1024, d: int = 32, strength: float = 10.0, position: int = 300, seed: int = 0):
    """One query and t keys, one of which (at `position`) points where the query points with length
    `strength`: the needle of this notebook. Returns (q (1, d), k (t, d))."""
    rng = np.random.default_rng(seed)
    k = rng.normal(size=(t, d))
    direction = rng.normal(size=d)
    direction /= np.linalg.norm(direction)
    q = strength * direction[None, :]
    k[position] = strength * direction
    return q, k
