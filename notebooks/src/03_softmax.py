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
# - compute softmax by hand and say what each step (exponentiate, add up, divide) is for;
# - give four reasons why attention turns its scores into weights with softmax, each backed by a number you computed;
# - explain why softmax does not "compute a probability": adding a constant to the scores changes nothing, scaling them changes everything;
# - control how peaked the weights are with a temperature, and compute softmax without overflow at any temperature;
# - answer the self-test question "is softmax output always sparse?", and write your own softmax that passes a checker.
#
# **What you should know first:** one attention step, scores → weights → weighted sum of values
# ([01 · Query, Key, Value](01_query_key_value.ipynb)).

# %% [markdown] lang="zh"
# # 03 · Softmax
#
# **学完本节，你将能够**
# - 手算 softmax，并说清每一步（取指数、求和、相除）的用途；
# - 说出注意力用 softmax 把分数变成权重的四个理由，每个理由都有你亲手算出的数字作证；
# - 解释为什么 softmax 并不是在“算概率”：给所有分数加同一个常数，结果不变；把分数整体缩放，结果全变；
# - 用温度控制权重有多“尖”，并且在任何温度下都能算出不溢出的 softmax；
# - 回答自测题“softmax 的输出一定是稀疏的吗？”，并亲手写一个能通过检查器的 softmax。
#
# **需要的基础**：一步注意力的流程：打分 → 权重 → 对 Value 加权求和（见 [01 · Query、Key、Value](01_query_key_value.ipynb)）。

# %%
LANG = "[en]en[zh]zh"  # [en] language of this edition: "en" or "zh" [zh] 本版的语言："en" 或 "zh"
# %matplotlib inline
import numpy as np

import attention_core as ac
from attention_core.labs.nb03_softmax import checks, dropout_lab, softmax_lab, widgets
from attention_core.teaching import i18n, quiz
from attention_core.teaching.tables import pad

i18n.set_language(LANG)
rng = np.random.default_rng(0)  # [en] every random number in this notebook comes from this seed [zh] 本 notebook 的所有随机数都来自这个种子
np.set_printoptions(precision=3, suppress=True)  # [en] arrays print with 3 decimals [zh] 数组打印时保留 3 位小数

# %% [markdown] lang="en"
# ## From scores to weights
#
# One query has been compared with five tokens and got five scores. The scores can be any real numbers:
# negative, zero, large. Attention needs **weights** to mix the five values: how much of each to take.
# Softmax is the bridge:
#
# $$\text{softmax}(x)_i = \frac{e^{x_i}}{\sum_j e^{x_j}}$$
#
# Read it in three steps: **exponentiate** (every number becomes positive, the order is kept),
# **add up**, **divide** (the results sum to 1). We use the same five scores through the whole notebook.

# %% [markdown] lang="zh"
# ## 从分数到权重
#
# 一个 Query 与五个 token 比较，得到五个分数。分数可以是任意实数：负数、零、很大的数都有可能。
# 注意力需要的是**权重**，用来混合这五个 Value：每个取多少。softmax 就是连接两者的桥梁：
#
# $$\text{softmax}(x)_i = \frac{e^{x_i}}{\sum_j e^{x_j}}$$
#
# 分三步来读：**取指数**（每个数都变成正数，大小顺序不变）、**求和**、**相除**（结果之和为 1）。
# 整个 notebook 都使用同一组五个分数。

# %%
scores = np.array([2.0, 1.0, 0.5, 0.0, -1.0])     # [en] one query against five tokens [zh] 一个 Query 对五个 token 的分数
steps = softmax_lab.softmax_steps(scores, shift=False)   # [en] the textbook formula, step by step [zh] 课本公式，一步一步算
print(pad("[en]scores[zh]分数" + " x", 24), "=", scores)
print(pad("[en]1. exponentiate[zh]1. 取指数" + " e^x", 24), "=", steps["exp"])
print(pad("[en]2. add up[zh]2. 求和" + " Σ e^x", 24), "=", f"{steps['sum'][0]:.3f}")
print(pad("[en]3. divide: weights[zh]3. 相除：权重", 24), "=", steps["weights"], f"[en]  sum = {steps['weights'].sum():.3f}[zh]  和 = {steps['weights'].sum():.3f}")
print("[en]same as ac.softmax:[zh]与 ac.softmax 的结果相同：", np.allclose(steps["weights"], ac.softmax(scores)))


# %% [markdown] lang="en"
# The largest score (2.0) gets the largest weight (0.563), the smallest score (−1.0) the smallest (0.028),
# and none of them gets zero. Why this formula, and not something simpler?

# %% [markdown] lang="zh"
# 最大的分数（2.0）得到最大的权重（0.563），最小的分数（−1.0）得到最小的权重（0.028），而且没有一个是零。
# 为什么偏偏是这个公式，而不是更简单的做法？

# %% [markdown] lang="en"
# ## Why softmax? Four reasons
#
# The tutorial “Transformer Attention 机制入门：从直觉到公式” gives four reasons. Each one below is a claim you can check with a computation.
#
# ### 1. Weights you can read
#
# The simplest alternatives use the scores directly. Using the raw scores as weights gives a negative
# weight and a total of 2.5; dividing by their sum makes the total 1 but keeps the negative weight, and
# breaks completely when the scores add up to 0 (division by zero). Softmax weights are always positive
# and always sum to 1:

# %% [markdown] lang="zh"
# ## 为什么用 softmax？四个理由
#
# 《Transformer Attention 机制入门：从直觉到公式》给出了四个理由。下面每一条都是一个可以用计算来验证的说法。
#
# ### 1. 权重可以直接解读
#
# 最简单的替代做法是直接使用分数。把原始分数当权重：出现了负权重，总和是 2.5；
# 除以分数之和：总和变成了 1，但负权重还在，而且一旦分数之和为 0，就会出现除以零，彻底失效。
# softmax 的权重则永远为正、总和永远为 1：

# %%
def report(name, w):
    print(pad(name, 16), f"{np.array2string(w, precision=3, floatmode='fixed', separator=', '):<44}",
          f"[en]min {w.min():7.3f}   sum {w.sum():6.3f}[zh]最小值 {w.min():7.3f}   和 {w.sum():6.3f}")

report("[en]raw scores[zh]原始分数", scores)
report("[en]scores / sum[zh]分数 / 总和", scores / scores.sum())
report("softmax", ac.softmax(scores))
balanced = np.array([1.0, -1.0])                      # [en] scores that add up to 0 [zh] 加起来为 0 的分数
with np.errstate(divide="ignore", invalid="ignore"):  # [en] the division by zero is the point here [zh] 这里要看的正是除以零
    report("[1, -1] / sum", balanced / balanced.sum())
report("softmax [1, -1]", ac.softmax(balanced))

# %% [markdown] lang="en"
# So you can say "this query puts 56% of its attention on token 0" (the tutorial's example: "70% of the attention
# is on the subject"). That sentence only makes sense because the weights are non-negative and add up to 1.

# %% [markdown] lang="zh"
# 所以可以说“这个 Query 把 56% 的注意力放在了 token 0 上”（原教程的例子：“这个位置 70% 的注意力在主语上”）。
# 这句话之所以有意义，正是因为权重非负且总和为 1。

# %% [markdown] lang="en"
# ### 2. Bounded and gradient-friendly
#
# Whatever the scores, every weight lies in $(0, 1)$: no explosion, even for scores as far apart as ±30.
# Training also needs the **gradient**: how much weight $i$ moves when score $j$ is nudged. For softmax it has a
# short closed form, the Jacobian
#
# $$J_{ij} = \frac{\partial p_i}{\partial x_j} = p_i(\delta_{ij} - p_j), \qquad J = \operatorname{diag}(p) - p\,p^\top .$$
#
# Below we compute it from the weights, compare it with finite differences of `ac.softmax`
# (an independent check), and look at its size.

# %% [markdown] lang="zh"
# ### 2. 有界，对梯度友好
#
# 无论分数是多少，每个权重都落在 $(0, 1)$ 之内：不会爆炸，即使分数相差悬殊，比如 ±30，也是如此。
# 训练还需要**梯度**：轻轻推动分数 $j$ 时，权重 $i$ 会变化多少。softmax 的梯度有一个简洁的闭式，即 Jacobian 矩阵
#
# $$J_{ij} = \frac{\partial p_i}{\partial x_j} = p_i(\delta_{ij} - p_j), \qquad J = \operatorname{diag}(p) - p\,p^\top$$
#
# 下面我们用权重算出它，再与对 `ac.softmax` 做有限差分的结果比较（一个独立的验证），并看看它有多大。

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
# every weight, so the gradient reaches every position. Each row sums to 0 because the weights always sum to 1:
# what one position gains, the others lose. The gradient only fades when one score dominates and the weights
# approach one-hot; notebook 02 measures that collapse as the key width grows, and the temperature section below
# shows it as well.

# %% [markdown] lang="zh"
# 每个元素都很小（最大为 $1/4$，因为 $p(1-p) \le 1/4$），但**没有一个是零**：推动任何一个分数，所有权重都会跟着动，
# 梯度因此能传到每一个位置。每一行之和为 0，因为权重之和永远是 1：一个位置多拿的，就是其他位置少拿的。
# 只有当某个分数占绝对优势、权重接近 one-hot 时，梯度才会消失；02 节会测量随着 Key 维度增大出现的这种坍缩，
# 下面的温度一节也会看到它。

# %% [markdown] lang="en"
# ### 3. Competition: the winner takes most, smoothly
#
# Raise the score of token 0 from −3 to 5 and keep the others fixed. Its weight rises, and **every** other weight
# falls: the positions compete for one budget of 1. Unlike a hard maximum (argmax), nothing jumps: the change is
# smooth, so a gradient exists everywhere. And the losers keep their ratios: $p_1 / p_2 = e^{x_1 - x_2}$ does not
# depend on $x_0$ at all.

# %% [markdown] lang="zh"
# ### 3. 竞争：赢者拿大头，而且是平滑的
#
# 把 token 0 的分数从 −3 提高到 5，其他分数保持不变。它的权重上升，**其他每一个**权重都下降：
# 所有位置在争夺总量为 1 的同一份预算。与硬最大值（argmax）不同，这里没有任何跳变：变化是平滑的，
# 所以处处都有梯度。而且“输家”之间的比例保持不变：$p_1 / p_2 = e^{x_1 - x_2}$，与 $x_0$ 毫无关系。

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
# The thick line is token 0; the dashed step is what a hard maximum would give: 0 until token 0's score passes
# the best of the others (1.0), then 1. Softmax is the smooth version of that step: the winner takes most,
# never all, and small changes of the scores make small changes of the weights.

# %% [markdown] lang="zh"
# 粗线是 token 0；虚线台阶是硬最大值的结果：在 token 0 的分数超过其他分数中的最大值（1.0）之前一直是 0，之后突变为 1。
# softmax 是这个台阶的平滑版本：赢者拿大头，但从不全拿；分数的小变化只带来权重的小变化。

# %% [markdown] lang="en"
# ### 4. A convex combination of the values
#
# Weights that are non-negative and sum to 1 make the output $\sum_j \alpha_j v_j$ a **convex combination**
# (a weighted average) of the values: it always lies inside the polygon spanned by the values (their *convex hull*),
# so in every coordinate it stays between the smallest and the largest value. Below, five 2-D values and
# 300 random score rows: every output lands inside. Using the raw scores as weights instead (they sum to 2.5)
# throws the output outside.

# %% [markdown] lang="zh"
# ### 4. 凸组合：输出落在 Value 之间
#
# 权重非负且和为 1，使输出 $\sum_j \alpha_j v_j$ 成为各个 Value 的**凸组合**（加权平均）：
# 它总是落在这些 Value 围成的多边形（它们的*凸包*）之内，每个坐标都介于各 Value 在该坐标上的最小值与最大值之间。
# 下面用五个二维 Value 和 300 行随机分数来验证：每个输出都落在凸包内。若改用原始分数当权重（总和为 2.5），
# 输出就会被甩到凸包之外。

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
# This is what the tutorial means by "additivity": the weights sum to 1, so the weighted average stays on the
# scale of the values, whatever the scores were. Attention can only **blend** what the values offer; it cannot
# amplify them.

# %% [markdown] lang="zh"
# 这就是原教程所说的“可加性”：权重之和为 1，所以无论分数是多少，加权平均都保持在 Value 的数值范围之内。
# 注意力只能**混合** Value 提供的内容，不能把它们放大。

# %% [markdown] lang="en"
# ## What softmax is not: a probability of anything
#
# A common misreading: "softmax computes the probability that token $j$ is the right one". It does not compute
# a probability of anything. It **maps any real vector onto the simplex** (the set of non-negative vectors that
# sum to 1). Two experiments show what the numbers depend on. First, add a constant to every score: nothing changes.
# Second, multiply the scores by a constant: everything changes.

# %% [markdown] lang="zh"
# ## softmax 不是在“算概率”
#
# 一个常见的误解是：“softmax 计算的是 token $j$ 是正确答案的概率”。它并没有在计算任何事件的概率，
# 而是**把任意实数向量映射到单纯形上**（所有元素非负、总和为 1 的向量构成的集合）。
# 两个实验说明这些数字到底取决于什么。第一，给每个分数加同一个常数：什么都不变。第二，把分数乘以同一个常数：全都变了。

# %%
print("[en]shift: softmax(x + c)[zh]平移：softmax(x + c)")
for c in (-100.0, 0.0, 3.0, 1000.0):
    w = ac.softmax(scores + c)
    print(f"[en]  c = {c:7.1f}  weights {w}   max change vs c = 0: {np.abs(w - ac.softmax(scores)).max():.1e}[zh]  c = {c:7.1f}  权重 {w}   与 c = 0 相比的最大变化：{np.abs(w - ac.softmax(scores)).max():.1e}")
print("[en]scale: softmax(k · x)[zh]缩放：softmax(k · x)")
for k in (0.1, 0.5, 1.0, 2.0, 10.0):
    print(f"[en]  k = {k:4.1f}   weights {ac.softmax(k * scores)}[zh]  k = {k:4.1f}   权重 {ac.softmax(k * scores)}")
noise = rng.normal(size=5)
print("[en]random noise:[zh]随机噪声：", noise, "-> softmax", ac.softmax(noise), f"[en] sum = {ac.softmax(noise).sum():.3f}[zh] 和 = {ac.softmax(noise).sum():.3f}")

# %% [markdown] lang="en"
# Softmax only sees the **differences** between scores ($e^{x_i + c} / \sum_j e^{x_j + c} = e^{x_i} / \sum_j e^{x_j}$),
# so $[2, 1, 0.5, 0, -1]$ and $[1002, 1001, 1000.5, 1000, 999]$ give the same weights. But it is very sensitive to
# their **scale**: the same ordering gives a weight of 0.231 or 1.000 for token 0 depending on a factor the model
# chose (the scale of its projections, the $\sqrt{d_k}$ of notebook 02). Even random noise comes out as a tidy
# "distribution". So 0.563 is not a calibrated probability; it is a mixing share, and on the way softmax does three
# jobs at once: **normalise, compete, smooth**.

# %% [markdown] lang="zh"
# softmax 只看分数之间的**差**（$e^{x_i + c} / \sum_j e^{x_j + c} = e^{x_i} / \sum_j e^{x_j}$），
# 所以 $[2, 1, 0.5, 0, -1]$ 和 $[1002, 1001, 1000.5, 1000, 999]$ 得到完全相同的权重。但它对分数的**尺度**非常敏感：
# 同样的大小顺序，token 0 的权重可以是 0.231，也可以是 1.000，取决于模型选的一个系数（投影的尺度、02 节里的 $\sqrt{d_k}$）。
# 连随机噪声都会变成一个整整齐齐的“分布”。所以 0.563 并不是一个经过校准的概率，而是混合的份额；
# softmax 在这里顺带完成了三件事：**归一化、竞争、平滑**。

# %% [markdown] lang="en"
# ## Temperature
#
# The scale that matters gets a name: the **temperature** $T$, with $\text{softmax}(x / T)$. A low temperature
# stretches the differences (near one-hot on the largest score); a high one shrinks them (near uniform, $1/N$ each).
# Dividing the scores by $\sqrt{d_k}$ in attention is exactly a softmax at temperature $\sqrt{d_k}$.
# The entropy $H = -\sum_i p_i \ln p_i$ measures the spread: 0 for one-hot, $\ln 5 = 1.609$ for five equal weights.

# %% [markdown] lang="zh"
# ## 温度
#
# 这个关键的尺度有个名字：**温度** $T$，即 $\text{softmax}(x / T)$。温度低，分数之间的差距被拉大（接近 one-hot，集中在最大分数上）；
# 温度高，差距被压小（接近均匀分布，每个都是 $1/N$）。注意力里把分数除以 $\sqrt{d_k}$，恰好就是温度为 $\sqrt{d_k}$ 的 softmax。
# 熵 $H = -\sum_i p_i \ln p_i$ 衡量权重有多分散：one-hot 时为 0，五个权重相等时为 $\ln 5 = 1.609$。

# %%
print("    T   " + pad("[en]weights[zh]权重", 42) + pad("[en]max weight[zh]最大权重", 13) + "[en]entropy[zh]熵")
for T in (0.01, 0.1, 0.5, 1, 2, 10, 100):
    s = widgets.temperature_state(scores, T)
    print(f"{T:6g}   {np.array2string(s['weights'], precision=3, floatmode='fixed', separator=', ')}"
          f"   {s['max_weight']:.3f}        {s['entropy']:.3f}")
print(f"[en]uniform: 1/5 = {1 / 5:.3f}, ln 5 = {np.log(5):.3f}[zh]均匀分布：1/5 = {1 / 5:.3f}，ln 5 = {np.log(5):.3f}")

# %%
ax = softmax_lab.plot_temperature_sweep(scores, np.logspace(-2, 2, 201))

# %% [markdown] lang="en"
# Between $T = 0.1$ and $T = 10$ the weights travel the whole way from one-hot to nearly uniform; the order never
# changes (the runner-up's weight even peaks on the way, at 0.227 near $T = 2$: it gains from the leader before it
# loses to the rest). Now move the slider yourself (it is logarithmic, from 0.01 to 100). Watch the largest weight and the
# entropy in the readout. Then try other scores, for example `widgets.temperature_widget([5, 5, 0, 0, 0])`:
# two equal winners share the weight at every temperature.

# %% [markdown] lang="zh"
# 从 $T = 0.1$ 到 $T = 10$，权重从 one-hot 一路变到几乎均匀；大小顺序始终不变（第二名的权重途中甚至会达到峰值：在 $T = 2$ 附近为 0.227，它先从第一名那里分得权重，再分给其余位置）。现在自己拖动滑块（对数刻度，从 0.01 到 100），
# 留意读数里的最大权重和熵。再试试别的分数，例如 `widgets.temperature_widget([5, 5, 0, 0, 0])`：
# 两个并列第一的分数在任何温度下都平分权重。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
widgets.temperature_widget(scores, temperature=1.0)

# %% [markdown] lang="en"
# ### Stable at every temperature: subtract the maximum
#
# The widget never breaks, even at $T = 0.01$ where the scores become $x / T = [200, 100, 50, 0, -100]$.
# The textbook formula would: a float32 number cannot exceed about $3.4 \times 10^{38}$, so $e^{x}$ is already
# infinite for $x > 88.7$, and $\infty / \infty$ is `nan` (not a number). Scores of $[100, 90]$ are enough:

# %% [markdown] lang="zh"
# ### 任何温度下都稳定：先减去最大值
#
# 即使在 $T = 0.01$，分数变成 $x / T = [200, 100, 50, 0, -100]$，这个控件也不会出错。课本上的公式却会：
# float32 能表示的最大数约为 $3.4 \times 10^{38}$，所以 $x > 88.7$ 时 $e^{x}$ 就已经是无穷大，而 $\infty / \infty$ 是 `nan`（不是一个数）。
# 分数为 $[100, 90]$ 就足以出问题：

# %%
big = np.array([100.0, 90.0], dtype=np.float32)
print(f"[en]float32 largest number {np.finfo(np.float32).max:.3e};  ln of it = {np.log(np.finfo(np.float32).max):.2f}[zh]float32 能表示的最大数 {np.finfo(np.float32).max:.3e}；它的对数 = {np.log(np.finfo(np.float32).max):.2f}")
naive = softmax_lab.softmax_steps(big, shift=False, dtype="float32")       # exp(x) / sum(exp(x))
print(pad("[en]naive[zh]课本公式", 10), "e^x =", naive["exp"], "[en]  sum =[zh]  和 =", naive["sum"],
      "[en]  weights =[zh]  权重 =", naive["weights"])
print(pad("ac.softmax", 22), "[en]weights =[zh]权重 =", np.array2string(ac.softmax(big), precision=6, floatmode="fixed"),
      " dtype", ac.softmax(big).dtype)
print("[en]float64 only moves the cliff: naive [100, 90] ->[zh]float64 只是把悬崖挪远了：课本公式 [100, 90] ->", softmax_lab.naive_softmax([100.0, 90.0], dtype="float64"),
      "  " + "[en]naive [1000, 990] ->[zh]课本公式 [1000, 990] ->", softmax_lab.naive_softmax([1000.0, 990.0], dtype="float64"))
print("[en]and a low temperature falls off it: naive softmax(x / 0.01) ->[zh]而低温度会直接掉下去：课本公式 softmax(x / 0.01) ->", softmax_lab.naive_softmax(scores / 0.01))

# %% [markdown] lang="en"
# The fix uses the shift invariance from the previous section: $\text{softmax}(x) = \text{softmax}(x - \max x)$.
# After the shift every exponent is $\le 0$, so every $e^{x_i - \max x}$ lies in $(0, 1]$ and the largest one is
# exactly 1: the sum lies between 1 and $N$. Nothing can overflow, and the sum can never be 0. `ac.softmax` does
# this (and divides by $T$ after the shift):

# %% [markdown] lang="zh"
# 解决办法用的正是上一节的平移不变性：$\text{softmax}(x) = \text{softmax}(x - \max x)$。
# 平移之后每个指数都 $\le 0$，所以每个 $e^{x_i - \max x}$ 都在 $(0, 1]$ 之间，而且最大的那个恰好是 1：总和介于 1 和 $N$ 之间。
# 既不会溢出，总和也不可能为 0。`ac.softmax` 就是这么做的（并且在平移之后才除以 $T$）：

# %%
stable = softmax_lab.softmax_steps(big, shift=True, dtype="float32")       # exp(x - max) / sum(exp(x - max))
print("x - max =", stable["shifted"])
print("e^(x - max) =", np.array2string(stable["exp"], precision=6, floatmode="fixed"), f"[en]  sum = {stable['sum'][0]:.6f}[zh]  和 = {stable['sum'][0]:.6f}")
print("[en]weights[zh]权重", "=", np.array2string(stable["weights"], precision=6, floatmode="fixed"),
      "  " + "[en]same as ac.softmax:[zh]与 ac.softmax 的结果相同：", np.allclose(stable["weights"], ac.softmax(big)))
low_t = softmax_lab.softmax_steps(scores, temperature=0.01, shift=True, dtype="float32")
print("T = 0.01, float32:", low_t["weights"], "  " + "[en]all finite:[zh]全是有限数：", bool(np.isfinite(low_t["weights"]).all()))

# %% [markdown] lang="en"
# ### Is the output sparse?
#
# A sparse vector has exact zeros. Softmax has none: $e^{x} > 0$ for every finite $x$, so every position keeps a
# non-zero weight. It only comes **close** to one-hot when one score is far above the others, which is what a low
# temperature does. Exact zeros come from a mask (a score of $-\infty$, notebook 04). The one caveat is floating point:
# when a score is about 745 below the maximum (float64; about 104 in float32), its tiny weight rounds to 0.

# %% [markdown] lang="zh"
# ### 输出是稀疏的吗？
#
# 稀疏向量里有严格的 0。softmax 没有：对任何有限的 $x$ 都有 $e^{x} > 0$，所以每个位置都保留非零权重。
# 只有当某个分数远高于其他分数时，它才**接近** one-hot，而降低温度做的正是这件事。严格的 0 来自掩码（分数为 $-\infty$，见 04 节）。
# 唯一的例外来自浮点数：当某个分数比最大值低约 745（float64；float32 约为 104）时，它极小的权重会被舍入为 0。

# %%
for T in (100, 1, 0.1, 0.01):
    w = ac.softmax(scores, temperature=T)
    print(f"[en]T = {T:<5g} smallest weight {w.min():.2e}   weights above 1%: {(w > 0.01).sum()}   exact zeros: {(w == 0).sum()}[zh]T = {T:<5g} 最小权重 {w.min():.2e}   超过 1% 的权重：{(w > 0.01).sum()} 个   严格为 0：{(w == 0).sum()} 个")
many = rng.normal(scale=3.0, size=(1000, 8))                                # [en] 1000 random score rows [zh] 1000 行随机分数
print(f"[en]1000 random rows of 8 scores: smallest weight anywhere {ac.softmax(many).min():.2e} > 0[zh]1000 行随机分数（每行 8 个）：所有权重中最小的是 {ac.softmax(many).min():.2e} > 0")
print("[en]a mask makes exact zeros:[zh]掩码才会产生严格的 0：", ac.softmax(scores, mask=np.array([True, False, True, False, True])))
print("[en]floating-point underflow: softmax([0, -800]) =[zh]浮点下溢：softmax([0, -800]) =", ac.softmax(np.array([0.0, -800.0])))

# %% [markdown] lang="en"
# So the answer to the self-test is **not necessarily**: softmax is dense, and only nearly one-hot when one score
# dominates; the temperature controls how peaked it is.
#
# **And attention dropout?** The tutorial's answer names it next to the temperature, but it does a different job.
# During training, dropout sets each weight to 0 with probability $p$ and divides the survivors by $1 - p$: a
# regulariser, so that the model cannot rely on any single connection. Below, the same scores seen both ways.
# A temperature reshapes the whole row and keeps the sum at 1. A dropout draw has exact zeros at random places and a
# sum that is no longer 1; averaged over many draws it gives back the softmax row itself, so it makes the weights
# neither more nor less peaked; and at inference it is switched off.

# %% [markdown] lang="zh"
# 所以自测题的答案是**不一定**：softmax 的输出是稠密的，只有某个分数占绝对优势时才接近 one-hot；控制它有多尖锐的是温度。
#
# **那 attention dropout 呢**？原教程的答案把它和温度并列，可它干的是另一件事。
# 训练时，dropout 以概率 $p$ 把每个权重置 0，再把留下来的权重除以 $1 - p$：这是一种正则化手段，让模型不能只依赖某一条连接。
# 下面用同一组分数把两者各做一遍。温度会重塑整行权重，而且和仍然是 1；dropout 的每次抽样都在随机的位置上出现严格的 0，
# 和也不再是 1；把很多次抽样平均起来，得到的正是原来那行 softmax——所以它既没让权重变尖，也没让权重变平；到了推理时，它干脆是关掉的。

# %%
dropout_lab.dropout_vs_temperature(scores, p=0.5, seed=0)

# %% [markdown] lang="en"
# A learned model still ends up with peaked weights where it needs them, but through its scores (and the fixed
# temperature $\sqrt{d_k}$ of notebook 02), not through dropout.
#
# ### Self-test (Q5)

# %% [markdown] lang="zh"
# 训练好的模型在需要的地方仍然会得到很尖的权重，但那是靠它的分数（以及 02 节那个固定的温度 $\sqrt{d_k}$），而不是靠 dropout。
#
# ### 自测题（Q5）

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
quiz.quiz_widget("q5")

# %% [markdown] lang="en"
# Now compute one by hand (a calculator is fine; $e \approx 2.718$):

# %% [markdown] lang="zh"
# 再来亲手算一个（可以用计算器；$e \approx 2.718$）：

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
quiz.quiz_widget("q5b")


# %% [markdown] lang="en"
# ## Exercise 1: write softmax yourself
#
# A first attempt usually copies the formula as it is printed. It works on small scores, and the checker tries
# large ones too:

# %% [markdown] lang="zh"
# ## 练习 1：亲手写一个 softmax
#
# 第一次写时，通常会照着公式原样抄下来。它对小的分数没问题，但检查器也会试大的分数：

# %%
def softmax_first_try(x):                         # [en] the formula as printed: no max subtracted [zh] 照抄公式：没有减去最大值
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)

checks.check_softmax(softmax_first_try)


# %% [markdown] lang="en"
# **Your turn.** Edit `my_softmax` below, run the cell, and read the verdict. Until you write it, the checker says
# the function is not implemented; that is expected. Once it passes, break it on purpose: subtract `x.max()` (the
# maximum of the whole array, not of each row), or sum over `axis=0`, and read what the checker says.

# %% [markdown] lang="zh"
# **轮到你了**。修改下面的 `my_softmax`，运行单元格，看检查结果。还没写之前，检查器会提示函数尚未实现，这是正常的。
# 通过之后，再故意改错试试：减去 `x.max()`（整个数组的最大值，而不是每一行的），或者沿 `axis=0` 求和，看看检查器怎么说。

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
# This is what a pass looks like: the library's own function, judged by the same checker.

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
# 通过检查时是这个样子：用同一个检查器来评判库里自带的函数。

# %%
checks.check_softmax(ac.softmax)


# %% [markdown] lang="en"
# ## Exercise 2: add a temperature
#
# Extend your softmax with a temperature: `my_softmax_t(x, temperature)` returns $\text{softmax}(x / T)$ along the
# last axis. The checker tries $T = 0.5, 1, 4$ on $[2, 1, 0]$ (lower must be sharper), a batch, and $T = 0.001$,
# where $x / T$ reaches 3000 and the formula as printed overflows.

# %% [markdown] lang="zh"
# ## 练习 2：加上温度
#
# 给你的 softmax 加上温度：`my_softmax_t(x, temperature)` 沿最后一个轴返回 $\text{softmax}(x / T)$。检查器会在
# $[2, 1, 0]$ 上试 $T = 0.5、1、4$（温度越低应该越尖），再试一批输入，最后试 $T = 0.001$——这时 $x / T$ 会达到 3000，
# 照抄公式的写法会溢出。

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
# Or simply `ac.softmax(x / temperature)`; the library's `ac.softmax(x, temperature=T)` is the same thing.
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
# 也可以直接写 `ac.softmax(x / temperature)`；库里的 `ac.softmax(x, temperature=T)` 做的是同一件事。
# </details>

# %% [markdown] lang="en"
# ## Summary
#
# - Softmax turns any real scores into weights: exponentiate, add up, divide. Our scores $[2, 1, 0.5, 0, -1]$
#   give $[0.563, 0.207, 0.126, 0.076, 0.028]$.
# - Four reasons attention uses it: the weights are readable (non-negative, sum to 1); bounded and gradient-friendly
#   (every weight in $(0, 1)$, Jacobian $\operatorname{diag}(p) - pp^\top$ small but non-zero); competition (raising one
#   score lowers all the others, smoothly); and a convex combination (the output stays inside the values' hull).
# - It is not a probability of anything: adding a constant changes nothing, scaling changes everything.
# - Temperature $T$ sets the scale: low → near one-hot, high → near uniform; $\sqrt{d_k}$ is a temperature.
#   Attention dropout is not one: it zeroes random weights while training (a regulariser) and is off at inference.
#   Subtracting the maximum makes it exact at every $T$, where the naive formula gives `nan` for $[100, 90]$ in float32.
# - Softmax is not sparse (Q5): every weight is non-zero; $\text{softmax}([2, 1, 0]) \approx [0.665, 0.245, 0.090]$.
#   Exact zeros come from masks.
#
# **Next:** [04 · Masking](04_masking.ipynb): how a score of $-\infty$ hides the future and the padding, and why the mask is still needed at inference.

# %% [markdown] lang="zh"
# ## 小结
#
# - softmax 把任意实数分数变成权重：取指数、求和、相除。本节的分数 $[2, 1, 0.5, 0, -1]$ 得到 $[0.563, 0.207, 0.126, 0.076, 0.028]$。
# - 注意力使用它的四个理由：权重可解读（非负、和为 1）；有界且对梯度友好（每个权重都在 $(0, 1)$ 内，Jacobian $\operatorname{diag}(p) - pp^\top$ 很小但不为零）；
#   竞争（提高一个分数会平滑地压低其他所有权重）；凸组合（输出始终落在 Value 的凸包之内）。
# - 它不是在算任何事件的概率：加一个常数什么都不变，整体缩放则全都改变。
# - 温度 $T$ 决定尺度：温度低 → 接近 one-hot，温度高 → 接近均匀；$\sqrt{d_k}$ 就是一个温度。
#   attention dropout 不是温度：它在训练时随机把权重置 0（一种正则化），推理时关闭。
#   先减去最大值，任何 $T$ 下都能精确计算；而课本公式在 float32 下对 $[100, 90]$ 直接得到 `nan`。
# - softmax 的输出不是稀疏的（Q5）：每个权重都不为零；$\text{softmax}([2, 1, 0]) \approx [0.665, 0.245, 0.090]$。严格的 0 来自掩码。
#
# **下一节**：[04 · 掩码](04_masking.ipynb)：分数为 $-\infty$ 如何屏蔽未来和填充位置，以及为什么推理时仍然需要掩码。
