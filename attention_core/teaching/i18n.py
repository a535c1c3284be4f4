"""UI strings in both languages, in one place; a notebook sets its language once.

    from attention_core import i18n
    i18n.set_language("zh")
    i18n.t("check.ok")            # -> the Chinese string
    i18n.t("shape", got=(2, 3))   # str.format fields

Every key has an "en" and a "zh" text (a test enforces it). Sections below group the keys by the
module that uses them; add new keys to your module's section.
"""
from __future__ import annotations

LANGUAGES = ("en", "zh")
_state = {"lang": "en"}


def set_language(lang: str) -> str:
    """Choose the language of every widget, check and figure label ("en" or "zh")."""
    if lang not in LANGUAGES:
        raise ValueError(f"lang: expected one of {LANGUAGES}, got {lang!r}")
    _state["lang"] = lang
    return lang


def get_language() -> str:
    return _state["lang"]


def t(key: str, lang: str | None = None, **fields) -> str:
    """The text of `key` in `lang` (default: the current language), formatted with `fields`."""
    try:
        entry = STRINGS[key]
    except KeyError:
        raise KeyError(f"i18n: no string named {key!r}") from None
    text = entry[lang or _state["lang"]]
    return text.format(**fields) if fields else text


STRINGS: dict[str, dict[str, str]] = {
    # --- common -------------------------------------------------------------------------------
    "common.error": {"en": "Cannot compute this: {msg}", "zh": "无法计算：{msg}"},
    # --- env (environment report, notebook 00) --------------------------------------------------
    "env.available": {"en": "available", "zh": "可用"},
    "env.missing": {"en": "not installed", "zh": "未安装"},
    "env.no_cuda": {"en": "no CUDA device", "zh": "没有 CUDA 设备"},
    "env.title": {"en": "Backends on this machine", "zh": "本机可用的计算后端"},
    "env.python": {"en": "Python", "zh": "Python 版本"},
    "env.auto": {"en": "backend='auto' uses", "zh": "backend='auto' 使用"},
    "env.install": {"en": "install with `{cmd}`", "zh": "安装命令：`{cmd}`"},
    # --- plots ------------------------------------------------------------------------------------
    "plots.queries": {"en": "query (row: who is looking)", "zh": "Query（行：谁在看）"},
    "plots.keys": {"en": "key (column: who is looked at)", "zh": "Key（列：被看的词）"},
    "plots.weight": {"en": "attention weight", "zh": "注意力权重"},
    "plots.head": {"en": "head {h}", "zh": "第 {h} 个头"},
    "plots.position": {"en": "position p", "zh": "位置 p"},
    "plots.dimension": {"en": "dimension i", "zh": "维度 i"},
    "plots.pe_value": {"en": "encoding value", "zh": "编码值"},
    "plots.visible": {"en": "may attend (adds 0)", "zh": "可以关注（加 0）"},
    "plots.masked": {"en": "masked (adds −∞)", "zh": "被屏蔽（加 −∞）"},
    "plots.dot_product": {"en": "dot product {a}·{b} = {dot:.2f}", "zh": "点积 {a}·{b} = {dot:.2f}"},
    "plots.cosine": {"en": "cosine cos θ = {cos}", "zh": "余弦 cos θ = {cos}"},
    "plots.undefined": {"en": "undefined (zero vector)", "zh": "无定义（零向量）"},
    "plots.no_cjk_font": {"en": "No Chinese font found: install noto-cjk-sans-otc so Chinese labels render.",
                          "zh": "未找到中文字体：请安装 noto-cjk-sans-otc，图中才能显示中文。"},
    # --- widgets ----------------------------------------------------------------------------------
    "widgets.dot_title": {"en": "Move the two vectors: the dot product measures how much they point the same way.",
                          "zh": "拖动两个向量：点积衡量它们指向同一方向的程度。"},
    "widgets.dot_readout": {"en": "dot product a·b = {dot}; lengths |a| = {na}, |b| = {nb}; cosine = {cos}; "
                                  "angle = {angle}",
                            "zh": "点积 a·b = {dot}；长度 |a| = {na}，|b| = {nb}；余弦 = {cos}；夹角 = {angle}"},
    "widgets.dot_positive": {"en": "positive: the vectors point in similar directions",
                             "zh": "为正：两个向量方向相近"},
    "widgets.dot_zero": {"en": "zero: the vectors are perpendicular (unrelated)", "zh": "为零：两个向量互相垂直（无关）"},
    "widgets.dot_negative": {"en": "negative: the vectors point in opposite directions",
                             "zh": "为负：两个向量方向相反"},
    "widgets.step_title": {"en": "Move the query q (and the values v): every number of the computation updates.",
                           "zh": "拖动 Query q（以及 Value v）：计算中的每个数都会随之更新。"},
    "widgets.key": {"en": "key", "zh": "Key"},
    "widgets.score": {"en": "score q·k", "zh": "分数 q·k"},
    "widgets.scaled": {"en": "scaled q·k / √{d}", "zh": "缩放 q·k / √{d}"},
    "widgets.weight": {"en": "weight α (softmax)", "zh": "权重 α（softmax）"},
    "widgets.value": {"en": "value v", "zh": "Value v"},
    "widgets.output": {"en": "output = Σ α·v", "zh": "输出 = Σ α·v"},
    "widgets.sum_check": {"en": "(the weights sum to {total})", "zh": "（权重之和为 {total}）"},
    "widgets.query_panel": {"en": "query q and keys k", "zh": "Query q 与 Key k"},
    "widgets.weights_panel": {"en": "weights α", "zh": "权重 α"},
    "widgets.values_panel": {"en": "values v and output", "zh": "Value v 与输出"},
    "widgets.temperature": {"en": "temperature T", "zh": "温度 T"},
    "widgets.temp_readout": {"en": "largest weight {max} · entropy {h} (uniform: {hmax})",
                             "zh": "最大权重 {max} · 熵 {h}（均匀分布时为 {hmax}）"},
    "widgets.temp_hint": {"en": "Low T: close to one-hot. High T: close to uniform.",
                          "zh": "T 越低越接近 one-hot；T 越高越接近均匀分布。"},
    "widgets.token": {"en": "token", "zh": "token"},
    "widgets.mask_kind": {"en": "mask", "zh": "掩码"},
    "widgets.mask_none": {"en": "none", "zh": "无"},
    "widgets.mask_causal": {"en": "causal (look-ahead)", "zh": "因果（防偷看）"},
    "widgets.mask_padding": {"en": "padding", "zh": "填充"},
    "widgets.mask_window": {"en": "sliding window", "zh": "滑动窗口"},
    "widgets.mask_causal_padding": {"en": "causal + padding", "zh": "因果 + 填充"},
    "widgets.length": {"en": "real length", "zh": "真实长度"},
    "widgets.window": {"en": "window", "zh": "窗口"},
    "widgets.mask_readout": {"en": "keys visible to each query: {counts}", "zh": "每个 Query 可见的 Key 数：{counts}"},
    "widgets.pe_readout": {"en": "PE[{p}, {i}] = {v} · dimension {i} repeats every {wl} positions",
                           "zh": "PE[{p}, {i}] = {v} · 第 {i} 维每隔 {wl} 个位置重复一次"},
    "widgets.pe_column": {"en": "dimension {i} along the positions", "zh": "第 {i} 维随位置的变化"},
    # --- scaling (02) -------------------------------------------------------------------------------
    "scaling.row_raw": {"en": "q·k", "zh": "q·k"},
    "scaling.row_scaled": {"en": "q·k / √d_k", "zh": "q·k / √d_k"},
    "scaling.panel": {"en": "d_k = {d}", "zh": "d_k = {d}"},
    "scaling.var": {"en": "var {v}", "zh": "方差 {v}"},
    "scaling.largest_weight": {"en": "largest weight of a row", "zh": "每行的最大权重"},
    "scaling.jacobian": {"en": "Jacobian norm ‖diag(p) − p pᵀ‖", "zh": "Jacobian 范数 ‖diag(p) − p pᵀ‖"},
    "scaling.without": {"en": "q·k (no scaling)", "zh": "q·k（不缩放）"},
    "scaling.with": {"en": "q·k / √d_k", "zh": "q·k / √d_k"},
    "scaling.uniform": {"en": "uniform over {n} keys", "zh": "{n} 个 Key 上的均匀分布"},
    "scaling.title": {"en": "Choose d_k and switch the scaling. Left: q·k of random unit-variance vectors. "
                            "Right: softmax of one row of {n} such scores.",
                      "zh": "选择 d_k，打开或关闭缩放。左图：随机单位方差向量的 q·k；右图：一行 {n} 个这样的分数经过 softmax 之后的权重。"},
    "scaling.d_k": {"en": "d_k", "zh": "d_k"},
    "scaling.mode": {"en": "scores", "zh": "分数"},
    "scaling.off": {"en": "q·k (no scaling)", "zh": "q·k（不缩放）"},
    "scaling.on": {"en": "q·k / √d_k", "zh": "q·k / √d_k"},
    "scaling.hist_title": {"en": "{what}, {n} random pairs", "zh": "{what}，{n} 对随机向量"},
    "scaling.share": {"en": "share of pairs (tallest bar = 1)", "zh": "占比（最高的柱 = 1）"},
    "scaling.score": {"en": "score", "zh": "分数"},
    "scaling.std_band": {"en": "± 1 std", "zh": "± 1 个标准差"},
    "scaling.weights_title": {"en": "softmax of one row of {n} scores", "zh": "一行 {n} 个分数的 softmax"},
    "scaling.key": {"en": "key", "zh": "Key"},
    "scaling.readout": {"en": "variance of the scores {var} (std {std}) · largest weight {max} · entropy {h} "
                              "(uniform: {hmax}) · Jacobian norm {j} (uniform: {juni})",
                        "zh": "分数的方差 {var}（标准差 {std}）· 最大权重 {max} · 熵 {h}（均匀分布时为 {hmax}）"
                              "· Jacobian 范数 {j}（均匀分布时为 {juni}）"},
    "scaling.saturated": {"en": "Saturated: one key takes almost everything and the gradient through softmax "
                                "has almost vanished.",
                          "zh": "已饱和：几乎所有权重都落在一个 Key 上，经过 softmax 回传的梯度几乎消失。"},
    "scaling.healthy": {"en": "Not saturated: several keys share the weight and gradients flow.",
                        "zh": "未饱和：权重由多个 Key 分享，梯度可以正常回传。"},
    # --- quiz -------------------------------------------------------------------------------------
    "quiz.check": {"en": "Check", "zh": "检查答案"},
    "quiz.show_reference": {"en": "Show reference answer", "zh": "显示参考答案"},
    "quiz.hide_reference": {"en": "Hide reference answer", "zh": "隐藏参考答案"},
    "quiz.reference": {"en": "Reference answer:", "zh": "参考答案："},
    "quiz.correct": {"en": "Correct.", "zh": "回答正确。"},
    "quiz.incorrect": {"en": "Not quite.", "zh": "还不对。"},
    "quiz.choose_first": {"en": "Choose an answer first.", "zh": "请先选择一个答案。"},
    "quiz.bad_choice": {"en": "{value!r} is not one of the {n} options.", "zh": "{value!r} 不是这 {n} 个选项之一。"},
    "quiz.select_all": {"en": "Select all that apply.", "zh": "选出所有正确的选项。"},
    "quiz.item_right": {"en": "✔ {option} — {why}", "zh": "✔ {option}——{why}"},
    "quiz.item_wrong": {"en": "✘ {option} — {why}", "zh": "✘ {option}——{why}"},
    "quiz.item_missed": {"en": "You left out option {option}, which is also correct.",
                         "zh": "你漏选了选项 {option}，它也是正确的。"},
    "quiz.enter_number": {"en": "Type a number first.", "zh": "请先输入一个数。"},
    "quiz.not_a_number": {"en": "“{text}” is not a number; type a number such as 0.5.",
                          "zh": "“{text}”不是数字；请输入一个数，例如 0.5。"},
    "quiz.number_wrong": {"en": "Not quite: {value} is not it. Hint: {hint}",
                          "zh": "还不对：{value} 不是答案。提示：{hint}"},
    "quiz.expected_function": {"en": "Expected the function you wrote, got a {got}.",
                               "zh": "这里需要传入你写的函数，收到的却是 {got}。"},
    "quiz.number_placeholder": {"en": "a number", "zh": "输入数字"},
    "quiz.answer_label": {"en": "Answer:", "zh": "答案："},
    "quiz.code_instructions": {"en": "Write the function in a code cell below, then run `{call}` there to check it. "
                                     "Hint: {hint}",
                               "zh": "在下面的代码单元格里写出这个函数，然后在那里运行 `{call}` 来检查。提示：{hint}"},
    "quiz.try_it": {"en": "Try it: notebook {notebook}, section “{section}”, widget `{widget}()`.",
                    "zh": "动手试试：notebook {notebook}，小节“{section}”，控件 `{widget}()`。"},
    "quiz.try_it_section": {"en": "Try it: notebook {notebook}, section “{section}”.",
                            "zh": "动手试试：notebook {notebook}，小节“{section}”。"},
    "quiz.review_title": {"en": "Review: the eight self-test questions", "zh": "复习：八道自测题"},
    # --- checks -----------------------------------------------------------------------------------
    "checks.raised": {"en": "Your function raised {exc} on the input {case}.",
                      "zh": "你的函数在输入 {case} 上抛出了异常 {exc}。"},
    "checks.mutated": {"en": "Your function changed its input in place ({case}); work on a copy "
                             "(for example `x = x - x.max(...)` instead of `x -= ...`).",
                       "zh": "你的函数原地修改了输入（{case}）；请在副本上计算"
                             "（例如写 `x = x - x.max(...)`，而不是 `x -= ...`）。"},
    "checks.returned_none": {"en": "Your function returned None for {case}: did you forget `return`?",
                             "zh": "你的函数对 {case} 返回了 None：是不是忘了写 `return`？"},
    "checks.returned_tuple": {"en": "Your function returned a tuple of {n} items for {case}; return a single array.",
                              "zh": "你的函数对 {case} 返回了一个含 {n} 项的元组；这里应该只返回一个数组。"},
    "checks.not_array": {"en": "Your function returned a {got} for {case}; expected a NumPy array.",
                         "zh": "你的函数对 {case} 返回了 {got}；应该返回 NumPy 数组。"},
    "checks.shape": {"en": "The {what} you returned has shape {got} but should be {expected} ({case}).{hint}",
                     "zh": "你的 {what} 形状是 {got}，应该是 {expected}（{case}）。{hint}"},
    "checks.hint.kq": {"en": " Did you multiply K by Q^T (K Q^T) instead of Q K^T?",
                       "zh": "你是不是算成了 K·Qᵀ，而不是 Q·Kᵀ？"},
    "checks.hint.times_k": {"en": " Did you multiply the weights by K instead of V?",
                            "zh": "你是不是用权重乘了 K，而不是 V？"},
    "checks.not_finite": {"en": "Your {what} contains NaN or inf ({case}).",
                          "zh": "你的 {what} 里出现了 NaN 或 inf（{case}）。"},
    "checks.negative": {"en": "Your {what} has a negative entry ({value}), but softmax weights are never negative ({case}).",
                        "zh": "你的 {what} 里有负数（{value}），而 softmax 权重不可能为负（{case}）。"},
    "checks.wrong_axis": {"en": "Your {what} sums to 1 down each column, not along each row: normalise over "
                                "the last axis (axis=-1), one distribution per row, that is per query ({case}).",
                          "zh": "你的 {what} 是每一列之和为 1，而不是每一行：应该沿最后一个轴（axis=-1）归一化，"
                                "每一行（每个 query）一个分布（{case}）。"},
    "checks.global_sum": {"en": "Your whole {what} sums to 1, not each row: sum over axis=-1 with keepdims=True ({case}).",
                          "zh": "你的整个 {what} 加起来是 1，而不是每一行为 1：求和时用 axis=-1 和 keepdims=True（{case}）。"},
    "checks.row_sum": {"en": "Row {index} (counting from 0) of your {what} sums to {value}, not 1 ({case}).",
                       "zh": "你的 {what} 第 {index} 行（从 0 开始数）的权重之和是 {value}，不是 1（{case}）。"},
    "checks.sum": {"en": "Your {what} sums to {value}, not 1: divide the exponentials by their sum ({case}).",
                   "zh": "你的 {what} 之和是 {value}，不是 1：要把各个指数除以它们的总和（{case}）。"},
    "checks.values": {"en": "For {case}, you returned {what} = {got}, but it should be {expected}.",
                      "zh": "对于 {case}，你返回的 {what} = {got}，应该是 {expected}。"},
    "checks.softmax.batch": {"en": "Your softmax works on 1-D and 2-D inputs but not on a batch ({case}): {detail} "
                                   "Use axis=-1 (the last axis) so that any number of leading dimensions works.",
                             "zh": "你的 softmax 对一维、二维输入正确，但对批量输入不对（{case}）：{detail}"
                                   "请用 axis=-1（最后一个轴），这样前面有多少维都能处理。"},
    "checks.softmax.overflow": {"en": "Overflow: for {case} your softmax returns NaN or inf, because exp(1000) is inf "
                                      "in floating point. Subtract each row's maximum before exp "
                                      "(the shift does not change softmax).",
                                "zh": "溢出：对于 {case}，你的 softmax 返回了 NaN 或 inf，因为浮点数里 exp(1000) 就是 inf。"
                                      "请在取 exp 之前减去每一行的最大值（这个平移不改变 softmax 的结果）。"},
    "checks.softmax.global_max": {"en": "For {case}, the first row is fine but the second underflows to 0/0: you "
                                        "subtracted the maximum of the whole array. Subtract each row's own maximum: "
                                        "x.max(axis=-1, keepdims=True).",
                                  "zh": "对于 {case}，第一行没问题，第二行却下溢成 0/0：你减去的是整个数组的最大值。"
                                        "应该减去每一行自己的最大值：x.max(axis=-1, keepdims=True)。"},
    "checks.softmax.ok": {"en": "All good: right values on 1-D, 2-D and batched inputs, every row sums to 1, "
                                "and logits of ±1000 and ±1e4 do not overflow.",
                          "zh": "全部通过：一维、二维和批量输入的数值都正确，每一行之和为 1，"
                                "±1000 和 ±1e4 的大分数也不会溢出。"},
    "checks.scale.none": {"en": "You did not scale ({case}): divide Q K^T by sqrt(d_k) before softmax. With d_k = 2 "
                                "the scores should be [0.707, 0] and the weights [0.670, 0.330].",
                          "zh": "你没有做缩放（{case}）：softmax 之前要把 Q·Kᵀ 除以 √d_k。d_k = 2 时，"
                                "分数应为 [0.707, 0]，权重应为 [0.670, 0.330]。"},
    "checks.scale.by_dk": {"en": "You divided by d_k instead of sqrt(d_k) ({case}): the scores should be [0.707, 0], not [0.5, 0].",
                           "zh": "你除以的是 d_k，而不是 √d_k（{case}）：分数应为 [0.707, 0]，不是 [0.5, 0]。"},
    "checks.scale.multiplied": {"en": "You multiplied by sqrt(d_k) instead of dividing by it ({case}).",
                                "zh": "你把分数乘以了 √d_k，应该是除以它（{case}）。"},
    "checks.batch_transpose": {"en": "Your function works on 2-D inputs but not on a batch ({case}): {detail} "
                                     "For batched arrays use k.swapaxes(-1, -2) instead of k.T (which reverses "
                                     "every axis), and softmax over axis=-1.",
                               "zh": "你的函数对二维输入正确，但对批量输入不对（{case}）：{detail}"
                                     "批量数组请用 k.swapaxes(-1, -2)，不要用 k.T（它会把所有轴都倒过来），"
                                     "softmax 沿 axis=-1。"},
    "checks.scores.ok": {"en": "All good: Q K^T / sqrt(d_k) with shape (Tq, Tk), on the worked example of notebook 01, "
                               "a rectangular case and a batch.",
                         "zh": "全部通过：Q·Kᵀ / √d_k 的形状为 (Tq, Tk)，01 节的例题、长宽不等的情形和批量输入都正确。"},
    "checks.attention.not_pair": {"en": "Your function should return a pair (output, weights), like "
                                        "attention_core.scaled_dot_product_attention ({case}). If your exercise "
                                        "returns only the output, use check_attention(fn, returns=\"output\").",
                                  "zh": "你的函数应该像 attention_core.scaled_dot_product_attention 一样返回 "
                                        "(output, weights) 二元组（{case}）。如果练习只要求返回输出，"
                                        "请用 check_attention(fn, returns=\"output\")。"},
    "checks.attention.output": {"en": "Your weights are right but your output is not weights @ V ({case}).",
                                "zh": "你的权重是对的，但输出不等于 weights @ V（{case}）。"},
    "checks.attention.times_k": {"en": "Your output is weights @ K ({case}): the weighted sum runs over the values V; "
                                       "K only decides how much each position gives.",
                                 "zh": "你的输出是 weights @ K（{case}）：加权求和的对象是 V；"
                                       "K 只决定每个位置贡献多少。"},
    "checks.softmax.no_exp": {"en": "For {case} you returned x / x.sum(): softmax exponentiates first, "
                                    "exp(x) / exp(x).sum(), so negative scores still get positive weights.",
                              "zh": "对于 {case}，你返回的是 x / x.sum()：softmax 要先取指数，"
                                    "exp(x) / exp(x).sum()，这样负分数也能得到正的权重。"},
    "checks.attention.overflow": {"en": "Your {what} contains NaN or inf for large scores ({case}): use a stable "
                                        "softmax that subtracts each row's maximum (attention_core.softmax does).",
                                  "zh": "分数很大时，你的 {what} 出现了 NaN 或 inf（{case}）：请使用数值稳定的 softmax，"
                                        "先减去每一行的最大值（attention_core.softmax 就是这样做的）。"},
    "checks.attention.ok": {"en": "All good: the worked example of notebook 01 ([0.670, 0.330] -> [1.340, 1.321]), "
                                  "rectangular shapes, large scores and batches match attention_core.",
                            "zh": "全部通过：01 节的例题（[0.670, 0.330] -> [1.340, 1.321]）、长宽不等的形状、"
                                  "很大的分数和批量输入都与 attention_core 一致。"},
    "checks.attention.no_mask_tested": {"en": "(The mask was not tested: your function has no `mask` parameter.)",
                                        "zh": "（没有检查 mask：你的函数没有 `mask` 参数。）"},
    "checks.mask.ignored": {"en": "Your output does not change when a causal mask is passed ({case}): the mask is "
                                  "ignored. Set the scores of hidden keys (mask == False) to -inf before softmax.",
                            "zh": "传入因果 mask 后你的输出没有任何变化（{case}）：mask 被忽略了。"
                                  "请在 softmax 之前把被屏蔽位置（mask == False）的分数设为 -inf。"},
    "checks.mask.inverted": {"en": "Your weights are zero exactly where the mask is True ({case}). In attention_core, "
                                   "True means \"may attend\": hide the keys where the mask is False.",
                             "zh": "你的权重恰好在 mask 为 True 的位置是 0（{case}）。在 attention_core 里 True 表示"
                                   "“可以关注”：应该屏蔽 mask 为 False 的位置。"},
    "checks.mask.leak": {"en": "Query {i} gives weight {value} to key {j}, which the mask hides ({case}): masked "
                               "positions must get weight exactly 0. Fill their scores with -inf before softmax.",
                         "zh": "第 {i} 个 query 给被屏蔽的第 {j} 个 key 分配了 {value} 的权重（{case}）："
                               "被屏蔽的位置权重必须严格为 0。请在 softmax 之前把它们的分数填成 -inf。"},
    "checks.mask.after_softmax": {"en": "Masked weights are 0 but the rows no longer sum to 1 ({case}): you applied "
                                        "the mask after softmax. Apply it to the scores, before softmax.",
                                  "zh": "被屏蔽的权重是 0，但每行之和不再是 1（{case}）：你是在 softmax 之后才加的 mask。"
                                        "应该在 softmax 之前作用在分数上。"},
    "checks.mask.additive": {"en": "You returned an additive mask (0 and -inf) for {case}; this exercise asks for the "
                                   "boolean mask (True = may attend). attention_core.additive_mask turns one into the other.",
                             "zh": "你对 {case} 返回的是加性 mask（0 和 -inf）；这个练习要的是布尔 mask"
                                   "（True = 可以关注）。attention_core.additive_mask 可以把后者转换成前者。"},
    "checks.mask.dtype": {"en": "Your mask has dtype {dtype} for {case}; return a boolean array (True = may attend), "
                                "for example with .astype(bool) or np.tril(np.ones((T, T), dtype=bool)).",
                          "zh": "你的 mask 对 {case} 的 dtype 是 {dtype}；请返回布尔数组（True = 可以关注），"
                                "例如用 .astype(bool) 或 np.tril(np.ones((T, T), dtype=bool))。"},
    "checks.mask.bool_inverted": {"en": "Your mask is True where the key lies in the future ({case}): attention_core's "
                                        "convention is True = may attend. Invert it with ~.",
                                  "zh": "你的 mask 在“未来”的位置是 True（{case}）：attention_core 的约定是 "
                                        "True = 可以关注。用 ~ 取反即可。"},
    "checks.mask.upper": {"en": "Your mask lets query i see keys j >= i, that is the future ({case}): the causal mask "
                                "is the lower triangle, j <= i (np.tril, not np.triu).",
                          "zh": "你的 mask 让第 i 个 query 看到 j >= i 的 key，也就是未来（{case}）：因果 mask 是下三角，"
                                "j <= i（用 np.tril，不是 np.triu）。"},
    "checks.mask.no_diagonal": {"en": "Your mask hides the diagonal ({case}): each position must see itself, "
                                      "so use j <= i, not j < i.",
                                "zh": "你的 mask 把对角线也屏蔽了（{case}）：每个位置必须能看到自己，"
                                      "应该用 j <= i，而不是 j < i。"},
    "checks.mask.ok": {"en": "All good: a boolean lower-triangular (T, T) mask, diagonal included, for T = 1, 4 and 7.",
                       "zh": "全部通过：T = 1、4、7 时都是包含对角线的布尔下三角 (T, T) mask。"},
    # --- softmax (03) --------------------------------------------------------------------------------
    "softmax_lab.argmax": {"en": "hard max of position {name} (argmax)", "zh": "位置 {name} 的硬最大值（argmax）"},
    "softmax_lab.score_of": {"en": "score of position {name}", "zh": "位置 {name} 的分数"},
    "softmax_lab.varied": {"en": "varied", "zh": "变化"},
    "softmax_lab.score_legend": {"en": "position (score)", "zh": "位置（分数）"},
    "softmax_lab.uniform": {"en": "uniform 1/{n}", "zh": "均匀分布 1/{n}"},
    "softmax_lab.hull": {"en": "convex hull of the values", "zh": "Value 的凸包"},
    "softmax_lab.outputs": {"en": "{m} attention outputs", "zh": "{m} 个注意力输出"},
    "softmax_lab.not_convex": {"en": "raw scores as weights", "zh": "直接用原始分数当权重"},
    # --- demos (coreference) ------------------------------------------------------------------------
    "demos.coref.example": {"en": "Sentence", "zh": "句子"},
    "demos.coref.token": {"en": "Token", "zh": "词"},
    "demos.coref.feature": {"en": "Feature", "zh": "特征"},
    "demos.coref.value": {"en": "feature value", "zh": "特征取值"},
    "demos.coref.reset": {"en": "Reset", "zh": "复原"},
    "demos.coref.answer": {"en": "“{pronoun}” attends most to “{token}” (weight {weight})",
                           "zh": "“{pronoun}”最关注“{token}”（权重 {weight}）"},
    "demos.coref.even": {"en": "“{pronoun}” spreads its attention evenly (weight {weight} each)",
                         "zh": "“{pronoun}”的注意力平均分配（每个权重 {weight}）"},
    "demos.coref.step1": {"en": "Step 1: what is said about me?", "zh": "第 1 步：关于我，句子说了什么？"},
    "demos.coref.step2": {"en": "Step 2: who can that be?", "zh": "第 2 步：那会是谁？"},
    # --- position (07) -------------------------------------------------------------------------------
    "position_lab.pos_m": {"en": "position m (query)", "zh": "位置 m（Query）"},
    "position_lab.pos_n": {"en": "position n (key)", "zh": "位置 n（Key）"},
    "position_lab.key_position": {"en": "key position j", "zh": "Key 的位置 j"},
    "position_lab.distance": {"en": "distance |i − j|", "zh": "距离 |i − j|"},
    "position_lab.mean_weight": {"en": "average weight", "zh": "平均权重"},
    "position_lab.variant_content": {"en": "content only", "zh": "只看内容"},
    "position_lab.variant_causal": {"en": "+ causal mask", "zh": "+ 因果 mask"},
    "position_lab.variant_bias": {"en": "+ distance bias", "zh": "+ 距离偏置"},
    "position_lab.variant_window": {"en": "+ local window", "zh": "+ 局部窗口"},
    "position_lab.variant_causal_bias": {"en": "+ causal mask + bias", "zh": "+ 因果 mask + 偏置"},
    "position_lab.slope": {"en": "bias slope", "zh": "偏置斜率 slope"},
    "position_lab.window": {"en": "window (0 = off)", "zh": "窗口（0 = 不用）"},
    "position_lab.causal": {"en": "causal mask", "zh": "因果 mask"},
    "position_lab.score": {"en": "score", "zh": "分数"},
    "position_lab.content_score": {"en": "content score q·k/√d", "zh": "内容分数 q·k/√d"},
    "position_lab.readout": {"en": "{n} of {t} keys visible · largest weight: key {j} ({w})",
                             "zh": "{t} 个 Key 中有 {n} 个可见 · 权重最大：Key {j}（{w}）"},
    # --- cross (05) ---------------------------------------------------------------------------------
    "cross.cross_queries": {"en": "Chinese decoder: queries (Tq)", "zh": "中文解码器：Query（Tq）"},
    "cross.cross_keys": {"en": "English encoder: keys and values (Tk)", "zh": "英文编码器：Key 和 Value（Tk）"},
    "cross.self_queries": {"en": "English sentence: queries", "zh": "英文句子：Query"},
    "cross.self_keys": {"en": "the same sentence: keys and values", "zh": "同一个句子：Key 和 Value"},
    "cross.pair": {"en": "sentence", "zh": "句子"},
    "cross.mode": {"en": "attention", "zh": "注意力"},
    "cross.mode_cross": {"en": "cross: 中文 → English", "zh": "交叉：中文 → 英文"},
    "cross.mode_self": {"en": "self: English → English", "zh": "自注意力：英文 → 英文"},
    "cross.order": {"en": "source order", "zh": "原文词序"},
    "cross.order_as_written": {"en": "as written", "zh": "原样"},
    "cross.order_reversed": {"en": "reversed", "zh": "倒序"},
    "cross.order_shuffled": {"en": "shuffled", "zh": "打乱"},
    "cross.query": {"en": "query word", "zh": "Query 词"},
    "cross.title_cross": {"en": "cross: Q from 中文, K and V from English", "zh": "交叉：Q 来自中文，K、V 来自英文"},
    "cross.title_self": {"en": "self: Q, K and V from one sentence", "zh": "自注意力：Q、K、V 来自同一句"},
    "cross.row_title": {"en": "weights of “{query}” (one row)", "zh": "“{query}”的权重（一行）"},
    "cross.readout": {"en": "“{query}” attends most to “{target}” (weight {weight}) · weights {tq} × {tk}, {square}",
                      "zh": "“{query}”最关注“{target}”（权重 {weight}）· 权重矩阵 {tq} × {tk}，{square}"},
    "cross.square": {"en": "square", "zh": "方阵"},
    "cross.not_square": {"en": "not square", "zh": "不是方阵"},
    "cross.translates": {"en": "“{query}” translates “{gold}”", "zh": "“{query}”译自“{gold}”"},
    "cross.split": {"en": "“{query}” splits its attention between “{a}” and “{b}” ({weight} each): "
                            "without positions it cannot tell which one is its own",
                      "zh": "“{query}”把注意力平分给“{a}”和“{b}”（各 {weight}）：没有位置信息，它分不清哪个才是自己的"},
    "cross.even": {"en": "“{query}” finds no partner and spreads its attention (largest weight {weight})",
                   "zh": "“{query}”找不到搭档，注意力分散开来（最大权重 {weight}）"},
    # --- masking (04) --------------------------------------------------------------------------------
    "masking_lab.changed_token": {"en": "replaced token s", "zh": "被替换的 token s"},
    "masking_lab.output_position": {"en": "output position t", "zh": "输出位置 t"},
    "masking_lab.change": {"en": "largest change of output t", "zh": "输出 t 的最大变化"},
    "masking_lab.no_mask": {"en": "no mask", "zh": "不加 mask"},
    "masking_lab.causal": {"en": "causal mask", "zh": "因果 mask"},
    "masking_lab.sequence": {"en": "sequence {b}, length {n}", "zh": "序列 {b}，长度 {n}"},
    "masking_lab.step": {"en": "step {k}: Tq = {tq} new, Tk = {tk} cached", "zh": "第 {k} 步：新 Tq = {tq}，缓存 Tk = {tk}"},
    "masking_lab.not_cached": {"en": "key not in the cache yet", "zh": "Key 尚未进入缓存"},
    # --- heads (06) ----------------------------------------------------------------------------------
    "heads_lab.head.prev": {"en": "previous token", "zh": "前一个词"},
    "heads_lab.head.same": {"en": "same word", "zh": "相同的词"},
    "heads_lab.head.subject": {"en": "verb → subject", "zh": "动词 → 主语"},
    "heads_lab.head.noun": {"en": "nearest noun", "zh": "最近的名词"},
    "heads_lab.random": {"en": "random {h}", "zh": "随机 {h}"},
    "heads_lab.h": {"en": "number of heads h", "zh": "头数 h"},
    "heads_lab.d_k": {"en": "width per head d_k", "zh": "每个头的宽度 d_k"},
    "heads_lab.mib": {"en": "weights tensor at T = {t} (MiB)", "zh": "T = {t} 时的权重张量（MiB）"},
    "heads_lab.tradeoff_title": {"en": "d_model = {d}: more heads, narrower heads, bigger weights tensor",
                                 "zh": "d_model = {d}：头越多，每个头越窄，权重张量越大"},
    # --- review (11) ---------------------------------------------------------------------------------
    "review.col_id": {"en": "#", "zh": "#"},
    "review.col_question": {"en": "Question", "zh": "题目"},
    "review.col_notebook": {"en": "Demonstrated in", "zh": "演示它的 notebook"},
    "review.col_section": {"en": "Section", "zh": "小节"},
    "review.col_widget": {"en": "Try it", "zh": "动手试试"},
    "review.q1": {"en": "self: weights T × T; queries from another sequence: cross, Tq × Tk",
                  "zh": "自注意力：权重 T × T；Query 换成另一个序列：交叉注意力，Tq × Tk"},
    "review.q2": {"en": "weights = softmax(scores · 1/√d_k), d_k = {d}",
                  "zh": "权重 = softmax(分数 · 1/√d_k)，d_k = {d}"},
    "review.q3": {"en": "{h} heads of width {d}/{h} = {dh}; largest difference between their weights",
                  "zh": "{h} 个头，每个宽 {d}/{h} = {dh}；两个头的权重最大相差多少"},
    "review.q4": {"en": "largest of the {n} masked weights · largest change of the earlier outputs when the last token changes",
                  "zh": "{n} 个被 mask 的权重中的最大值 · 改动最后一个 token 时，前面各位置输出的最大变化"},
    "review.q5": {"en": "every row sums to 1; the smallest visible weight is still above 0 (not sparse)",
                  "zh": "每行之和为 1；可见位置中最小的权重仍大于 0（不稀疏）"},
    "review.q6": {"en": "the output is the weighted mix of the values, then W^O: a weight is a mixing share",
                  "zh": "输出就是按权重混合的 Value，再乘 W^O：权重是混合的份额"},
    "review.q7": {"en": "shuffle the words (no mask): change beyond a reordering, without positions → with them",
                  "zh": "打乱词序（不加 mask）：输出除了换顺序之外的变化，不加位置编码 → 加上位置编码"},
    "review.q8": {"en": "“{last}” reads “{first}” directly, in one step: its weight in each head",
                  "zh": "“{last}”一步直接读取“{first}”：它在每个头里的权重"},
    "review.cost": {"en": "the weights tensor holds H·T² numbers (H = {h}, T = {t}); doubling T: four times as many",
                    "zh": "权重张量有 H·T² 个数（H = {h}，T = {t}）；T 翻倍，数量变为四倍"},
    # --- cost (09) -----------------------------------------------------------------------------------
    "cost_lab.tokens": {"en": "context length n (tokens)", "zh": "上下文长度 n（token 数）"},
    "cost_lab.quadratic": {"en": "attention, n² part: 4·n²·D", "zh": "注意力的 n² 部分：4·n²·D"},
    "cost_lab.linear": {"en": "projections + FFN: 24·n·D²", "zh": "投影 + 前馈层：24·n·D²"},
    "cost_lab.crossover": {"en": "6·D = {n:,}", "zh": "6·D = {n:,}"},
    "cost_lab.mark": {"en": "n = {n:,}", "zh": "n = {n:,}"},
    "cost_lab.flops_layer": {"en": "FLOPs of one layer", "zh": "单层的 FLOPs"},
    "cost_lab.flops_title": {"en": "One layer of width D = {d}", "zh": "宽度 D = {d} 的一层"},
    "cost_lab.measured_seconds": {"en": "measured time", "zh": "实测时间"},
    "cost_lab.measured_peak_bytes": {"en": "measured peak memory", "zh": "实测峰值内存"},
    "cost_lab.n_squared": {"en": "∝ n² (reference)", "zh": "∝ n²（参考线）"},
    "cost_lab.axis_seconds": {"en": "seconds (fastest run)", "zh": "秒（最快的一次）"},
    "cost_lab.axis_peak_bytes": {"en": "peak memory (MiB)", "zh": "峰值内存（MiB）"},
    "cost_lab.position": {"en": "position of the matching key", "zh": "匹配的 Key 所在位置"},
    "cost_lab.weight_on_key": {"en": "weight on the matching key", "zh": "匹配的 Key 得到的权重"},
    "cost_lab.content_only": {"en": "content only", "zh": "只看内容"},
    "cost_lab.toy": {"en": "TOY: content + start bias + recency bias", "zh": "玩具示例：内容 + 开头偏置 + 近因偏置"},
    "cost_lab.widget_title": {"en": "Slide the context length: where does the n² part take over, and what would a naive "
                                    "implementation have to hold?",
                              "zh": "拖动上下文长度：n² 部分从哪里开始占上风？朴素实现又得存下多少？"},
    "cost_lab.n": {"en": "context n", "zh": "上下文 n"},
    "cost_lab.heads": {"en": "heads H", "zh": "头数 H"},
    "cost_lab.layers": {"en": "layers L", "zh": "层数 L"},
    "cost_lab.d_model": {"en": "width D", "zh": "宽度 D"},
    "cost_lab.dtype": {"en": "numbers", "zh": "数值格式"},
    "cost_lab.flops_pass": {"en": "FLOPs of one forward pass", "zh": "一次前向计算的 FLOPs"},
    "cost_lab.memory_axis": {"en": "score matrices of one layer (naive)", "zh": "一层的分数矩阵（朴素实现）"},
    "cost_lab.gpu": {"en": "80 GiB: one large GPU", "zh": "80 GiB：一块大显卡"},
    "cost_lab.over_gpu": {"en": "{x}× the memory of an 80 GiB GPU", "zh": "是一块 80 GiB 显卡的 {x} 倍"},
    "cost_lab.under_gpu": {"en": "{pct}% of an 80 GiB GPU", "zh": "占一块 80 GiB 显卡的 {pct}%"},
    "cost_lab.readout_pairs": {"en": "n = {n} tokens: {pairs} (≈ {approx}) query–key pairs per head and layer; "
                                     "{total} in all ({h} heads × {l} layers)",
                               "zh": "n = {n} 个 token：每个头、每层 {pairs}（≈ {approx}）个 Query–Key 对；"
                                     "总计 {total}（{h} 个头 × {l} 层）"},
    "cost_lab.readout_memory": {"en": "score matrices of one layer, naive, {dtype}: {mem}, {gpu}",
                                "zh": "一层的分数矩阵（朴素实现，{dtype}）：{mem}，{gpu}"},
    "cost_lab.readout_flops": {"en": "FLOPs of one forward pass: n² part {att}, linear parts {lin}; the n² part is "
                                     "{share} of the total (the two are equal at n = {cross})",
                               "zh": "一次前向计算的 FLOPs：n² 部分 {att}，线性部分 {lin}；n² 部分占总量的 {share}"
                                     "（两者在 n = {cross} 时相等）"},
    # --- rnn (08) ------------------------------------------------------------------------------------
    "rnn_lab.rnn": {"en": "plain RNN", "zh": "普通 RNN"},
    "rnn_lab.gru": {"en": "gated RNN (GRU)", "zh": "门控 RNN（GRU）"},
    "rnn_lab.attention": {"en": "one attention layer", "zh": "一层注意力"},
    "rnn_lab.distance": {"en": "distance k (tokens before the last one)", "zh": "距离 k（在最后一个 token 之前几个位置）"},
    "rnn_lab.influence": {"en": "influence on the last output", "zh": "对最后输出的影响"},
    "rnn_lab.length": {"en": "sequence length n", "zh": "序列长度 n"},
    "rnn_lab.seconds": {"en": "seconds (best of {r} runs)", "zh": "耗时（秒，{r} 次取最快）"},
    "rnn_lab.chance": {"en": "chance (1/8)", "zh": "随机猜（1/8）"},
    "rnn_lab.distractors": {"en": "distance k (distractors between the first token and the question)",
                            "zh": "距离 k（首个 token 与提问之间的干扰 token 数）"},
    "rnn_lab.accuracy": {"en": "accuracy on new sequences", "zh": "新序列上的准确率"},
    "rnn_lab.macs": {"en": "multiply-adds per layer", "zh": "每层乘加次数"},
    "rnn_lab.macs_rnn": {"en": "RNN recurrence n·d², d = {d}", "zh": "RNN 递推 n·d²，d = {d}"},
    "rnn_lab.macs_attention": {"en": "attention scores n²·d, d = {d}", "zh": "注意力分数 n²·d，d = {d}"},
    "rnn_lab.distance_slider": {"en": "distance k", "zh": "距离 k"},
    "rnn_lab.scale_slider": {"en": "RNN recurrent scale", "zh": "RNN 循环权重尺度"},
    "rnn_lab.scale_hint": {"en": "The recurrent scale is the spectral radius of W_h: small values make the chain forget, "
                                 "large ones make its gradient explode. Attention has no chain, so its line never moves.",
                           "zh": "循环权重尺度就是 W_h 的谱半径：取值小，链条会遗忘；取值大，梯度会爆炸。"
                                 "注意力没有链条，所以它的曲线纹丝不动。"},
    "rnn_lab.token_last": {"en": "last token\n(its output)", "zh": "最后一个\ntoken 的输出"},
    "rnn_lab.token_marker": {"en": "early token", "zh": "早先的 token"},
    "rnn_lab.rnn_hops": {"en": "RNN: {k} hand-offs", "zh": "RNN：接力 {k} 次"},
    "rnn_lab.attention_hop": {"en": "attention: 1 step", "zh": "注意力：1 步"},
    "rnn_lab.readout": {"en": "distance k = {k} · RNN: {rnn_path} hand-offs, influence {rnn} ({rnn_kept} × its value at "
                              "k = 1) · attention: 1 step, influence {att} ({att_kept} × its value at k = 1)",
                        "zh": "距离 k = {k} · RNN：接力 {rnn_path} 次，影响 {rnn}（k = 1 时的 {rnn_kept} 倍）"
                              " · 注意力：1 步，影响 {att}（k = 1 时的 {att_kept} 倍）"},
    "rnn_lab.fading": {"en": "The RNN has all but lost the early token: each hand-off shrinks what is left of it.",
                       "zh": "RNN 几乎已经丢掉了这个早先的 token：每接力一次，它剩下的影响就再缩小一点。"},
    "rnn_lab.exploding": {"en": "The RNN's influence explodes: each hand-off multiplies it; training would blow up.",
                          "zh": "RNN 的影响在爆炸：每接力一次就放大一次，训练会失控。"},
    "rnn_lab.holding": {"en": "The RNN still feels the early token here; move k further and watch it go.",
                        "zh": "在这个距离上 RNN 还能感受到早先的 token；把 k 再拉远一些，看它如何消失。"},
    # --- efficient (10) ------------------------------------------------------------------------------
    "efficient_lab.naive_analytic": {"en": "naive, analytic: weights (T, T) + output",
                                     "zh": "朴素实现，理论值：权重 (T, T) + 输出"},
    "efficient_lab.naive_measured": {"en": "naive, measured", "zh": "朴素实现，实测"},
    "efficient_lab.tiled": {"en": "tiled (online softmax), measured", "zh": "分块（在线 softmax），实测"},
    "efficient_lab.length": {"en": "sequence length T", "zh": "序列长度 T"},
    "efficient_lab.peak_mib": {"en": "peak memory (MiB)", "zh": "峰值内存（MiB）"},
    "efficient_lab.method_full": {"en": "full (tiled)", "zh": "全局注意力（分块）"},
    "efficient_lab.method_window": {"en": "sliding window", "zh": "滑动窗口"},
    "efficient_lab.chance": {"en": "chance {p}", "zh": "随机猜测 {p}"},
    "efficient_lab.depth": {"en": "needle position (depth in the document)", "zh": "needle 的位置（在文档中的深度）"},
    "efficient_lab.accuracy": {"en": "task accuracy", "zh": "任务正确率"},
    "efficient_lab.curve": {"en": "{method}, T = {t}", "zh": "{method}，T = {t}"},
    "efficient_lab.pattern_full": {"en": "full: {n} pairs", "zh": "全局：{n} 对"},
    "efficient_lab.pattern_window": {"en": "window W = {w}: {n} pairs", "zh": "窗口 W = {w}：{n} 对"},
    "efficient_lab.pattern_sparse": {"en": "window + global token: {n} pairs", "zh": "窗口 + 全局 token：{n} 对"},
    "efficient_lab.window": {"en": "window W (keys)", "zh": "窗口 W（Key 个数）"},
    "efficient_lab.distance": {"en": "needle distance (tokens before the question)", "zh": "needle 距离（在问题之前几个 token）"},
    "efficient_lab.key_position": {"en": "key position j (the question is the last token)",
                                   "zh": "Key 的位置 j（问题是最后一个 token）"},
    "efficient_lab.window_band": {"en": "inside the window", "zh": "窗口之内"},
    "efficient_lab.needle": {"en": "needle", "zh": "needle"},
    "efficient_lab.correct": {"en": "right", "zh": "正确"},
    "efficient_lab.wrong": {"en": "wrong", "zh": "错误"},
    "efficient_lab.readout_visible": {"en": "The needle is {d} tokens before the question: inside the window of {w}.",
                                      "zh": "needle 在问题之前 {d} 个 token：在 {w} 个 Key 的窗口之内。"},
    "efficient_lab.readout_hidden": {"en": "The needle is {d} tokens before the question: outside the window of {w}, "
                                           "so its weight is exactly 0.",
                                     "zh": "needle 在问题之前 {d} 个 token：在 {w} 个 Key 的窗口之外，所以它的权重恰好为 0。"},
    "efficient_lab.readout_weight": {"en": "Needle weight: window {ww}, full {wf} · answer: window {aw}, full {af}",
                                     "zh": "needle 的权重：窗口 {ww}，全局 {wf} · 答案：窗口{aw}，全局{af}"},
    "efficient_lab.readout_pairs": {"en": "Pairs computed for all {t} queries: window {pw} of full {pf} ({share})",
                                    "zh": "全部 {t} 个 Query 要计算的配对：窗口 {pw}，全局 {pf}（占 {share}）"},
}
