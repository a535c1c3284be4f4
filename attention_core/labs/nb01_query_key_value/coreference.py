"""Coreference by hand-set features: why a pronoun's query matches the right key (notebook 01).

A tiny, fully interpretable two-step self-attention over hand-set feature embeddings. Every
token is a vector over named features (FEATURES); every projection is a named matrix whose rows
are features and whose columns are named query/key axes, so a learner can print one, change one
number, and watch the pronoun's attention move. Nothing looks at the words themselves: the only
word-specific thing is the lexicon row (the embedding), exactly as in a real model.

Step 1 ("what is said about me?"): the pronoun's query asks for a predicate adjective; the
adjective's key answers; the value copies what the adjective says ("tired" -> pred_tired) into
the pronoun's residual stream: x1 = x + Attention(x W_q1, x W_k1, x W_v1).
Step 2 ("who can that be?"): the pronoun's query now says "I need something that can be tired"
(or "... wide", or "a female"); each noun's key says what it can be (animals can be tired,
streets can be wide, 小红 is female); the value hands over the noun's identity:
out = x1 + Attention(x1 W_q2, x1 W_k2, x1 W_v2).

The Winograd twin is the test that the mechanism is real: "... because it was too tired"
resolves to "animal", "... because it was too wide" to "street", with the same matrices.
No causal mask: "it" must look ahead to its adjective (encoder-style attention). There is no
position encoding either, so shuffling the words would not change who "it" attends to (see 07).
Shapes: T tokens, F features, A step axes; embeddings (T, F), W_q/W_k (F, A), W_v (F, F).
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field, replace

import numpy as np

from attention_core.core.attention import scaled_dot_product_attention
from attention_core.core.validation import check_flag, describe, real_number
from attention_core.teaching.tables import Table, named_matrix
from attention_core.teaching.widget_base import widget_builder

FEATURES = ("noun", "pronoun", "adjective", "animate", "place", "female", "male",
            "can_be_tired", "can_be_wide", "refers_female", "refers_male", "pred_tired", "pred_wide")
STEP1_AXES = ("predicate",)                                   # "what is said about me?"
STEP2_AXES = ("antecedent", "tired", "wide", "female", "male")  # "who can that be?"
# The Chinese edition's names of the features and axes in its tables and widget (the code keeps the English ones).
ZH_NAMES = {"noun": "名词", "pronoun": "代词", "adjective": "形容词", "animate": "有生命", "place": "地点",
            "female": "女性", "male": "男性", "can_be_tired": "会累", "can_be_wide": "可形容为宽",
            "refers_female": "指女性", "refers_male": "指男性", "pred_tired": "被形容为累", "pred_wide": "被形容为宽",
            "predicate": "表语", "antecedent": "先行词", "tired": "累", "wide": "宽"}


def display_name(name: str, lang: str | None = None) -> str:
    """A feature's or axis's name as the edition shows it: Chinese in zh, the code's name in en."""
    from attention_core.teaching import i18n
    return ZH_NAMES.get(name, name) if i18n.resolve_language(lang) == "zh" else name

# Each word's features (1.0 unless given); words not listed carry no features (function words).
LEXICON: dict[str, dict[str, float]] = {
    "animal": dict(noun=1, animate=1, can_be_tired=1),
    "street": dict(noun=1, place=1, can_be_wide=1),
    "it": dict(pronoun=1),
    "tired": dict(adjective=1, pred_tired=1),
    "wide": dict(adjective=1, pred_wide=1),
    "动物": dict(noun=1, animate=1, can_be_tired=1),
    "马路": dict(noun=1, place=1, can_be_wide=1),
    "它": dict(pronoun=1),
    "累": dict(adjective=1, pred_tired=1),
    "宽": dict(adjective=1, pred_wide=1),
    "小红": dict(noun=1, animate=1, female=1, can_be_tired=1),
    "小明": dict(noun=1, animate=1, male=1, can_be_tired=1),
    "书": dict(noun=1),
    "她": dict(pronoun=1, refers_female=1),
    "他": dict(pronoun=1, refers_male=1),
}

# name: (sentence split into tokens, pronoun, expected antecedent, note {en, zh})
_EXAMPLES = {
    "animal_tired": ("The animal didn't cross the street because it was too tired", "it", "animal",
                     {"en": "Animals can be tired, streets cannot: 'it' -> 'animal'.",
                      "zh": "动物会累，街道不会：“it”指“animal”。"}),
    "animal_wide": ("The animal didn't cross the street because it was too wide", "it", "street",
                    {"en": "The Winograd twin: one word changed, and streets can be wide: 'it' -> 'street'.",
                     "zh": "孪生句：只改了一个词，而可形容为宽的是街道，所以“it”指“street”。"}),
    "zh_animal_tired": ("动物 没有 过 马路 ， 因为 它 太 累 了", "它", "动物",
                        {"en": "The same twin in Chinese: 'tired' -> 它 means 动物.",
                         "zh": "中文版孪生句：说的是“累”，所以“它”指动物。"}),
    "zh_animal_wide": ("动物 没有 过 马路 ， 因为 它 太 宽 了", "它", "马路",
                       {"en": "The same twin in Chinese: 'wide' -> 它 means 马路.",
                        "zh": "中文版孪生句：说的是“宽”，所以“它”指马路。"}),
    "xiaohong_she": ("小红 把 书 递给 小明 ， 因为 她 想 帮忙", "她", "小红",
                     {"en": "她 (she) looks for a female; 小红 is female, 小明 is not, 书 (book) is no person.",
                      "zh": "“她”要找女性；小红是女性，小明不是，书也不是人。"}),
    "xiaoming_he": ("小红 把 书 递给 小明 ， 因为 他 想 看", "他", "小明",
                    {"en": "Change the clause to 因为他想看 (because he wanted to read it): 他 looks for a male, "
                           "and the same matrices send it to 小明.",
                     "zh": "把后半句换成“因为他想看”：“他”要找男性，同样的矩阵就让它指向小明。"}),
}


@dataclass
class CorefParams:
    """The six projection matrices, rows = FEATURES, columns = named axes (print and change them)."""
    w_q1: np.ndarray   # (F, A1) pronoun -> "I look for a predicate"
    w_k1: np.ndarray   # (F, A1) adjective -> "I am a predicate"
    w_v1: np.ndarray   # (F, F)  copies pred_* from the adjective into the pronoun
    w_q2: np.ndarray   # (F, A2) "I need something that can be tired / wide / female / male"
    w_k2: np.ndarray   # (F, A2) "I can be tired / wide; I am female / male"
    w_v2: np.ndarray   # (F, F)  hands over the antecedent's identity
    feature_names: tuple = FEATURES
    step_axes: tuple = (STEP1_AXES, STEP2_AXES)

    def copy(self) -> CorefParams:
        return replace(self, **{n: getattr(self, n).copy() for n in MATRICES})

    def set(self, matrix: str, row: str, col: str, value: float) -> CorefParams:
        """A copy with one named entry changed, e.g. p.set("w_k2", "can_be_tired", "tired", 0)."""
        new = self.copy()
        rows, cols = _axes(self, matrix)
        getattr(new, matrix)[rows.index(row), cols.index(col)] = real_number(value, "value")
        return new


MATRICES = ("w_q1", "w_k1", "w_v1", "w_q2", "w_k2", "w_v2")


def _axes(params: CorefParams, matrix: str):
    """(row names, column names) of one of the six matrices."""
    if matrix not in MATRICES:
        raise ValueError(f"matrix: expected one of {MATRICES}, got {matrix!r}")
    f = tuple(params.feature_names)
    step = 0 if matrix.endswith("1") else 1
    return f, (f if matrix.startswith("w_v") else tuple(params.step_axes[step]))


def default_params() -> CorefParams:
    """Fresh hand-set matrices (a new copy each call, so changing one never leaks)."""
    f, a1, a2 = FEATURES, STEP1_AXES, STEP2_AXES
    ident = {(n, n): 1.0 for n in ("noun", "animate", "place", "female", "male")}
    return CorefParams(
        w_q1=named_matrix({("pronoun", "predicate"): 3.0}, f, a1),
        w_k1=named_matrix({("adjective", "predicate"): 3.0}, f, a1),
        w_v1=named_matrix({("pred_tired", "pred_tired"): 1.0, ("pred_wide", "pred_wide"): 1.0}, f, f),
        w_q2=named_matrix({("pronoun", "antecedent"): 2.0, ("pred_tired", "tired"): 3.0,
                           ("pred_wide", "wide"): 3.0, ("refers_female", "female"): 3.0,
                           ("refers_male", "male"): 3.0}, f, a2),
        w_k2=named_matrix({("noun", "antecedent"): 2.0, ("can_be_tired", "tired"): 3.0,
                           ("can_be_wide", "wide"): 3.0, ("female", "female"): 3.0,
                           ("male", "male"): 3.0}, f, a2),
        w_v2=named_matrix(ident, f, f),
    )


@dataclass(frozen=True)
class CorefExample:
    """One sentence: its tokens, their feature embeddings (T, F), the pronoun and the answer."""
    name: str
    tokens: tuple
    embeddings: np.ndarray            # (T, F)
    pronoun: int                      # index of the pronoun token
    expected: int | None              # index of the correct antecedent (None: unknown)
    feature_names: tuple = FEATURES
    note: dict = field(default_factory=dict)


def embed(tokens, lexicon: dict | None = None) -> np.ndarray:
    """Feature embeddings (T, F) of tokens looked up (case-insensitively) in the lexicon."""
    lexicon = LEXICON if lexicon is None else lexicon
    x = np.zeros((len(tokens), len(FEATURES)))                          # (T, F)
    for i, tok in enumerate(tokens):
        for feat, value in lexicon.get(tok.lower(), {}).items():
            if feat not in FEATURES:
                raise ValueError(f"lexicon[{tok!r}]: unknown feature {feat!r}; expected one of {FEATURES}")
            x[i, FEATURES.index(feat)] = value
    return x


def make_example(sentence, pronoun: str, expected: str | None = None, *, name: str = "custom",
                 lexicon: dict | None = None) -> CorefExample:
    """An example from a sentence (a space-separated string or a token list) and its pronoun."""
    tokens = tuple(sentence.split() if isinstance(sentence, str) else sentence)
    if pronoun not in tokens:
        raise ValueError(f"pronoun: {pronoun!r} is not one of the tokens {tokens}")
    if expected is not None and expected not in tokens:
        raise ValueError(f"expected: {expected!r} is not one of the tokens {tokens}")
    return CorefExample(name=name, tokens=tokens, embeddings=embed(tokens, lexicon),
                        pronoun=tokens.index(pronoun),
                        expected=None if expected is None else tokens.index(expected))


def example_names() -> tuple:
    return tuple(_EXAMPLES)


def coreference_example(name: str) -> CorefExample:
    """A named example: animal_tired, animal_wide, zh_animal_tired, zh_animal_wide, xiaohong_she, xiaoming_he."""
    if name not in _EXAMPLES:
        raise ValueError(f"name: expected one of {tuple(_EXAMPLES)}, got {name!r}")
    sentence, pronoun, expected, note = _EXAMPLES[name]
    return replace(make_example(sentence, pronoun, expected, name=name), note=note)


def with_feature(example: CorefExample, token: str, feature: str, value: float) -> CorefExample:
    """A copy of the example with one feature of one token set (every occurrence of the token)."""
    if token not in example.tokens:
        raise ValueError(f"token: {token!r} is not one of {example.tokens}")
    if feature not in example.feature_names:
        raise ValueError(f"feature: expected one of {example.feature_names}, got {feature!r}")
    x = example.embeddings.copy()
    rows = [i for i, tok in enumerate(example.tokens) if tok == token]
    x[rows, example.feature_names.index(feature)] = real_number(value, "value")
    return replace(example, embeddings=x, name=f"{example.name}+{token}.{feature}={value:g}")


@dataclass(frozen=True)
class CorefResult:
    """What resolve() computed: the weights of both steps, the hidden states, the answer."""
    tokens: tuple
    weights: tuple          # (step1 (T, T), step2 (T, T)), rows = queries, each row sums to 1
    hidden: np.ndarray      # (T, F) after step 1
    output: np.ndarray      # (T, F) after step 2
    pronoun: int
    antecedent: int         # argmax of the pronoun's step-2 weights

    def pronoun_weights(self, step: int = 2) -> dict:
        """{token: weight} of the pronoun's row at step 1 or 2 (repeated tokens are suffixed #i)."""
        row = self.weights[step - 1][self.pronoun]
        names = [t if self.tokens.count(t) == 1 else f"{t}#{i}" for i, t in enumerate(self.tokens)]
        return dict(zip(names, (float(w) for w in row)))


def resolve(example: CorefExample, params: CorefParams | None = None) -> CorefResult:
    """Run the two attention steps; the pronoun's antecedent is the argmax of its step-2 row."""
    p = default_params() if params is None else params
    x = np.asarray(example.embeddings, dtype=float)                                  # (T, F)
    out1, w1 = scaled_dot_product_attention(x @ p.w_q1, x @ p.w_k1, x @ p.w_v1)      # (T, F), (T, T)
    x1 = x + out1                                                                    # residual
    out2, w2 = scaled_dot_product_attention(x1 @ p.w_q2, x1 @ p.w_k2, x1 @ p.w_v2)   # (T, F), (T, T)
    return CorefResult(tokens=example.tokens, weights=(w1, w2), hidden=x1, output=x1 + out2,
                       pronoun=example.pronoun, antecedent=int(np.argmax(w2[example.pronoun])))


def feature_table(example: CorefExample, only_used: bool = True) -> Table:
    """Tokens x features of an example (features nobody has are left out unless only_used=False)."""
    only_used = check_flag(only_used, "only_used")
    x = example.embeddings
    cols = [j for j in range(x.shape[1]) if not only_used or x[:, j].any()]
    return Table(x[:, cols], example.tokens, [display_name(example.feature_names[j]) for j in cols])


def matrix_table(params: CorefParams, matrix: str) -> Table:
    """One of the six matrices with its feature rows and named columns (all-zero rows left out)."""
    rows, cols = _axes(params, matrix)
    m = getattr(params, matrix)
    keep = [i for i in range(m.shape[0]) if m[i].any()]
    used_cols = [j for j in range(m.shape[1]) if m[:, j].any()] if matrix.startswith("w_v") else range(m.shape[1])
    return Table(m[np.ix_(keep, list(used_cols))], [display_name(rows[i]) for i in keep],
                 [display_name(cols[j]) for j in used_cols])


def weights_table(result: CorefResult, step: int = 2) -> Table:
    """The (T, T) weights of one step as a labelled table (rows = queries, columns = keys)."""
    return Table(result.weights[step - 1], result.tokens, result.tokens)


def pronoun_bars_html(result: CorefResult, step: int = 2, lang: str | None = None) -> str:
    """The pronoun's weights at one step as HTML bars (no figure: fast, and fine in Voila)."""
    from attention_core.teaching import i18n
    row = result.weights[step - 1][result.pronoun]
    bars = "".join(
        f"<tr><td style='text-align:right;padding-right:6px'>{html.escape(tok)}</td>"
        f"<td><div style='background:#3b75af;height:12px;width:{max(1, round(240 * w))}px'></div></td>"
        f"<td style='padding-left:6px'>{w:.2f}</td></tr>" for tok, w in zip(result.tokens, row))
    pronoun = result.tokens[result.pronoun]
    if np.ptp(row) < 1e-9:                          # nothing stands out (no adjective for step 1)
        head = i18n.t("demos.coref.even", lang, pronoun=pronoun, weight=f"{row[0]:.2f}")
    else:
        top = result.antecedent if step == 2 else int(np.argmax(row))
        head = i18n.t("demos.coref.answer", lang, pronoun=pronoun, token=result.tokens[top],
                      weight=f"{row[top]:.2f}")
    return f"<div><b>{html.escape(head)}</b><table>{bars}</table></div>"


def pronoun_steps_html(result: CorefResult, lang: str | None = None) -> str:
    """The pronoun's row at step 1 and at step 2, side by side, each under its question."""
    from attention_core.teaching import i18n
    cells = "".join(
        f"<div><div style='color:#555'>{html.escape(i18n.t(key, lang))}</div>"
        f"{pronoun_bars_html(result, step, lang)}</div>"
        for step, key in ((1, "demos.coref.step1"), (2, "demos.coref.step2")))
    return f"<div style='display:flex;flex-wrap:wrap;gap:8px 32px'>{cells}</div>"


def sentence_text(example: CorefExample) -> str:
    """The sentence as a reader writes it: Chinese without spaces between tokens, English with."""
    chinese = any("\u4e00" <= ch <= "\u9fff" for tok in example.tokens for ch in tok)
    return ("" if chinese else " ").join(example.tokens)


# The sentence the widget opens on: one in the edition's language.
DEFAULT_EXAMPLE = {"en": "animal_tired", "zh": "zh_animal_tired"}


@widget_builder
def coreference_widget(name: str | None = None, lang: str | None = None):
    """Pick a sentence, change features of its tokens, and watch the pronoun's weights move
    (its row at step 1, "what is said about me?", and at step 2, "who can that be?").

    Changes accumulate (flip 小红 to not female, then 小明 to female) until another sentence is
    chosen or Reset is pressed. The first sentence is `name`, by default one in the language `lang`
    (DEFAULT_EXAMPLE). A thin layer over with_feature() and resolve(); returns an ipywidgets.VBox
    whose `controls` (example, token, feature, value, reset) and `bars` (HTML) attributes tests can drive."""
    import ipywidgets as w

    from attention_core.teaching import i18n
    from attention_core.teaching.static_view import StaticVBox
    from attention_core.teaching.widget_base import slider_layout
    lang = i18n.resolve_language(lang)
    name = name or DEFAULT_EXAMPLE[lang]
    if not isinstance(name, str) or name not in example_names():
        raise ValueError(f"name: expected one of {example_names()}, got {describe(name)}")
    texts = [(sentence_text(coreference_example(n)), n) for n in example_names()]
    # the edition's own language first: a Chinese learner opens the list on Chinese sentences
    texts.sort(key=lambda pair: any("\u4e00" <= ch <= "\u9fff" for ch in pair[0]) != (lang == "zh"))
    example = w.Dropdown(options=texts,
                         value=name, description=i18n.t("demos.coref.example", lang),
                         layout={"width": "max-content"})
    token = w.Dropdown(description=i18n.t("demos.coref.token", lang))
    feature = w.Dropdown(options=[(display_name(f, lang), f) for f in FEATURES], value="can_be_tired",
                         description=i18n.t("demos.coref.feature", lang))
    value = w.FloatSlider(min=0.0, max=1.0, step=0.5, description=i18n.t("demos.coref.value", lang),
                          style={"description_width": "initial"},
                          layout=slider_layout(i18n.t("demos.coref.value", lang), track_px=180))
    reset = w.Button(description=i18n.t("demos.coref.reset", lang))
    bars = w.HTML()
    state = {"busy": False, "example": None}

    def show_value():
        ex = state["example"]
        state["busy"] = True                       # setting the slider is not an edit
        value.value = float(ex.embeddings[ex.tokens.index(token.value), FEATURES.index(feature.value)])
        state["busy"] = False

    def redraw():
        bars.value = pronoun_steps_html(resolve(state["example"]), lang=lang)

    def on_example(_=None):
        ex = state["example"] = coreference_example(example.value)
        state["busy"] = True
        token.options = tuple(dict.fromkeys(ex.tokens))
        token.value = ex.tokens[ex.expected]
        state["busy"] = False
        show_value()
        redraw()

    def on_select(_=None):
        if not state["busy"]:
            show_value()

    def on_value(_=None):
        if not state["busy"]:
            state["example"] = with_feature(state["example"], token.value, feature.value, value.value)
            redraw()

    example.observe(on_example, names="value")
    token.observe(on_select, names="value")
    feature.observe(on_select, names="value")
    value.observe(on_value, names="value")
    reset.on_click(on_example)
    on_example()
    box = StaticVBox([w.HBox([example, token, reset]), w.HBox([feature, value]), bars])
    box.controls = {"example": example, "token": token, "feature": feature, "value": value, "reset": reset}
    box.bars = bars
    return box
