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
# # 02 · Scaled dot-product attention and √d_k
#
# **After this notebook you will be able to**
# - write attention as $\text{softmax}\left(QK^\top / \sqrt{d_k}\right)V$ with the shape of every step;
# - derive, and measure, why $\text{Var}(q \cdot k) = d_k$ for random unit-variance vectors;
# - explain how large scores make softmax one-hot and its gradient vanish;
# - say what dividing by $\sqrt{d_k}$ does and does not do.
#
# **What you should know first:** one attention step ([01](01_query_key_value.ipynb)); variances of independent terms
# add, and $\text{Var}(cX) = c^2\,\text{Var}(X)$. *About 50 minutes.*

# %% [markdown] lang="zh"
# # 02 · 缩放点积注意力与 √d_k
#
# **学完本节，你将能够**
# - 写出注意力公式 $\text{softmax}\left(QK^\top / \sqrt{d_k}\right)V$ 及每一步的形状；
# - 推导并实测：分量方差为 1 的随机向量，点积的方差 $\text{Var}(q \cdot k) = d_k$；
# - 解释分数过大时 softmax 为什么会变成 one-hot（独热）、梯度为什么消失；
# - 说清除以 $\sqrt{d_k}$ 做了什么，没做什么。
#
# **需要的基础**：一步注意力，见 [01 节](01_query_key_value.ipynb)；独立项之和的方差等于各项方差之和，
# $\text{Var}(cX) = c^2\,\text{Var}(X)$。*约 50 分钟。*

# %%
LANG = "[en]en[zh]zh"  # [en] language of this edition: "en" or "zh" [zh] 本版的语言："en" 或 "zh"
# %matplotlib inline
import numpy as np

import attention_core as ac
from attention_core.labs.nb02_scaled_dot_product import checks, scaling, widgets
from attention_core.teaching import i18n, plots, quiz
from attention_core.teaching.tables import pad

i18n.set_language(LANG)
rng = np.random.default_rng(0)  # [en] every random number in this notebook comes from this seed [zh] 本节的所有随机数都来自这个种子

# %% [markdown] lang="en"
# ## The formula, step by step
#
# A Transformer runs attention for every token at once: the $n$ queries are the rows of $Q$, the keys the rows of
# $K$, the values the rows of $V$, and
#
# $$\text{Attention}(Q, K, V) = \text{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V$$
#
# | step | what it computes | shape |
# |---|---|---|
# | $Q$, $K$ | one query and one key per token | $(n, d_k)$ each |
# | $V$ | one value per token | $(n, d_v)$ |
# | $QK^\top$ | every query against every key: entry $[i, j] = q_i \cdot k_j$ | $(n, n)$ |
# | $/\sqrt{d_k}$ | the same matrix, divided by one number | $(n, n)$ |
# | softmax, row by row | row $i$ = how much query $i$ takes from each position | $(n, n)$ |
# | $\times V$ | row $i$ = the values mixed with row $i$'s weights | $(n, d_v)$ |
#
# A small random example: 4 tokens, $d_k = 8$, $d_v = 3$.

# %% [markdown] lang="zh"
# ## 逐步拆解公式
#
# Transformer 会同时为每个 token 计算注意力。把 $n$ 个 Query 按行排成矩阵 $Q$，Key 排成 $K$，Value 排成 $V$，于是
#
# $$\text{Attention}(Q, K, V) = \text{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V$$
#
# | 步骤 | 计算的是什么 | 形状 |
# |---|---|---|
# | $Q$、$K$ | 每个 token 一个 Query、一个 Key | 都是 $(n, d_k)$ |
# | $V$ | 每个 token 一个 Value | $(n, d_v)$ |
# | $QK^\top$ | 每个 Query 与每个 Key 两两点积，第 $[i, j]$ 个元素是 $q_i \cdot k_j$ | $(n, n)$ |
# | $/\sqrt{d_k}$ | 同一个矩阵整体除以一个数 | $(n, n)$ |
# | 按行 softmax | 第 $i$ 行是 Query $i$ 从各个位置取多少 | $(n, n)$ |
# | $\times V$ | 第 $i$ 行是用第 $i$ 行的权重混合各个 Value | $(n, d_v)$ |
#
# 下面用一个随机的小例子来算：4 个 token，$d_k = 8$，$d_v = 3$。

# %%
n, d_k, d_v = 4, 8, 3                               # [en] 4 tokens, keys of width 8, values of width 3 [zh] 4 个 token，Key 的维度为 8，Value 的维度为 3
Q = rng.standard_normal((n, d_k))                   # [en] (n, d_k): one query per token [zh] (n, d_k)：每个 token 一个 Query
K = rng.standard_normal((n, d_k))                   # [en] (n, d_k): one key per token [zh] (n, d_k)：每个 token 一个 Key
V = rng.standard_normal((n, d_v))                   # [en] (n, d_v): one value per token [zh] (n, d_v)：每个 token 一个 Value

raw = ac.attention_scores(Q, K, scale=1.0)          # [en] Q K^T, entry [i, j] = q_i · k_j   (n, n) [zh] Q K^T，第 [i, j] 项 = q_i · k_j   (n, n)
scaled = ac.attention_scores(Q, K)                  # [en] Q K^T / sqrt(d_k), the default scale   (n, n) [zh] Q K^T / sqrt(d_k)，默认的缩放   (n, n)
weights = ac.softmax(scaled)                        # [en] softmax over each row   (n, n) [zh] 对每一行做 softmax   (n, n)
output = weights @ V                                # [en] row i mixes the values with row i's weights   (n, d_v) [zh] 第 i 行用第 i 行的权重混合各个 Value   (n, d_v)

for name, x in [("Q", Q), ("K", K), ("V", V), ("Q K^T", raw), ("/ sqrt(d_k)", scaled),
                ("softmax", weights), ("[en]output[zh]输出", output)]:
    print(pad(name, 12), f"[en]shape {x.shape}[zh]形状 {x.shape}")
print("scaled = raw / sqrt(8):", np.allclose(scaled, raw / np.sqrt(d_k)))
print("[en]row sums of the weights:[zh]权重每一行之和：", weights.sum(axis=1).round(3))
out_lib, w_lib = ac.scaled_dot_product_attention(Q, K, V)
print("[en]same as ac.scaled_dot_product_attention:[zh]与 ac.scaled_dot_product_attention 的结果相同：", np.allclose(output, out_lib) and np.allclose(weights, w_lib))

# %% [markdown] lang="en"
# ### The whole pipeline as one picture
#
# The tutorial *Attention in Transformers, from intuition to formula* [“Transformer Attention 机制入门：从直觉到公式”]
# draws this computation as a flowchart; here it is with the shape along each arrow ($n$ tokens, model width
# $d_{model}$). The cell below computes every shape. (The chart is drawn by JupyterLab 4.1 or later and GitHub;
# older viewers show its text.)
#
# ```mermaid
# flowchart LR
#     X["input X"] -->|"(n, d_model) × W^Q (d_model, d_k)"| Q["Q (n, d_k)"]
#     X -->|"× W^K"| K["K (n, d_k)"]
#     X -->|"× W^V (d_model, d_v)"| V["V (n, d_v)"]
#     Q --> S["scores Q Kᵀ / √d_k"]
#     K -->|"Kᵀ (d_k, n)"| S
#     S -->|"(n, n)"| M["mask (optional)"]
#     M -->|"(n, n)"| SM["softmax, row by row"]
#     SM -->|"α (n, n), rows sum to 1"| O["weighted sum α V"]
#     V -->|"(n, d_v)"| O
#     O -->|"(n, d_v)"| Out["a new representation for each position"]
# ```

# %% [markdown] lang="zh"
# ### 把整条流程画成一张图
#
# 《Transformer Attention 机制入门：从直觉到公式》把这套计算画成了一张流程图。这里沿用它，并在每条箭头上标出所传数据的形状
# （$n$ 个 token，模型维度 $d_{model}$），随后的代码单元格把这些形状逐一算出来。（这张图需要 JupyterLab 4.1 及以上版本或 GitHub 才能画出来，较旧的查看器只显示它的源文字。）
#
# ```mermaid
# flowchart LR
#     X["输入 X"] -->|"(n, d_model) × W^Q (d_model, d_k)"| Q["Q (n, d_k)"]
#     X -->|"× W^K"| K["K (n, d_k)"]
#     X -->|"× W^V (d_model, d_v)"| V["V (n, d_v)"]
#     Q --> S["打分 Q Kᵀ / √d_k"]
#     K -->|"Kᵀ (d_k, n)"| S
#     S -->|"(n, n)"| M["掩码（可选）"]
#     M -->|"(n, n)"| SM["按行 softmax"]
#     SM -->|"注意力权重 α (n, n)，每行之和为 1"| O["加权求和 α V"]
#     V -->|"(n, d_v)"| O
#     O -->|"(n, d_v)"| Out["每个位置的新表示"]
# ```

# %%
flow_rng = np.random.default_rng(1)                 # [en] a generator of its own, apart from rng [zh] 单独的随机数生成器，与 rng 分开
d_model = 6
X = flow_rng.standard_normal((n, d_model))          # [en] (n, d_model): one row per token [zh] (n, d_model)：每个 token 一行
W_q, W_k = flow_rng.standard_normal((2, d_model, d_k))   # [en] (d_model, d_k) each [zh] 各为 (d_model, d_k)
W_v = flow_rng.standard_normal((d_model, d_v))      # (d_model, d_v)
Qx, Kx, Vx = X @ W_q, X @ W_k, X @ W_v              # [en] the three projections of the same X [zh] 同一个 X 的三个投影
S = ac.attention_scores(Qx, Kx)                     # Q K^T / sqrt(d_k)   (n, n)
# [en] the optional mask (here: causal), True = may attend   (n, n)
# [zh] 可选的掩码（这里是因果掩码），True = 可以关注   (n, n)
mask = ac.causal_mask(n)
S_masked = np.where(mask, S, -np.inf)               # [en] what softmax sees: hidden scores are -inf   (n, n) [zh] softmax 看到的：被屏蔽的分数是 -inf   (n, n)
alpha = ac.softmax(S, mask=mask)                    # [en] row by row; hidden positions get weight 0   (n, n) [zh] 逐行计算；被屏蔽的位置权重为 0   (n, n)
new = alpha @ Vx                                    # (n, d_v)
for arrow, a in [("X", X), ("X W^Q = Q", Qx), ("X W^K = K", Kx), ("X W^V = V", Vx), ("Q K^T / sqrt(d_k)", S),
                 ("[en]mask[zh]掩码", S_masked), ("softmax -> alpha", alpha), ("alpha V", new)]:
    print(pad(arrow, 20), a.shape)
print("[en]rows of alpha sum to 1:[zh]alpha 的每一行之和为 1：", np.allclose(alpha.sum(axis=1), 1))

# %% [markdown] lang="en"
# The weight matrix: row $i$ is query $i$'s distribution over the four keys.

# %% [markdown] lang="zh"
# 权重矩阵的第 $i$ 行是 Query $i$ 在四个 Key 上的分布。

# %%
ax = plots.attention_heatmap(weights)


# %% [markdown] lang="en"
# Every step is a matrix product or a row-wise softmax, except the division by $\sqrt{d_k}$. The rest of this notebook
# shows why attention breaks without it once vectors get wide.

# %% [markdown] lang="zh"
# 除了除以 $\sqrt{d_k}$，其余每一步都是矩阵乘法或按行 softmax。本节剩下的内容说明，向量维度一大，没有这一步注意力就会失灵。

# %% [markdown] lang="en"
# ## Exercise 1 · ★☆☆ · about 10 min: the scaled scores
#
# Write the first two steps for a batch: `q` $(\dots, T_q, d_k)$ and `k` $(\dots, T_k, d_k)$ in, $QK^\top / \sqrt{d_k}$
# of shape $(\dots, T_q, T_k)$ out. The checker tries the worked example of 01, a case with $T_q \ne T_k$ and a batch
# of heads $(B, H, T, d_k)$, where `k.T` is a trap.

# %% [markdown] lang="zh"
# ## 练习 1 · ★☆☆ · 约 10 分钟：缩放后的分数
#
# 把前两步写成对一批数据都适用的函数。输入 `q` $(\dots, T_q, d_k)$ 和 `k` $(\dots, T_k, d_k)$，输出形状为
# $(\dots, T_q, T_k)$ 的 $QK^\top / \sqrt{d_k}$。检查器会用 01 节的例题、一个 $T_q \ne T_k$ 的例子和一批多头输入
# $(B, H, T, d_k)$ 来试，最后这种情况下 `k.T` 是个陷阱。

# %%
def my_scaled_scores(q, k):
    """[en] q (..., Tq, Dk), k (..., Tk, Dk) -> Q K^T / sqrt(Dk)  (..., Tq, Tk)
    [zh] q (..., Tq, Dk)，k (..., Tk, Dk) -> Q K^T / sqrt(Dk)  (..., Tq, Tk)"""
    raise NotImplementedError("[en]compare every query with every key, then scale[zh]让每个 Query 与每个 Key 比较，再缩放")

checks.check_scaled_scores(my_scaled_scores)

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def my_scaled_scores(q, k):
#     return q @ k.swapaxes(-1, -2) / np.sqrt(q.shape[-1])   # swap only the last two axes
# ```
# `k.T` reverses **every** axis of a batched array, $(B, H, T, d_k) \to (d_k, T, H, B)$; `swapaxes(-1, -2)` turns each
# $(T_k, d_k)$ matrix into $(d_k, T_k)$ and leaves the batch alone.
# </details>

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def my_scaled_scores(q, k):
#     return q @ k.swapaxes(-1, -2) / np.sqrt(q.shape[-1])   # 只交换最后两个轴
# ```
# `k.T` 会把批量数组的**所有**轴都倒过来：$(B, H, T, d_k) \to (d_k, T, H, B)$；`swapaxes(-1, -2)`
# 只把每个 $(T_k, d_k)$ 矩阵转成 $(d_k, T_k)$，批量维度保持不动。
# </details>

# %% [markdown] lang="en"
# ## The variance of q·k grows with d_k
#
# **Intuition.** A dot product is a sum, $q \cdot k = q_1 k_1 + \dots + q_{d_k} k_{d_k}$. With random entries each
# term is a small push up or down, and like the steps of a random walk, $d_k$ pushes wander further the more there
# are. Wider vectors mean larger scores, even when $q$ and $k$ have nothing to do with each other.
#
# **The maths.** Let every entry of $q$ and $k$ be independent, with mean 0 and variance 1 (a standard initialisation).
#
# 1. One term: $\mathbb{E}[q_i k_i] = \mathbb{E}[q_i]\,\mathbb{E}[k_i] = 0$ and
#    $\text{Var}(q_i k_i) = \mathbb{E}[q_i^2]\,\mathbb{E}[k_i^2] = 1$.
# 2. The $d_k$ terms are independent, so their variances add: $\text{Var}(q \cdot k) = d_k$, standard deviation $\sqrt{d_k}$.
# 3. Dividing by $c$ divides the variance by $c^2$: $\text{Var}\left(q \cdot k / \sqrt{d_k}\right) = 1$, **whatever $d_k$ is**.
#
# **Predict first:**

# %% [markdown] lang="zh"
# ## q·k 的方差随 d_k 增长
#
# **直觉**。点积是一个求和，$q \cdot k = q_1 k_1 + \dots + q_{d_k} k_{d_k}$。分量随机时，每一项都像随机游走的一步，
# 向上或向下推一把，步数越多就离起点越远。所以向量维度越高，分数的波动就越大（有正有负，离 0 越来越远），哪怕 $q$ 和 $k$ 毫无关系。
#
# **推导**。设 $q$ 和 $k$ 的每个分量相互独立，均值为 0，方差为 1（合理的初始化大致如此）。
#
# 1. 先看单独一项：$\mathbb{E}[q_i k_i] = \mathbb{E}[q_i]\,\mathbb{E}[k_i] = 0$，$\text{Var}(q_i k_i) = \mathbb{E}[q_i^2]\,\mathbb{E}[k_i^2] = 1$。
# 2. 这 $d_k$ 项相互独立，方差直接相加：$\text{Var}(q \cdot k) = d_k$，标准差为 $\sqrt{d_k}$。
# 3. 除以常数 $c$，方差就除以 $c^2$，所以 $\text{Var}\left(q \cdot k / \sqrt{d_k}\right) = 1$，**与 $d_k$ 无关**。
#
# **先预测一下**：

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
quiz.quiz_widget("q2b")

# %% [markdown] lang="en"
# **Now measure.** For each $d_k$, 20,000 random pairs $q, k$ with unit-variance entries; the variance of $q \cdot k$
# before and after dividing by $\sqrt{d_k}$:

# %% [markdown] lang="zh"
# **再来测量**。对每个 $d_k$ 随机抽取 20,000 对分量方差为 1 的向量 $q, k$，看 $q \cdot k$ 除以 $\sqrt{d_k}$ 前后的方差：

# %%
result = scaling.dot_product_variance((1, 4, 16, 64, 256, 1024), n_samples=20000, seed=0)
print("  d_k " + pad("Var(q·k)", 10, "right") + " " + pad("[en]std[zh]标准差", 6, "right") + "   Var(q·k / sqrt(d_k))")
for d, var, std, var_scaled in zip(result["d_k"], result["variance"], result["std"], result["variance_scaled"]):
    print(f"{d:5d} {var:10.2f} {std:6.2f} {var_scaled:14.2f}")

# %% [markdown] lang="en"
# The variance follows $d_k$ (1 → 1024) to within the sampling noise of 20,000 pairs (a few per cent), and after
# scaling it is 1 at every width. Top row of the histograms: $q \cdot k$ on **one shared axis**, spreading as $d_k$
# grows. Bottom row: $q \cdot k / \sqrt{d_k}$, the same shape at every width.

# %% [markdown] lang="zh"
# 方差紧跟 $d_k$（从 1 到 1024），偏差在 20,000 对样本的抽样误差之内（百分之几）；缩放之后，每个维度下的方差都是 1。
# 直方图上面一行是 $q \cdot k$，各子图**共用一条横轴**，可以看到它随 $d_k$ 增大越摊越开；下面一行是 $q \cdot k / \sqrt{d_k}$，形状始终一样。

# %%
fig = scaling.plot_dot_product_histograms(result)


# %% [markdown] lang="en"
# ## Exercise 2 · ★★☆ · about 10 min: measure the variance yourself
#
# Reproduce the table without the library: draw `n_samples` pairs $q, k$ of width `d_k` with independent
# standard-normal entries from `np.random.default_rng(seed)`, and return the variance of $q \cdot k$ and of
# $q \cdot k / \sqrt{d_k}$. The checker runs $d_k = 64, 512, 4$ and expects about $d_k$ and about 1.

# %% [markdown] lang="zh"
# ## 练习 2 · ★★☆ · 约 10 分钟：自己测一测方差
#
# 不用库函数把上面的表格重做一遍。用 `np.random.default_rng(seed)` 抽取 `n_samples` 对维度为 `d_k`、分量独立且服从标准正态分布的
# 向量 $q, k$，返回 $q \cdot k$ 的方差和 $q \cdot k / \sqrt{d_k}$ 的方差。检查器会试 $d_k = 64、512、4$，期望结果约为 $d_k$ 和 1。

# %%
def my_dot_product_variance(d_k, n_samples, seed):
    """[en] -> (variance of q·k, variance of q·k / sqrt(d_k)) over n_samples random pairs of width d_k
    [zh] -> （q·k 的方差，q·k / sqrt(d_k) 的方差），基于 n_samples 对维度为 d_k 的随机向量"""
    raise NotImplementedError("[en]draw q and k, take the dot products, measure their variance[zh]抽取 q 和 k，算出点积，再测它们的方差")

checks.check_dot_product_variance(my_dot_product_variance)

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def my_dot_product_variance(d_k, n_samples, seed):
#     rng = np.random.default_rng(seed)
#     q = rng.standard_normal((n_samples, d_k))      # (N, d_k)
#     k = rng.standard_normal((n_samples, d_k))      # (N, d_k)
#     dots = (q * k).sum(axis=1)                     # one dot product per pair   (N,)
#     return dots.var(), (dots / np.sqrt(d_k)).var()
# ```
# </details>

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def my_dot_product_variance(d_k, n_samples, seed):
#     rng = np.random.default_rng(seed)
#     q = rng.standard_normal((n_samples, d_k))      # (N, d_k)
#     k = rng.standard_normal((n_samples, d_k))      # (N, d_k)
#     dots = (q * k).sum(axis=1)                     # 每对向量一个点积   (N,)
#     return dots.var(), (dots / np.sqrt(d_k)).var()
# ```
# </details>

# %% [markdown] lang="en"
# ## Large scores saturate softmax
#
# Softmax only looks at **differences** between scores: $e^{s_1} / (e^{s_1} + e^{s_2}) = 1 / (1 + e^{-(s_1 - s_2)})$.
# A gap of 1 gives the winner 73%, a gap of 10 gives it 99.995%. At $d_k = 1024$ the scores have a standard deviation
# of $\sqrt{1024} = 32$, so the best key is typically about 10 units ahead of the runner-up, often far more (31.6 in
# the row below), and takes almost everything. One row of 16 scores at $d_k = 1024$, the same vectors without and
# with scaling (the three best keys):

# %% [markdown] lang="zh"
# ## 分数太大，softmax 就会饱和
#
# softmax 只看分数之间的**差**：$e^{s_1} / (e^{s_1} + e^{s_2}) = 1 / (1 + e^{-(s_1 - s_2)})$。差为 1 时领先者拿到 73% 的权重，
# 差为 10 时拿到 99.995%。$d_k = 1024$ 时分数的标准差是 $\sqrt{1024} = 32$，最好的 Key 通常比第二名领先 10 左右，常常领先得更多（下面这一行领先 31.6），几乎拿走全部权重。
# 下面是 $d_k = 1024$ 时一行 16 个分数，同一组向量分别不缩放和缩放，只列出最好的三个 Key：

# %%
for gap in (1.0, 10.0):
    print(f"[en]two keys, scores [{gap:g}, 0]: the winner's weight is {ac.softmax(np.array([gap, 0.0]))[0]:.5f}[zh]两个 Key，分数为 [{gap:g}, 0]：胜出者的权重是 {ac.softmax(np.array([gap, 0.0]))[0]:.5f}")
row_raw = scaling.softmax_saturation(1024, scaled=False, seed=0)       # [en] one query, 16 keys [zh] 一个 Query，16 个 Key
row_scaled = scaling.softmax_saturation(1024, scaled=True, seed=0)     # [en] the same vectors, divided by sqrt(1024) [zh] 同样的向量，除以 sqrt(1024)
best = np.argsort(row_raw["scores"][0])[::-1][:3]                      # [en] the three best keys [zh] 分数最高的三个 Key
for label, row in (("[en]keys (from 0), best first[zh]Key（从 0 编号），按分数从高到低", best),
                   ("[en]scores q·k[zh]分数 q·k", row_raw["scores"][0][best].round(1)),
                   ("[en]weights, no scaling[zh]权重，不缩放", row_raw["weights"][0][best].round(3)),
                   ("[en]scores q·k / sqrt(1024)[zh]分数 q·k / sqrt(1024)", row_scaled["scores"][0][best].round(2)),
                   ("[en]weights, scaled[zh]权重，缩放后", row_scaled["weights"][0][best].round(3))):
    print(pad(label, 24), row)

# %% [markdown] lang="en"
# **Why one-hot is bad: the gradient.** A model learns $W^Q$ and $W^K$ through the derivative of the weights with
# respect to the scores. For $p = \text{softmax}(s)$:
#
# 1. $p_i = e^{s_i} / \sum_m e^{s_m}$, so $\dfrac{\partial p_i}{\partial s_j} = p_i\,(\delta_{ij} - p_j)$
#    ($\delta_{ij}$ is 1 when $i = j$, else 0).
# 2. As a matrix, the Jacobian is $J = \text{diag}(p) - p\,p^\top$.
# 3. If $p$ is one-hot, every entry is 0: either $p_i = 0$, or $p_i = 1$ and $\delta_{ij} - p_j = 0$ for every $j$.
#    **No gradient reaches the scores**, whatever the loss says.
#
# We measure $J$ by its Frobenius norm $\|J\|$ (the root of the sum of its squared entries): $\sqrt{15}/16 = 0.242$
# for a uniform row over 16 keys, 0 for a one-hot row. Below, $J$ for a moderate and an extreme row of three scores,
# checked against finite differences of `ac.softmax`:

# %% [markdown] lang="zh"
# **one-hot 的坏处在于梯度**。模型通过权重对分数的导数来学习 $W^Q$ 和 $W^K$。对于 $p = \text{softmax}(s)$，
#
# 1. $p_i = e^{s_i} / \sum_m e^{s_m}$，所以 $\dfrac{\partial p_i}{\partial s_j} = p_i\,(\delta_{ij} - p_j)$，
#    其中 $i = j$ 时 $\delta_{ij} = 1$，否则为 0。
# 2. 写成矩阵，雅可比矩阵就是 $J = \text{diag}(p) - p\,p^\top$。
# 3. 如果 $p$ 是 one-hot，$J$ 的每个元素都等于 0，因为要么 $p_i = 0$，要么 $p_i = 1$ 而对所有 $j$ 都有 $\delta_{ij} - p_j = 0$。
#    不管损失是多少，**梯度都传不到分数上**。
#
# 我们用 Frobenius 范数 $\|J\|$（各元素平方和的平方根）衡量 $J$ 的大小。16 个 Key 上的均匀分布对应 $\sqrt{15}/16 = 0.242$，
# one-hot 对应 0。下面给出温和与极端两行分数（各三个）的 $J$，并用 `ac.softmax` 的有限差分核对：

# %%
eps = 1e-6
for s in (np.array([2.0, 1.0, 0.0]), np.array([20.0, 10.0, 0.0])):
    p = ac.softmax(s)
    jac = scaling.softmax_jacobian(p)                                  # diag(p) - p p^T   (3, 3)
    # [en] column j: how all three weights move when score j moves (central differences)
    # [zh] 第 j 列：分数 j 变动时，三个权重各自怎样变（中心差分）
    numeric = np.stack([(ac.softmax(s + eps * e) - ac.softmax(s - eps * e)) / (2 * eps) for e in np.eye(3)], axis=1)
    with np.printoptions(precision=5, suppress=True):                  # [en] 0.00005, not 5e-05 [zh] 显示 0.00005，而不是 5e-05
        print(f"[en]scores {s}  weights {p}  ‖J‖ = {np.linalg.norm(jac):.5f}  matches finite differences: {np.allclose(jac, numeric, atol=1e-8)}[zh]分数 {s}  权重 {p}  ‖J‖ = {np.linalg.norm(jac):.5f}  与有限差分一致：{np.allclose(jac, numeric, atol=1e-8)}")
        print(jac.round(4) + 0.0)                                      # [en] + 0.0 prints -0.0 as 0.0 [zh] 加 0.0 让 -0.0 显示成 0.0

# %% [markdown] lang="en"
# **Measured over many rows.** For each width, 1000 random rows of 16 scores: the average largest weight, the share of
# nearly one-hot rows (largest weight ≥ 0.99) and the average $\|J\|$, without and with scaling, on the same vectors.

# %% [markdown] lang="zh"
# **在大量的行上测量**。对每个维度取 1000 行随机分数（每行 16 个），在同一组向量上分别统计不缩放和缩放时的平均最大权重、
# 近似 one-hot（最大权重 ≥ 0.99）的行所占比例，以及 $\|J\|$ 的平均值。

# %%
table = scaling.saturation_table((1, 4, 16, 64, 256, 1024), n_rows=1000, n_keys=16, seed=0)
def head(width):                                      # [en] the column titles, right-aligned by display width [zh] 列标题，按显示宽度右对齐
    return (pad("[en]max weight[zh]最大权重", width, "right") + " " + pad("[en]one-hot[zh]近 one-hot", 8, "right")
            + " " + pad("‖J‖", 7, "right"))
print("        ------------ q·k -----------    ------- q·k / sqrt(d_k) -------")
print("  d_k   " + head(10) + "   " + head(12))
for i, d in enumerate(table["d_k"]):
    r, s = ({key: col[i] for key, col in table[side].items()} for side in ("raw", "scaled"))
    print(f"{d:5d}   {r['max_weight']:10.3f} {r['saturated']:8.0%} {r['jacobian_norm']:7.3f}   "
          f"{s['max_weight']:12.3f} {s['saturated']:8.0%} {s['jacobian_norm']:7.3f}")
j_raw = table["raw"]["jacobian_norm"]                 # [en] average ‖J‖ without scaling, one per d_k [zh] 不缩放时 ‖J‖ 的平均值，每个 d_k 一个
print(f"[en]‖J‖ without scaling: / {j_raw[3] / j_raw[4]:.2f} from d_k = 64 to 256, / {j_raw[4] / j_raw[5]:.2f} from 256 to 1024[zh]不缩放时的 ‖J‖：d_k 从 64 到 256 除以 {j_raw[3] / j_raw[4]:.2f}，从 256 到 1024 除以 {j_raw[4] / j_raw[5]:.2f}")

# %% [markdown] lang="en"
# Without scaling, the average largest weight climbs from 0.21 to 0.96, three rows in four are nearly one-hot at
# $d_k = 1024$, and the average $\|J\|$ falls from 0.28 to 0.06. Once it falls, each four-fold step of $d_k$ (which
# doubles the spread $\sqrt{d_k}$) divides it by more: 1.66× from 64 to 256, 1.96× from 256 to 1024. It first rises a
# little, at $d_k = 4$: a moderately peaked row has a larger Jacobian than a flat one; only a nearly one-hot row has
# none. With scaling, all three columns stay near their values at $d_k = 1$ (largest weight 0.21–0.25, $\|J\|$ 0.284–0.305).

# %% [markdown] lang="zh"
# 不缩放时，平均最大权重从 0.21 升到 0.96，$d_k = 1024$ 时四行里有三行接近 one-hot，$\|J\|$ 的平均值从 0.28 降到 0.06。
# 开始下降以后，$d_k$ 每扩大到 4 倍（分数的分散程度 $\sqrt{d_k}$ 翻一番），$\|J\|$ 缩小得越来越快：从 64 到 256 缩小到原来的 1/1.66，
# 从 256 到 1024 缩小到原来的 1/1.96。在 $d_k = 4$ 处它先略有上升，因为适度尖锐的一行比平坦的一行雅可比矩阵更大，只有接近 one-hot 的行才几乎没有梯度。
# 缩放之后，三列数字在各个维度下都保持在 $d_k = 1$ 时的水平附近（最大权重 0.21–0.25，$\|J\|$ 0.284–0.305）。

# %%
fig = scaling.plot_saturation(table)

# %% [markdown] lang="en"
# Now take the controls: the slider sets $d_k$ (1 to 1024), the switch turns the division by $\sqrt{d_k}$ on and off.
# Without scaling, move $d_k$ from 1 to 1024: the histogram widens and the weights collapse onto one key (the bar turns
# orange at 0.99). Then switch scaling on: the histogram narrows back to a standard deviation of 1. The vectors stay
# the same; only the scale changes.

# %% [markdown] lang="zh"
# 现在轮到你动手。滑块设置 $d_k$（从 1 到 1024），开关决定是否除以 $\sqrt{d_k}$。先不缩放，把 $d_k$ 从 1 拖到 1024，
# 直方图越来越宽，权重越来越集中到一个 Key 上（柱子达到 0.99 时变成橙色）。再打开缩放，直方图收窄回标准差为 1 的范围。
# 切换开关时向量不变，变的只是缩放因子。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
widgets.scaling_widget(d_k=64, scaled=False)

# %% [markdown] lang="en"
# ## What scaling does not do
#
# **It does not change which key wins.** Dividing every score of a row by the same positive number keeps their order;
# scaling only controls how far apart the scores are, and so how sharply softmax separates them. On 1000 rows at
# $d_k = 256$:

# %% [markdown] lang="zh"
# ## 缩放不做什么
#
# **它不改变哪个 Key 胜出**。一行中的每个分数都除以同一个正数，顺序不变。缩放控制的只是分数之间拉开多远，
# 也就是 softmax 把它们区分得有多尖锐。在 $d_k = 256$ 下用 1000 行来测量：

# %%
rows_raw = scaling.softmax_saturation(256, scaled=False, seed=1, n_rows=1000)     # [en] (1000, 16) scores [zh] (1000, 16) 个分数
rows_scaled = scaling.softmax_saturation(256, scaled=True, seed=1, n_rows=1000)   # [en] the same, divided by 16 [zh] 同样的分数，除以 16
print(pad("[en]same best key in every row:[zh]每一行的最佳 Key 都相同：", 30), np.array_equal(rows_raw["argmax"], rows_scaled["argmax"]))
print(pad("[en]same ranking of all 16 keys:[zh]16 个 Key 的排名完全相同：", 30),
      np.array_equal(np.argsort(rows_raw["scores"]), np.argsort(rows_scaled["scores"])))
print(pad("[en]spread (std) of the scores:[zh]分数的分散程度（标准差）：", 30), f"{rows_raw['score_std']:.2f} -> {rows_scaled['score_std']:.2f}")
print(pad("[en]average largest weight:[zh]平均最大权重：", 30), f"{rows_raw['max_weight']:.3f} -> {rows_scaled['max_weight']:.3f}")

# %% [markdown] lang="en"
# **It is not there to prevent overflow.** A numerically stable softmax subtracts each row's maximum before `exp`,
# so nothing overflows however large the scores (notebook 03). The unscaled rows compute without a NaN or an
# infinity and each sums to 1. They are saturated: the numbers are fine, the **gradient** is gone.

# %% [markdown] lang="zh"
# **它也不是为了防止溢出**。数值稳定的 softmax 在取 `exp` 之前先减去每行的最大值，分数再大也不会溢出（见 03 节）。
# 上面不缩放的那些行算下来没有一个 NaN 或无穷大，每行之和仍然是 1。它们只是饱和了：数值没问题，没了的是**梯度**。

# %%
huge = scaling.softmax_saturation(1024, scaled=False, seed=0, n_rows=1000)
print(f"[en]largest |score| without scaling: {np.abs(huge['scores']).max():.1f}[zh]不缩放时最大的 |分数|：{np.abs(huge['scores']).max():.1f}")
print(f"[en]all weights finite: {bool(np.isfinite(huge['weights']).all())}   every row sums to 1: {bool(np.allclose(huge['weights'].sum(axis=1), 1))}[zh]所有权重都是有限数：{bool(np.isfinite(huge['weights']).all())}   每行之和都为 1：{bool(np.allclose(huge['weights'].sum(axis=1), 1))}")
print(f"[en]rows nearly one-hot: {huge['saturated']:.0%}   average ‖J‖: {huge['jacobian_norm']:.3f}[zh]近似 one-hot 的行：{huge['saturated']:.0%}   平均 ‖J‖：{huge['jacobian_norm']:.3f}")

# %% [markdown] lang="en"
# ## Why divide by √d_k?
#
# **unit-variance entries → $\text{Var}(q \cdot k) = d_k$ → scores with a standard deviation of $\sqrt{d_k}$ →
# softmax nearly one-hot → Jacobian $\text{diag}(p) - pp^\top \approx 0$ → almost no gradient for $W^Q$ and $W^K$.**
#
# Dividing by $\sqrt{d_k}$ cuts the chain between $\text{Var}(q \cdot k) = d_k$ and scores with a spread of $\sqrt{d_k}$: the variance is 1 at every width, so softmax starts
# where it still learns (Vaswani et al., 2017, section 3.2.1). What training does to the scores afterwards is up to
# the gradients; the division guarantees a healthy start at any $d_k$, and the model can still learn larger scores
# where it needs sharp attention.
#
# **Why not divide by $d_k$?** That would shrink the variance to $1/d_k$ and flatten the weights towards uniform,
# the opposite failure. On the same vectors:

# %% [markdown] lang="zh"
# ## 为什么要除以 √d_k？
#
# **分量方差为 1 → $\text{Var}(q \cdot k) = d_k$ → 分数的标准差为 $\sqrt{d_k}$ → softmax 接近 one-hot →
# 雅可比矩阵 $\text{diag}(p) - pp^\top \approx 0$ → $W^Q$ 和 $W^K$ 几乎得不到梯度。**
#
# 除以 $\sqrt{d_k}$ 在“$\text{Var}(q \cdot k) = d_k$”和“分数的标准差为 $\sqrt{d_k}$”之间切断了这条链：无论维度多大，方差都是 1，softmax 从一开始就处在还能学习的区间
# （Vaswani 等，2017，第 3.2.1 节）。训练开始以后分数怎样变化，由梯度决定；这一步保证的是任何 $d_k$ 下都有一个健康的起点，
# 需要尖锐注意力的地方，模型仍然可以学出更大的分数。
#
# **为什么不除以 $d_k$**？那会把方差压到 $1/d_k$，权重被压平到接近均匀分布，这是反方向的失败。用同一批向量来测量：

# %%
print("[en]largest weight:[zh]最大权重：", f"[en](uniform over 16 keys: {1 / 16:.4f})[zh]（16 个 Key 均匀分布时：{1 / 16:.4f}）")
print("  d_k   " + pad("q·k / sqrt(d_k)", 31, "right") + pad("q·k / d_k", 12, "right"))
for d in (4, 64, 1024):
    s = scaling.softmax_saturation(d, scaled=True, seed=0, n_rows=1000)          # q·k / sqrt(d_k)
    by_d = scaling.saturation_stats(ac.softmax(s["scores"] / np.sqrt(d)))       # [en] divided once more: q·k / d_k [zh] 再除一次：q·k / d_k
    print(f"{d:5d}   {s['max_weight']:31.3f} {by_d['max_weight'].mean():11.3f}")

# %% [markdown] lang="en"
# Seen from notebook 03, $\sqrt{d_k}$ is a fixed softmax **temperature**, $\text{softmax}(s / \tau)$ with
# $\tau = \sqrt{d_k}$, growing exactly as fast as the spread of the scores.
#
# ### Self-test (Q2)

# %% [markdown] lang="zh"
# 从 03 节的角度看，$\sqrt{d_k}$ 就是一个固定的 softmax **温度**，即 $\text{softmax}(s / \tau)$ 中的 $\tau = \sqrt{d_k}$，
# 它增长得恰好和分数的分散程度一样快。
#
# ### 自测题（Q2）

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
quiz.quiz_widget("q2")

# %% [markdown] lang="en"
# ## Summary
#
# - Attention is $\text{softmax}\left(QK^\top / \sqrt{d_k}\right)V$: $Q, K$ of shape $(n, d_k)$, weights $(n, n)$,
#   output $(n, d_v)$.
# - For unit-variance entries $\text{Var}(q \cdot k) = d_k$ (measured: 0.97, 4.03, 16.00, 63.90, 258.85, 1020.15 for
#   $d_k$ = 1 … 1024); divided by $\sqrt{d_k}$ it is 1 at every width.
# - Large scores make softmax nearly one-hot and its Jacobian $\text{diag}(p) - pp^\top$ vanishes: at $d_k = 1024$
#   without scaling the average $\|J\|$ is 0.056 instead of 0.305.
# - Scaling keeps the order of the scores and is not about overflow; dividing by $d_k$ would flatten the weights.
#
# **Next:** [03 · Softmax](03_softmax.ipynb): why softmax, what temperature does, and how to compute it without overflow.

# %% [markdown] lang="zh"
# ## 小结
#
# - 注意力就是 $\text{softmax}\left(QK^\top / \sqrt{d_k}\right)V$，$Q, K$ 的形状为 $(n, d_k)$，权重为 $(n, n)$，输出为 $(n, d_v)$。
# - 分量方差为 1 时 $\text{Var}(q \cdot k) = d_k$，$d_k$ 从 1 到 1024 的实测值是 0.97、4.03、16.00、63.90、258.85、1020.15；
#   除以 $\sqrt{d_k}$ 之后，每个维度下方差都是 1。
# - 分数过大时 softmax 接近 one-hot，雅可比矩阵 $\text{diag}(p) - pp^\top$ 趋于 0。$d_k = 1024$ 且不缩放时，$\|J\|$ 的平均值只有 0.056，缩放后是 0.305。
# - 缩放不改变分数的排序，也不是为了防溢出。改成除以 $d_k$，权重又会被压平。
#
# **下一节**：[03 · Softmax](03_softmax.ipynb)，讲为什么用 softmax、温度起什么作用，以及怎样计算才不会溢出。
