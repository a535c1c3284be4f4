"""Who is "it"? Three views of one pronoun (notebook 06), after “Transformer 自注意力机制：直觉理解，不需要数学”:
in "the cat sat on the mat because it was comfortable" the tutorial reads "it" three ways.

- syntax: "it" is the subject of its clause, and looks for the subject of the sentence (cat);
- meaning: "comfortable" says how someone feels (a cat can) more than what something is like to sit on
  (a mat can be), so the pronoun looks for something that can feel, and a little for something soft;
- position: proximity, the nearest noun before the pronoun (mat).

Each view is one attention head with hand-set features: the pronoun's query against every token's
key, softmax, and a value that says which candidate a token is ([1, 0] cat, [0, 1] mat). The heads'
outputs are averaged (what concatenation and an output projection that adds the votes would do).
Shapes: keys (T, F), one query (1, F), values (T, 2).
"""
from __future__ import annotations

import numpy as np

from attention_core.core.attention import scaled_dot_product_attention
from attention_core.teaching import i18n
from attention_core.teaching.tables import Table

TOKENS = ("the", "cat", "sat", "on", "the", "mat", "because", "it", "was", "comfortable")
CANDIDATES = ("cat", "mat")
FEATURES = ("subject", "noun", "can_feel", "soft", "recent")
PROPERTIES = {"cat": ("subject", "noun", "can_feel"), "mat": ("noun", "soft")}
# what each view's query asks for, one weight per feature
VIEWS = {"syntax": {"subject": 1.0},
         "semantics": {"can_feel": 1.0, "soft": 0.5},          # comfortable: a feeling, or a soft thing
         "position": {"noun": 1.0, "recent": 1.0}}            # a noun, the more recent the better
VIEW_LABELS = {"syntax": "pronoun_lab.view_syntax", "semantics": "pronoun_lab.view_semantics",
               "position": "pronoun_lab.view_position"}


def keys(tokens=TOKENS) -> np.ndarray:
    """(T, F) key features: the candidates' properties and every token's recency j / T."""
    k = np.zeros((len(tokens), len(FEATURES)))
    for j, tok in enumerate(tokens):
        for feat in PROPERTIES.get(tok, ()):
            k[j, FEATURES.index(feat)] = 1.0
        k[j, FEATURES.index("recent")] = j / len(tokens)
    return k


def view_weights(view: str, strength: float = 6.0, tokens=TOKENS):
    """(weights (T,), votes (2,)) of one view's head for the pronoun: how much it takes from each token,
    and how much of that is cat and mat."""
    if view not in VIEWS:
        raise ValueError(f"view: expected one of {tuple(VIEWS)}, got {view!r}")
    q = np.array([[VIEWS[view].get(f, 0.0) for f in FEATURES]]) * strength     # (1, F)
    v = np.array([[float(tok == c) for c in CANDIDATES] for tok in tokens])     # (T, 2)
    votes, w = scaled_dot_product_attention(q, keys(tokens), v, scale=1.0)
    return w[0], votes[0]


def resolve_it(strength: float = 6.0) -> dict:
    """{view: votes (2,)} for the three views, their average, and the average without meaning."""
    out = {view: view_weights(view, strength)[1] for view in VIEWS}
    out["all"] = np.mean([out[v] for v in VIEWS], axis=0)
    out["no_semantics"] = np.mean([out["syntax"], out["position"]], axis=0)
    return out


def views_table(strength: float = 6.0, lang: str | None = None) -> Table:
    """Rows: each view, the three together, syntax + position only. Columns: the share of cat and mat."""
    r = resolve_it(strength)
    order = list(VIEWS) + ["all", "no_semantics"]
    names = [i18n.t(VIEW_LABELS[v], lang) for v in VIEWS] + [i18n.t("pronoun_lab.all_views", lang),
                                                              i18n.t("pronoun_lab.without_semantics", lang)]
    return Table(np.stack([r[v] for v in order]), names, list(CANDIDATES), digits=2)
