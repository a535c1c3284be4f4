"""The words of notebook 02's checkers (checks.py), English and Chinese side by side per key.

The shared words (exceptions, time-outs, shapes, values) are teaching.checks's.
"""

STRINGS: dict[str, dict[str, str]] = {
    "checks.scores.ok": {"en": "All good: Q K^T / sqrt(d_k) with shape (Tq, Tk), on the worked example of notebook 01, "
                               "a rectangular case and a batch.",
                         "zh": "全部通过：Q·Kᵀ / √d_k 的形状为 (Tq, Tk)，01 节的例题、长宽不等的情形和批量输入都正确。"
                               ""},
    "exercises.var.not_sampled": {"en": "Your function returns {got} without sampling ({case}): the same pair for two "
                                        "seeds, or exactly (d_k, 1). The exercise measures the variance: draw "
                                        "n_samples pairs q, k with np.random.default_rng(seed), take their dot "
                                        "products and compute their variance; the estimate then moves a little "
                                        "with the seed.",
                                  "zh": "你的函数没有采样就返回了 {got}（{case}）："
                                        "两个种子给出同一对数，或者恰好是 (d_k, 1)。"
                                        "这个练习要实测方差：用 np.random.default_rng(seed) 抽 n_samples 对 q、k，"
                                        "求它们的点积，再算方差；这样得到的估计值会随种子略有变化。"},
    "exercises.var.few_draws": {"en": "Your function drew only {drawn} random numbers from "
                                      "np.random.default_rng(seed) ({case}), but n_samples pairs q, k of width d_k "
                                      "take 2 × n_samples × d_k = {need}: it returns an estimate without sampling "
                                      "it (d_k plus some seeded noise?). Draw the pairs, take their dot products "
                                      "and measure the variance of those.",
                                "zh": "你的函数只从 np.random.default_rng(seed) 抽了 {drawn} 个随机数（{case}），"
                                      "可是 n_samples 对维度为 d_k 的 q、k 需要 2 × n_samples × d_k = {need} 个："
                                      "它没有采样，就直接给出了估计值（是不是 d_k 加上一点带种子的噪声？）。"
                                      "要真的抽出这些向量对，求点积，再测这些点积的方差。"},
    "exercises.var.no_spread": {"en": "With n_samples = 4 your estimates of Var(q·k) barely move from seed to seed "
                                      "(from {low} to {high}, a relative spread of {spread}; {case}), but the "
                                      "variance of four samples scatters by most of its size (a relative spread "
                                      "near 0.8). The result is not measured on n_samples drawn pairs: is it d_k "
                                      "plus a little noise, without sampling, or is n_samples ignored?",
                                "zh": "n_samples = 4 时，你对 Var(q·k) 的估计几乎不随种子变化（从 {low} 到 {high}，"
                                      "相对离散程度 {spread}；{case}），可是只有四个样本时，方差的估计值会上下波动，"
                                      "幅度接近它本身的大小（相对离散程度约 0.8）。这个结果不是在 n_samples 对"
                                      "抽出来的向量上测得的：是不是 d_k 加上一点噪声、根本没有采样，"
                                      "或者忽略了 n_samples？"},
    "exercises.var.unseeded": {"en": "Your function gives different results for the same seed ({case}): create the "
                                     "generator from it, rng = np.random.default_rng(seed), and draw every sample "
                                     "from rng, so that a result can be reproduced.",
                               "zh": "同一个种子，你的函数却给出了不同的结果（{case}）：要用它创建随机数生成器，"
                                     "rng = np.random.default_rng(seed)，所有样本都从 rng 抽取，结果才能复现。"},
    "exercises.var.not_pair": {"en": "Return a pair (variance of the raw dot products, variance of the scaled "
                                     "ones) of two numbers ({case}).",
                               "zh": "请返回两个数组成的二元组：（原始点积的方差，缩放后点积的方差）（{case}）。"},
    "exercises.var.std": {"en": "For {case} you returned {got}, close to sqrt(d_k): that is the standard deviation. "
                                "The variance is its square (np.var, not np.std).",
                          "zh": "对于 {case}，你返回了 {got}，接近 √d_k：这是标准差。方差是它的平方（用 np.var，不是 "
                                "np.std）。"},
    "exercises.var.mean": {"en": "For {case} the raw variance is {got}, about 1/d_k: you averaged the d_k "
                                 "products (np.mean) instead of adding them. A dot product is a sum.",
                           "zh": "对于 {case}，原始方差是 {got}，约为 1/d_k：你把 d_k 个乘积取了平均（np.mean），"
                                 "而不是相加。点积是求和。"},
    "exercises.var.raw": {"en": "For {case} the variance of the raw dot products is {got}; it should be close to "
                                "d_k = {dk} (each of the d_k products has variance 1, and variances of independent "
                                "terms add up).",
                          "zh": "对于 {case}，原始点积的方差是 {got}，应该接近 d_k = {dk}"
                                "（d_k 个乘积各自方差为 1，独立项的方差可以相加）。"},
    "exercises.var.by_dk": {"en": "For {case} the scaled variance is {got}, about 1/d_k: you divided by d_k. "
                                  "Divide by sqrt(d_k): variance scales with the square of the factor.",
                            "zh": "对于 {case}，缩放后的方差是 {got}，约为 1/d_k：你除以的是 d_k。应该除以 √d_k："
                                  "方差按缩放因子的平方变化。"},
    "exercises.var.scaled": {"en": "For {case} the variance of the scaled dot products is {got}; dividing by "
                                   "sqrt(d_k) should bring it back to about 1.",
                             "zh": "对于 {case}，缩放后点积的方差是 {got}；除以 √d_k 之后应该回到 1 左右。"},
    "exercises.var.ok": {"en": "All good: the raw variance grows like d_k (4, 64, 512) and the scaled one stays "
                               "near 1.",
                         "zh": "全部通过：原始方差随 d_k（4、64、512）线性增长，缩放后的方差始终在 1 左右。"},
}
