# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     notebook_metadata_filter: -jupytext.text_representation
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown] lang="en"
# # 03 · Softmax
#
# **After this notebook you will be able to**
# - compute softmax by hand and give four reasons why attention uses it;
# - explain why it does not "compute a probability": shifting the scores changes nothing, scaling them everything;
# - control how peaked the weights are with a temperature, without overflow at any temperature;
# - answer "is softmax output always sparse?", and write a softmax that passes a checker.
#
# **What you should know first:** one attention step ([01](01_query_key_value.ipynb)) and the softmax Jacobian
# ([02](02_scaled_dot_product.ipynb)). *About 50 minutes.*

# %% [markdown] lang="zh"
# # 03 · Softmax
#
# **学完本节，你将能够**
# - 手算 softmax，并说出注意力使用它的四个理由；
# - 解释它为什么不是在“算概率”：分数整体加一个常数，结果不变；整体乘一个系数，结果全变；
# - 用温度控制权重有多尖，并且在任何温度下都不溢出；
# - 回答“softmax 的输出一定是稀疏的吗”，并写一个能通过检查器的 softmax。
#
# **需要的基础**：一步注意力，见 [01 节](01_query_key_value.ipynb)；softmax 的雅可比矩阵，见 [02 节](02_scaled_dot_product.ipynb)。*约 50 分钟。*

# %%
LANG = "[en]en[zh]zh"  # [en] language of this edition: "en" or "zh" [zh] 本版的语言："en" 或 "zh"
# %matplotlib inline
import numpy as np

import attention_core as ac
from attention_core.labs.nb03_softmax import checks, dropout_lab, softmax_lab, widgets
from attention_core.teaching import i18n, quiz
from attention_core.teaching.tables import pad

i18n.set_language(LANG)
rng = np.random.default_rng(0)  # [en] every random number in this notebook comes from this seed [zh] 本节的所有随机数都来自这个种子
np.set_printoptions(precision=3, suppress=True)  # [en] arrays print with 3 decimals [zh] 数组打印时保留 3 位小数

# %% [markdown] lang="en"
# ## From scores to weights
#
# One query compared with five tokens gives five scores, any real numbers. Attention needs **weights** to mix the
# five values. Softmax is the bridge:
#
# $$\text{softmax}(x)_i = \frac{e^{x_i}}{\sum_j e^{x_j}}$$
#
# Three steps: **exponentiate** (every number becomes positive, the order is kept), **add up**, **divide** (the
# results sum to 1). The same five scores serve the whole notebook.

# %% [markdown] lang="zh"
# ## 从分数到权重
#
# 一个 Query 与五个 token 的 Key 比较，得到五个分数，可以是任意实数。注意力需要的是混合五个 Value 的**权重**，softmax 就是两者之间的桥梁：
#
# $$\text{softmax}(x)_i = \frac{e^{x_i}}{\sum_j e^{x_j}}$$
#
# 它分三步：**取指数**（每个数都变成正数，大小顺序不变）、**求和**、**相除**（结果之和为 1）。整节都用同一组五个分数。

# %%
scores = np.array([2.0, 1.0, 0.5, 0.0, -1.0])     # [en] one query against five tokens [zh] 一个 Query 对五个 token 的分数
steps = softmax_lab.softmax_steps(scores, shift=False)   # [en] the naive formula, straight from the definition [zh] 按定义逐步计算的朴素公式
print(pad("[en]scores[zh]分数" + " x", 24), "=", scores)
print(pad("[en]1. exponentiate[zh]1. 取指数" + " e^x", 24), "=", steps["exp"])
print(pad("[en]2. add up[zh]2. 求和" + " Σ e^x", 24), "=", f"{steps['sum'][0]:.3f}")
print(pad("[en]3. divide: weights[zh]3. 相除：权重", 24), "=", steps["weights"], f"[en]  sum = {steps['weights'].sum():.3f}[zh]  和 = {steps['weights'].sum():.3f}")
print("[en]same as ac.softmax:[zh]与 ac.softmax 的结果相同：", np.allclose(steps["weights"], ac.softmax(scores)))


# %% [markdown] lang="en"
# The largest score (2.0) gets the largest weight (0.563), the smallest (−1.0) the smallest (0.028), and none gets
# zero. Why this formula and not something simpler?

# %% [markdown] lang="zh"
# 最大的分数 2.0 得到最大的权重 0.563，最小的分数 −1.0 得到最小的权重 0.028，没有一个是零。为什么偏偏用这个公式？

# %% [markdown] lang="en"
# ## Why softmax? Four reasons
#
# The tutorial *Attention in Transformers, from intuition to formula* [“Transformer Attention 机制入门：从直觉到公式”]
# gives four reasons; each is checked below.
#
# ### 1. Weights you can read
#
# Using the raw scores as weights gives a negative weight and a total of 2.5; dividing by their sum makes the total 1
# but keeps the negative weight, and fails outright when the scores add up to 0. Softmax weights are always positive
# and sum to 1:

# %% [markdown] lang="zh"
# ## 为什么用 softmax？四个理由
#
# 《Transformer Attention 机制入门：从直觉到公式》给出了四个理由，下面逐一验证。
#
# ### 1. 权重可以直接解读
#
# 直接把原始分数当权重，会出现负权重，总和是 2.5；除以分数之和，总和变成 1，负权重却还在，而分数之和为 0 时干脆无法计算。
# softmax 的权重永远为正，总和永远为 1：

# %%
def report(name, w):
    print(pad(name, 16), f"{np.array2string(w, precision=3, floatmode='fixed', separator=', '):<44}",
          f"[en]min {w.min():7.3f}   sum {w.sum():6.3f}[zh]最小值 {w.min():7.3f}   和 {w.sum():6.3f}")

report("[en]raw scores[zh]原始分数", scores)
report("[en]scores / sum[zh]分数 / 总和", scores / scores.sum())
report("softmax", ac.softmax(scores))
balanced = np.array([1.0, -1.0])                      # [en] scores that add up to 0 [zh] 加起来为 0 的分数
with np.errstate(divide="ignore", invalid="ignore"):  # [en] the division by zero is the point here [zh] 这里要看的正是除以零
    report("[en][1, -1] / sum[zh][1, -1] / 总和", balanced / balanced.sum())
report("softmax [1, -1]", ac.softmax(balanced))

# %% [markdown] lang="en"
# So you can say "this query puts 56% of its attention on token 0" (the tutorial: "70% of the attention is on the
# subject"), a sentence that only makes sense for non-negative weights that add up to 1.

# %% [markdown] lang="zh"
# 所以可以说“这个 Query 把 56% 的注意力放在了 token 0 上”（原教程的例子是“这个位置 70% 的注意力在主语上”）。
# 只有权重非负且总和为 1，这句话才有意义。

# %% [markdown] lang="en"
# ### 2. Bounded and gradient-friendly
#
# Every weight lies in $(0, 1)$, even for scores as far apart as ±30. Training also needs the **gradient**, the
# Jacobian of notebook 02, $J = \operatorname{diag}(p) - p\,p^\top$. Here it is for our scores, checked against
# finite differences of `ac.softmax`:

# %% [markdown] lang="zh"
# ### 2. 有界，对梯度友好
#
# 每个权重都落在 $(0, 1)$ 之内，分数相差 ±30 也是如此。训练还需要**梯度**，也就是 02 节的雅可比矩阵
# $J = \operatorname{diag}(p) - p\,p^\top$。下面用本节的分数把它算出来，并与 `ac.softmax` 的有限差分核对：

# %%
extreme = ac.softmax(np.array([30.0, -30.0, 3.0, 0.0]))
print(f"[en]softmax([30, -30, 3, 0]): smallest weight {extreme.min():.1e} > 0, largest = 1 - {1 - extreme.max():.1e} < 1[zh]softmax([30, -30, 3, 0])：最小权重 {extreme.min():.1e} > 0，最大权重 = 1 - {1 - extreme.max():.1e} < 1")

p = ac.softmax(scores)
J = softmax_lab.softmax_jacobian(p)                                        # (5, 5)
J_fd = softmax_lab.finite_difference_jacobian(ac.softmax, scores)           # [en] (5, 5), from calls only [zh] (5, 5)，只靠调用函数得到
print("J = diag(p) - p p^T =")
print(J)
print("[en]agrees with finite differences:[zh]与有限差分一致：", np.allclose(J, J_fd, atol=1e-8))
print(f"[en]largest |J_ij| = {np.abs(J).max():.3f} (never above 1/4);  smallest |J_ij| = {np.abs(J).min():.4f} (not zero)[zh]最大的 |J_ij| = {np.abs(J).max():.3f}（永远不超过 1/4）；最小的 |J_ij| = {np.abs(J).min():.4f}（不为 0）")
print("[en]each row sums to[zh]每一行之和：", np.round(J.sum(axis=1), 12) + 0.0)

# %% [markdown] lang="en"
# Every entry is small (at most $1/4$, since $p(1-p) \le 1/4$) but **none is zero**: a nudge to any score moves
# every weight, so the gradient reaches every position. Each row sums to 0, because what one position gains the
# others lose. The gradient only fades when the weights approach one-hot (notebook 02, and the temperature below).

# %% [markdown] lang="zh"
# 每个元素都很小（最大为 $1/4$，因为 $p(1-p) \le 1/4$），但**没有一个是零**。任何一个分数稍有变化，所有权重都会跟着变，
# 梯度因此能传到每一个位置。每一行之和为 0，因为一个位置多拿的就是其他位置少拿的。只有权重接近 one-hot 时梯度才会消失
# （见 02 节，以及下面的温度）。

# %% [markdown] lang="en"
# ### 3. Competition: the winner takes most, smoothly
#
# Raise the score of token 0 from −3 to 5, the others fixed. Its weight rises and **every** other weight falls: the
# positions share one budget of 1. Unlike argmax nothing jumps, so a gradient exists everywhere, and the losers keep
# their ratios: $p_1 / p_2 = e^{x_1 - x_2}$ does not depend on $x_0$ (column p1/p2 of the table below).

# %% [markdown] lang="zh"
# ### 3. 竞争：赢者拿大头，而且是平滑的
#
# 把 token 0 的分数从 −3 提高到 5，其他分数不变。它的权重上升，**其他每一个**权重都下降，所有位置分的是总量为 1 的同一份预算。
# 与 argmax 不同，这里没有跳变，所以处处都有梯度；输家之间的比例也保持不变，$p_1 / p_2 = e^{x_1 - x_2}$ 与 $x_0$ 无关（见下表的 p1/p2 一列）。

# %%
x0_values = np.linspace(-3.0, 5.0, 9)
sweep = softmax_lab.competition_sweep(scores, 0, x0_values)               # (9, 5)
print("[en]x0     weights of tokens 0..4              p1/p2[zh]x0     token 0..4 的权重                   p1/p2")
for x0, w in zip(x0_values, sweep):
    print(f"{x0:4.0f}   {np.array2string(w, precision=3, floatmode='fixed', separator=', ')}   {w[1] / w[2]:.3f}")
rising = np.diff(sweep[:, 0]) > 0
falling = (np.diff(sweep[:, 1:], axis=0) < 0).all()
print(f"[en]weight 0 always rises: {bool(rising.all())}   every other weight always falls: {bool(falling)}[zh]权重 0 始终上升：{bool(rising.all())}   其他每个权重始终下降：{bool(falling)}")
print(f"e^(x1 - x2) = e^0.5 = {np.exp(0.5):.3f}")

# %%
ax = softmax_lab.plot_competition(scores, 0, np.linspace(-3.0, 5.0, 161))

# %% [markdown] lang="en"
# The thick line is token 0; the dashed step is argmax (take the largest only), 0 until token 0 passes the best of the others (1.0),
# then 1. Softmax is the smooth version of that step: the winner takes most, never all.

# %% [markdown] lang="zh"
# 粗线是 token 0；虚线台阶是 argmax（只取最大者），在 token 0 的分数超过其余分数中的最大值 1.0 之前一直是 0，之后突变为 1。
# softmax 是这个台阶的平滑版本，赢者拿大头，但从不全拿。

# %% [markdown] lang="en"
# ### 4. A convex combination of the values
#
# Non-negative weights that sum to 1 make the output $\sum_j \alpha_j v_j$ a **convex combination** of the values: it
# lies inside the polygon they span (their *convex hull*). Five 2-D values and 300 random score rows: every output
# lands inside, while the raw scores as weights (sum 2.5) throw the output outside.

# %% [markdown] lang="zh"
# ### 4. 凸组合：输出落在 Value 之间
#
# 权重非负且和为 1，输出 $\sum_j \alpha_j v_j$ 就是各个 Value 的**凸组合**，落在它们围成的多边形（*凸包*）之内。
# 下面用五个二维 Value 和 300 行随机分数来验证，每个输出都在凸包内；改用原始分数当权重（总和 2.5），输出就被甩到了外面。

# %%
values = np.array([[2.0, 0.0], [0.0, 4.0], [-2.0, 1.0], [-1.0, -2.0], [2.0, -2.0]])   # (Tk=5, Dv=2)
random_scores = rng.normal(scale=2.0, size=(300, 5))                                   # (300, Tk)
outputs = ac.softmax(random_scores) @ values                                           # (300, Dv)
hull = softmax_lab.convex_hull_2d(values)
raw_mix = scores @ values                                                              # [en] raw scores as weights [zh] 把原始分数直接当权重
print("[en]all 300 softmax outputs inside the hull:[zh]300 个 softmax 输出全都在凸包之内：", bool(softmax_lab.inside_convex_hull(outputs, hull).all()))
print(pad("[en]output for our five scores:[zh]本节五个分数的输出：", 28), ac.softmax(scores) @ values,
      " " + "[en]inside:[zh]在凸包内：", softmax_lab.inside_convex_hull(ac.softmax(scores) @ values, hull))
print(pad("[en]raw scores as weights:[zh]直接用原始分数当权重：", 28), raw_mix, " " + "[en]inside:[zh]在凸包内：",
      softmax_lab.inside_convex_hull(raw_mix, hull))
ax = softmax_lab.plot_convex_combination(values, outputs, outside=raw_mix)

# %% [markdown] lang="en"
# This is the tutorial's "additivity": whatever the scores, the output stays on the scale of the values. Attention can
# only **blend** what the values offer, never amplify it.

# %% [markdown] lang="zh"
# 这就是原教程所说的“可加性”。无论分数是多少，输出都保持在 Value 的数值范围之内，注意力只能**混合** Value 提供的内容，不能放大它们。

# %% [markdown] lang="en"
# ## What softmax is not: a probability of anything
#
# A common misreading: "softmax computes the probability that token $j$ is the right one". It **maps any real vector
# onto the simplex** (non-negative vectors that sum to 1). Add a constant to every score: nothing changes. Multiply
# the scores by a constant: everything changes.

# %% [markdown] lang="zh"
# ## softmax 不是在“算概率”
#
# 一个常见的误解是“softmax 算的是 token $j$ 为正确答案的概率”。其实它只是**把任意实数向量映射到单纯形上**，
# 即所有元素非负、总和为 1 的向量。给每个分数加同一个常数，什么都不变；把分数乘以同一个常数，全都变了。

# %%
print("[en]shift: softmax(x + c)[zh]平移：softmax(x + c)")
for c in (-100.0, 0.0, 3.0, 1000.0):
    w = ac.softmax(scores + c)
    print(f"[en]  c = {c:7.1f}  weights {w}   max change vs c = 0: {np.abs(w - ac.softmax(scores)).max():.1e}[zh]  c = {c:7.1f}  权重 {w}   与 c = 0 相比的最大变化：{np.abs(w - ac.softmax(scores)).max():.1e}")
print("[en]scale: softmax(a · x)[zh]缩放：softmax(a · x)")
for a in (0.1, 0.5, 1.0, 2.0, 10.0):
    print(f"[en]  a = {a:4.1f}   weights {ac.softmax(a * scores)}[zh]  a = {a:4.1f}   权重 {ac.softmax(a * scores)}")
noise = rng.normal(size=5)
print("[en]random noise:[zh]随机噪声：", noise, "-> softmax", ac.softmax(noise), f"[en] sum = {ac.softmax(noise).sum():.3f}[zh] 和 = {ac.softmax(noise).sum():.3f}")

# %% [markdown] lang="en"
# Softmax only sees **differences** ($e^{x_i + c} / \sum_j e^{x_j + c} = e^{x_i} / \sum_j e^{x_j}$), but it is very
# sensitive to **scale**: the same ordering gives token 0 a weight of 0.231 or 1.000 depending on a factor the model
# chose. Even random noise comes out as a tidy "distribution". So 0.563 is a mixing share, not a calibrated
# probability; softmax **normalises, makes the positions compete, and smooths**.

# %% [markdown] lang="zh"
# softmax 只看分数之间的**差**（$e^{x_i + c} / \sum_j e^{x_j + c} = e^{x_i} / \sum_j e^{x_j}$），对**尺度**却非常敏感。
# 同样的大小顺序，token 0 的权重可以是 0.231，也可以是 1.000，取决于模型选的一个系数。连随机噪声都会变成整整齐齐的“分布”。
# 所以 0.563 是混合的份额，不是校准过的概率。用原教程的话说，softmax 在这里同时完成了**归一化、竞争、平滑**三件事。

# %% [markdown] lang="en"
# ## Temperature
#
# The scale that matters is the **temperature** $\tau$, in $\text{softmax}(x / \tau)$. A low temperature stretches the
# differences (near one-hot), a high one shrinks them (near uniform, $1/N$ each); the $\sqrt{d_k}$ of notebook 02 is a
# temperature. The entropy $H = -\sum_i p_i \ln p_i$ measures the spread: 0 for one-hot, $\ln 5 = 1.609$ for five
# equal weights.

# %% [markdown] lang="zh"
# ## 温度
#
# 起作用的这个尺度叫**温度** $\tau$，即 $\text{softmax}(x / \tau)$。温度低，分数之间的差距被拉大，接近 one-hot；温度高，差距被压小，
# 接近均匀分布，每个都是 $1/N$。02 节的 $\sqrt{d_k}$ 就是一个温度。熵 $H = -\sum_i p_i \ln p_i$ 衡量权重有多分散，
# one-hot 时为 0，五个权重相等时为 $\ln 5 = 1.609$。

# %%
print("    τ   " + pad("[en]weights[zh]权重", 42) + pad("[en]max weight[zh]最大权重", 13) + "[en]entropy[zh]熵")
for tau in (0.01, 0.1, 0.5, 1, 2, 10, 100):
    s = widgets.temperature_state(scores, tau)
    print(f"{tau:6g}   {np.array2string(s['weights'], precision=3, floatmode='fixed', separator=', ')}"
          f"   {s['max_weight']:.3f}        {s['entropy']:.3f}")
print(f"[en]uniform: 1/5 = {1 / 5:.3f}, ln 5 = {np.log(5):.3f}[zh]均匀分布：1/5 = {1 / 5:.3f}，ln 5 = {np.log(5):.3f}")

# %%
ax = softmax_lab.plot_temperature_sweep(scores, np.logspace(-2, 2, 201))

# %% [markdown] lang="en"
# Between $\tau = 0.1$ and $\tau = 10$ the weights travel from one-hot to nearly uniform, and the order never changes
# (the runner-up's weight even peaks on the way, at 0.227 near $\tau = 2$). Move the slider yourself (logarithmic, 0.01
# to 100), or try `widgets.temperature_widget([5, 5, 0, 0, 0])`: two equal winners share the weight at every temperature.

# %% [markdown] lang="zh"
# 从 $\tau = 0.1$ 到 $\tau = 10$，权重从 one-hot 一路变到几乎均匀，大小顺序始终不变（第二名的权重途中还会在 $\tau = 2$ 附近达到峰值 0.227）。
# 自己拖动滑块试试（对数刻度，从 0.01 到 100），或者运行 `widgets.temperature_widget([5, 5, 0, 0, 0])`，
# 两个并列第一的分数在任何温度下都平分权重。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
widgets.temperature_widget(scores, temperature=1.0)

# %% [markdown] lang="en"
# ### Stable at every temperature: subtract the maximum
#
# The widget never breaks, even at $\tau = 0.01$ where the scores become $[200, 100, 50, 0, -100]$. The naive
# formula, computed straight from the definition, would: float32 cannot exceed about $3.4 \times 10^{38}$, so $e^{x}$
# is infinite for $x > 88.7$, and $\infty / \infty$ is `nan`. Scores of $[100, 90]$ are enough:

# %% [markdown] lang="zh"
# ### 任何温度下都稳定：先减去最大值
#
# 即使在 $\tau = 0.01$，分数变成 $[200, 100, 50, 0, -100]$，这个控件也不会出错，按定义直接计算的朴素公式却会出错。
# float32 能表示的最大数约为 $3.4 \times 10^{38}$，所以 $x > 88.7$ 时 $e^{x}$ 就是无穷大，而 $\infty / \infty$ 是 `nan`。分数为 $[100, 90]$ 就足以出问题：

# %%
big = np.array([100.0, 90.0], dtype=np.float32)
print(f"[en]float32 largest number {np.finfo(np.float32).max:.3e};  ln of it = {np.log(np.finfo(np.float32).max):.2f}[zh]float32 能表示的最大数 {np.finfo(np.float32).max:.3e}；它的对数 = {np.log(np.finfo(np.float32).max):.2f}")
naive = softmax_lab.softmax_steps(big, shift=False, dtype="float32")       # exp(x) / sum(exp(x))
print(pad("[en]naive[zh]朴素公式", 10), "e^x =", naive["exp"], "[en]  sum =[zh]  和 =", naive["sum"],
      "[en]  weights =[zh]  权重 =", naive["weights"])
print(pad("ac.softmax", 22), "[en]weights =[zh]权重 =", np.array2string(ac.softmax(big), precision=6, floatmode="fixed"),
      " dtype", ac.softmax(big).dtype)
six = dict(precision=6, floatmode="fixed")                                  # [en] 4.5e-05 would print as 0.000 [zh] 否则 4.5e-05 会显示成 0.000
ln_max64 = np.log(np.finfo(np.float64).max)                                # [en] e^x overflows above this x [zh] x 超过它，e^x 就溢出
print(f"[en]float64 only raises the threshold to x > {ln_max64:.1f}: naive [100, 90] ->[zh]float64 只是把溢出的门槛推高到 x > {ln_max64:.1f}：朴素公式 [100, 90] ->",
      np.array2string(softmax_lab.naive_softmax([100.0, 90.0], dtype="float64"), **six),
      "  " + "[en]naive [1000, 990] ->[zh]朴素公式 [1000, 990] ->", softmax_lab.naive_softmax([1000.0, 990.0], dtype="float64"))
print("[en]a low temperature overflows it too: naive softmax(x / 0.01) in float32 ->[zh]温度一低，朴素公式照样溢出：float32 下的 softmax(x / 0.01) ->", softmax_lab.naive_softmax(scores / 0.01))

# %% [markdown] lang="en"
# The fix is the shift invariance above: $\text{softmax}(x) = \text{softmax}(x - \max x)$. After the shift every
# exponent is $\le 0$ and the largest term is exactly 1, so the sum lies between 1 and $N$: nothing overflows and
# nothing divides by 0. `ac.softmax` does this (and divides by $\tau$ after the shift):

# %% [markdown] lang="zh"
# 解决办法就是上面的平移不变性：$\text{softmax}(x) = \text{softmax}(x - \max x)$。平移之后每个指数都 $\le 0$，最大的一项恰好是 1，
# 总和介于 1 和 $N$ 之间，既不会溢出，也不会除以 0。`ac.softmax` 就是这样做的（平移之后再除以 $\tau$）：

# %%
stable = softmax_lab.softmax_steps(big, shift=True, dtype="float32")       # exp(x - max) / sum(exp(x - max))
print("x - max =", stable["shifted"])
print("e^(x - max) =", np.array2string(stable["exp"], precision=6, floatmode="fixed"), f"[en]  sum = {stable['sum'][0]:.6f}[zh]  和 = {stable['sum'][0]:.6f}")
print("[en]weights[zh]权重", "=", np.array2string(stable["weights"], precision=6, floatmode="fixed"),
      "  " + "[en]same as ac.softmax:[zh]与 ac.softmax 的结果相同：", np.allclose(stable["weights"], ac.softmax(big)))
low_t = softmax_lab.softmax_steps(scores, temperature=0.01, shift=True, dtype="float32")
print("τ = 0.01, float32:", low_t["weights"], "  " + "[en]all finite:[zh]全是有限数：", bool(np.isfinite(low_t["weights"]).all()))

# %% [markdown] lang="en"
# ### Is the output sparse?
#
# A sparse vector has exact zeros. Softmax has none, since $e^{x} > 0$ for every finite $x$; it only comes **close**
# to one-hot when one score is far above the others, which is what a low temperature does. Exact zeros come from a
# mask (a score of $-\infty$, notebook 04), and from floating point when a score is about 745 below the maximum
# (float64; about 104 in float32).

# %% [markdown] lang="zh"
# ### 输出是稀疏的吗？
#
# 稀疏向量里有严格的 0。softmax 没有，因为对任何有限的 $x$ 都有 $e^{x} > 0$；只有某个分数远高于其他分数时它才**接近** one-hot，
# 降低温度做的正是这件事。严格的 0 来自掩码（分数为 $-\infty$，见 04 节），或者来自浮点下溢：某个分数比最大值低约 745 时，
# 它的指数在 float64 里会下溢成 0（float32 里低约 104 就会）。

# %%
for tau in (100, 1, 0.1, 0.01):
    w = ac.softmax(scores, temperature=tau)
    print(f"[en]τ = {tau:<5g} smallest weight {w.min():.2e}   weights above 1%: {(w > 0.01).sum()}   exact zeros: {(w == 0).sum()}[zh]τ = {tau:<5g} 最小权重 {w.min():.2e}   超过 1% 的权重：{(w > 0.01).sum()} 个   严格为 0：{(w == 0).sum()} 个")
many = rng.normal(scale=3.0, size=(1000, 8))                                # [en] 1000 random score rows [zh] 1000 行随机分数
print(f"[en]1000 random rows of 8 scores: smallest weight anywhere {ac.softmax(many).min():.2e} > 0[zh]1000 行随机分数（每行 8 个）：所有权重中最小的是 {ac.softmax(many).min():.2e} > 0")
print("[en]a mask makes exact zeros:[zh]掩码才会产生严格的 0：", ac.softmax(scores, mask=np.array([True, False, True, False, True])))
print("[en]floating-point underflow: softmax([0, -800]) =[zh]浮点下溢：softmax([0, -800]) =", ac.softmax(np.array([0.0, -800.0])))

# %% [markdown] lang="en"
# So the answer to the self-test is **no** (the tutorial says "not necessarily"): for finite scores every weight is
# above 0; softmax is nearly one-hot only when one score dominates, and the temperature controls how peaked it is.
# Exact zeros come only from a mask or from floating-point underflow.
#
# **And attention dropout?** The tutorial names it next to the temperature, but it does another job: during training
# it zeroes each weight with probability $p$ and divides the survivors by $1 - p$, a regulariser. A draw has exact
# zeros at random places and no longer sums to 1; averaged over many draws it is the softmax row itself; at inference
# it is off:

# %% [markdown] lang="zh"
# 所以自测题的答案是**不是**（原教程答“不一定”）。对有限的分数，每个权重都大于 0；只有某个分数远大于其他时才**接近** one-hot，
# 控制它有多尖的是温度。严格的 0 只来自掩码或浮点下溢。
#
# **那注意力权重上的暂退法（dropout）呢**？原教程把它和温度并列，可它干的是另一件事。训练时它以概率 $p$ 把每个权重置 0，
# 再把留下来的除以 $1 - p$，这是一种正则化手段。每次抽样都在随机位置出现严格的 0，和也不再是 1；多次抽样的平均正是原来那行 softmax；
# 推理时它是关闭的：

# %%
dropout_lab.dropout_vs_temperature(scores, p=0.5, seed=0)

# %% [markdown] lang="en"
# A trained model gets peaked weights where it needs them through its scores (and the fixed temperature $\sqrt{d_k}$),
# not through dropout.
#
# ### Self-test (Q5)

# %% [markdown] lang="zh"
# 训练好的模型在需要的地方仍然会得到很尖的权重，靠的是它的分数（以及固定的温度 $\sqrt{d_k}$），而不是暂退法。
#
# ### 自测题（Q5）

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
quiz.quiz_widget("q5")

# %% [markdown] lang="en"
# Now compute one by hand (a calculator is fine; $e \approx 2.718$):

# %% [markdown] lang="zh"
# 再亲手算一个（可以用计算器，$e \approx 2.718$）：

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
quiz.quiz_widget("q5b")


# %% [markdown] lang="en"
# ## Exercise 1 · ★★☆ · about 10 min: write softmax yourself
#
# A first attempt usually copies the formula as printed. It works on small scores; the checker tries large ones too:

# %% [markdown] lang="zh"
# ## 练习 1 · ★★☆ · 约 10 分钟：亲手写一个 softmax
#
# 第一次写时，通常会照着公式原样抄下来。它对小的分数没问题，但检查器也会试大的分数：

# %%
def softmax_first_try(x):                         # [en] the formula as printed: no max subtracted [zh] 照抄公式：没有减去最大值
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)

checks.check_softmax(softmax_first_try)


# %% [markdown] lang="en"
# **Your turn.** Write `my_softmax` below and run the cell. Once it passes, break it on purpose: subtract `x.max()`
# (the maximum of the whole array, not of each row), or sum over `axis=0`, and read what the checker says.

# %% [markdown] lang="zh"
# **轮到你了**。写出下面的 `my_softmax` 并运行。通过之后再故意改错，比如减去 `x.max()`（整个数组的最大值，而不是每一行的），
# 或者沿 `axis=0` 求和，看看检查器怎么说。

# %%
def my_softmax(x):
    """[en] x (..., N) -> weights (..., N): softmax along the last axis, stable for large scores.
    [zh] x (..., N) -> weights (..., N)：沿最后一个轴做 softmax，分数很大时也要数值稳定。"""
    # [en] 1. subtract each row's maximum (keepdims=True keeps the shape for broadcasting)
    # [zh] 1. 每一行减去该行的最大值（keepdims=True 保留形状，便于广播）
    # [en] 2. exponentiate [zh] 2. 取指数
    # [en] 3. divide by the sum along the last axis [zh] 3. 除以沿最后一个轴的总和
    raise NotImplementedError("[en]write the three steps above[zh]写出上面的三步")

checks.check_softmax(my_softmax)

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def my_softmax(x):
#     shifted = x - x.max(axis=-1, keepdims=True)       # every exponent <= 0: no overflow
#     e = np.exp(shifted)                               # (..., N), each in (0, 1]
#     return e / e.sum(axis=-1, keepdims=True)          # each row sums to 1
# ```
# </details>
#
# A pass looks like this (the library's own function):

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def my_softmax(x):
#     shifted = x - x.max(axis=-1, keepdims=True)       # 每个指数都 <= 0：不会溢出
#     e = np.exp(shifted)                               # (..., N)，每个都在 (0, 1] 内
#     return e / e.sum(axis=-1, keepdims=True)          # 每一行的和为 1
# ```
# </details>
#
# 通过检查时是这样的（检查的是库里自带的函数）：

# %%
checks.check_softmax(ac.softmax)


# %% [markdown] lang="en"
# ## Exercise 2 · ★☆☆ · about 5 min: add a temperature
#
# `my_softmax_t(x, temperature)` returns $\text{softmax}(x / \tau)$ along the last axis. The checker tries
# $\tau = 0.5, 1, 4$ on $[2, 1, 0]$ (lower must be sharper), a batch, and $\tau = 0.001$, where $x / \tau$ reaches
# 3000.

# %% [markdown] lang="zh"
# ## 练习 2 · ★☆☆ · 约 5 分钟：加上温度
#
# `my_softmax_t(x, temperature)` 沿最后一个轴返回 $\text{softmax}(x / \tau)$。检查器会在 $[2, 1, 0]$ 上试 $\tau = 0.5、1、4$
# （温度越低应该越尖），再试一批输入，最后试 $\tau = 0.001$，这时 $x / \tau$ 会达到 3000。

# %%
def my_softmax_t(x, temperature):
    """[en] x (..., N), temperature > 0 -> softmax(x / temperature) along the last axis
    [zh] x (..., N)，temperature > 0 -> 沿最后一个轴的 softmax(x / temperature)"""
    raise NotImplementedError("[en]divide, then a stable softmax[zh]先除，再做数值稳定的 softmax")

checks.check_temperature_softmax(my_softmax_t)

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def my_softmax_t(x, temperature):
#     z = x / temperature                                # divide first ...
#     z = z - z.max(axis=-1, keepdims=True)              # ... then shift: every exponent <= 0
#     e = np.exp(z)
#     return e / e.sum(axis=-1, keepdims=True)
# ```
# Either order works for $\tau > 0$ (the text above shifts first). Or simply `ac.softmax(x / temperature)`; the library's `ac.softmax(x, temperature=tau)` is the same thing.
# </details>

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def my_softmax_t(x, temperature):
#     z = x / temperature                                # 先除……
#     z = z - z.max(axis=-1, keepdims=True)              # ……再平移：每个指数都 <= 0
#     e = np.exp(z)
#     return e / e.sum(axis=-1, keepdims=True)
# ```
# $\tau > 0$ 时，先除还是先平移，结果相同。也可以直接写 `ac.softmax(x / temperature)`；库里的 `ac.softmax(x, temperature=tau)` 做的是同一件事。
# </details>

# %% [markdown] lang="en"
# ## Summary
#
# - Softmax turns real scores into weights: exponentiate, add up, divide; $[2, 1, 0.5, 0, -1]$ gives
#   $[0.563, 0.207, 0.126, 0.076, 0.028]$.
# - Four reasons: readable weights; bounded, with a small but non-zero Jacobian; competition, smoothly; a convex
#   combination of the values.
# - It is not a probability of anything: adding a constant changes nothing, scaling changes everything.
# - Temperature sets the scale ($\sqrt{d_k}$ is one; dropout is not). Subtracting the maximum keeps softmax finite (no
#   overflow) at every $\tau$, where the naive formula gives `nan` for $[100, 90]$ in float32.
# - Softmax is not sparse (Q5): $\text{softmax}([2, 1, 0]) \approx [0.665, 0.245, 0.090]$; exact zeros come from masks.
#
# **Next:** [04 · Masking](04_masking.ipynb).

# %% [markdown] lang="zh"
# ## 小结
#
# - softmax 把实数分数变成权重：取指数、求和、相除。$[2, 1, 0.5, 0, -1]$ 得到 $[0.563, 0.207, 0.126, 0.076, 0.028]$。
# - 四个理由：权重可以解读；有界，雅可比矩阵很小但不为零；平滑的竞争；输出是 Value 的凸组合。
# - 它算的不是任何事件的概率：加一个常数什么都不变，整体缩放则全都改变。
# - 温度决定尺度（$\sqrt{d_k}$ 是温度，暂退法不是）。先减去最大值，任何 $\tau$ 下都不会溢出，而朴素公式在 float32 下对 $[100, 90]$ 得到 `nan`。
# - softmax 的输出不是稀疏的（Q5；原教程答“不一定”）：$\text{softmax}([2, 1, 0]) \approx [0.665, 0.245, 0.090]$；严格的 0 来自掩码。
#
# **下一节**：[04 · 掩码](04_masking.ipynb)。
