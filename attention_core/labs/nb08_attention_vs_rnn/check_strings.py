"""The words of notebook 08's checkers (checks.py), English and Chinese side by side per key.

The shared words (exceptions, time-outs, shapes, values) are teaching.checks's.
"""

STRINGS: dict[str, dict[str, str]] = {
    "exercises.what.states": {"en": "hidden states", "zh": "隐藏状态"},
    "exercises.what.jacobian": {"en": "Jacobian", "zh": "雅可比矩阵"},
    "exercises.rnn.not_carried": {"en": "Each of your steps starts again from h = 0 ({case}): step t must use the "
                                        "state of step t-1, h = tanh(x_t W_x + h W_h + b), carried through the loop.",
                                  "zh": "你的每一步都从 h = 0 重新开始（{case}）：第 t 步必须用上第 t-1 步的状态，"
                                        "h = tanh(x_t W_x + h W_h + b)，在循环中一路传下去。"},
    "exercises.rnn.no_tanh": {"en": "Your states are missing the tanh ({case}): h_t = tanh(x_t W_x + h_(t-1) W_h + b).",
                              "zh": "你的状态少了 tanh（{case}）：h_t = tanh(x_t W_x + h_(t-1) W_h + b)。"},
    "exercises.rnn.states_shape": {"en": " Return every state, one row per time step (T, D_h): not only the last, "
                                         "and not h_0 = 0.",
                                   "zh": "请返回每一步的状态，每个时间步一行 (T, D_h)：不要只返回最后一个，也不要包括 "
                                         "h_0 = 0。"},
    "exercises.rnn.ok": {"en": "All good: your RNN gives the states of ac's reference RNN, one step after another.",
                         "zh": "全部通过：你的 RNN 逐步算出的状态与参考 RNN 完全一致。"},
    "exercises.grad.no_tanh": {"en": "Your Jacobian forgets the tanh ({case}): each step multiplies by "
                                     "diag(1 − h_t²) as well as by W_hᵀ, and those factors below 1 are part of why "
                                     "the gradient fades.",
                               "zh": "你的雅可比矩阵忘了 tanh 的导数（{case}）：每一步除了乘 W_hᵀ，还要乘 diag(1 − "
                                     "h_t²)；"
                                     "这些小于 1 的因子正是梯度衰减的原因之一。"},
    "exercises.grad.order": {"en": "Your factors are multiplied in the wrong order ({case}): the chain rule puts the "
                                   "last step first, J = J_T ... J_1 (d h_0 / d x_0).",
                             "zh": "你的各个因子乘的顺序反了（{case}）：链式法则要把最后一步放在最左边，"
                                   "J = J_T ... J_1 (d h_0 / d x_0)。"},
    "exercises.grad.transposed": {"en": " The Jacobian d h_T / d x_0 has one row per hidden unit and one column per "
                                        "input feature: (D_h, D_in).",
                                  "zh": "雅可比矩阵 d h_T / d x_0 每个隐藏单元一行、"
                                        "每个输入特征一列：(D_h, D_in)。"},
    "exercises.grad.ok": {"en": "All good: your chain-rule Jacobian matches finite differences, for 1, 6 and 30 steps.",
                          "zh": "全部通过：你用链式法则求出的雅可比矩阵在 1 步、6 步和 30 步时都与有限差分一致。"},
}
