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
# # 00 · Start here
#
# Welcome to **Attention Lab**, a hands-on course on the attention mechanism of Transformers: in every notebook you
# change a number, move a slider, and watch what attention does.
#
# **After this notebook you will be able to** find your way around the course, check your environment, and read a
# dot product as a similarity score, the first step of attention.
#
# **What you should know first:** a little Python and NumPy; the four prerequisites of attention get a one-screen
# refresher below, each closed by a question to check yourself. *About 20 minutes.*

# %% [markdown] lang="zh"
# # 00 · 从这里开始
#
# 欢迎来到 **Attention Lab**，这是一套动手学习 Transformer 注意力机制的课程。每一节里，你都可以改一个数、拖一下滑块，亲眼看到注意力怎样变化。
#
# **学完本节**，你将了解整套课程的结构，确认运行环境正常，并把点积看作相似度打分，这是注意力计算的第一步。
#
# **需要的基础**：会一点 Python 和 NumPy。注意力还需要四项先修知识，下面用四个小节快速回顾，每节后面有一道小题供你自查。*约 20 分钟。*

# %%
LANG = "[en]en[zh]zh"  # [en] language of this edition: "en" or "zh" [zh] 本版的语言："en" 或 "zh"
# %matplotlib inline
import numpy as np

import attention_core as ac
from attention_core.core import rnn
from attention_core.labs.nb00_start_here import glossary, widgets
from attention_core.teaching import environment, i18n
from attention_core.teaching.tables import pad

i18n.set_language(LANG)
rng = np.random.default_rng(0)  # [en] every random number in this notebook comes from this seed [zh] 本节的所有随机数都来自这个种子

# %% [markdown] lang="en"
# ## How to use this course
#
# - **Run cells in order** (<kbd>Shift</kbd>+<kbd>Enter</kbd>). The first cell of each notebook sets the language,
#   imports `attention_core` and fixes the random seed, so the numbers you see are the numbers in the text.
# - **Widgets** redraw at once; if one shows no picture, run its cell again.
# - **Definitions live in one package**, `attention_core`; `formula.source(ac.reference_softmax)` (from
#   `attention_core.teaching`) prints the formula behind a step.
# - **Exercises** carry a difficulty and a time (*Exercise 2 · ★★☆ · about 10 min*); a checker names what is wrong,
#   and a solution is hidden below. **Self-test questions** close each topic.
# - **Teachers:** `make present NB=01` opens a notebook's teacher's view (story and widgets, no code);
#   `make slides` builds offline slides.
# - **Stuck?** *Kernel → Restart Kernel and Run All Cells…*. `make lab` serves your own copy (`my-notebooks/`);
#   `make lab-reset` restores the originals and keeps yours as `my-notebooks.bak/`.

# %% [markdown] lang="zh"
# ## 怎样使用这套课程
#
# - **按顺序运行单元格**（<kbd>Shift</kbd>+<kbd>Enter</kbd>）。每一节的第一个单元格负责设置语言、导入 `attention_core`
#   并固定随机种子，所以你看到的数字与正文一致。
# - **交互控件**一动，图就更新；如果没显示图，重新运行它所在的单元格。
# - **所有定义都在 `attention_core` 这一个包里**。`formula.source(ac.reference_softmax)`（`formula` 来自
#   `attention_core.teaching`）会打印某一步背后的公式。
# - **练习**都标有难度和用时（*练习 2 · ★★☆ · 约 10 分钟*），检查器会指出哪里不对，参考答案藏在下面。每个主题最后还有**自测题**。
# - **老师们**可以用 `make present NB=01 LANG=zh` 打开某一节的教师视图（只有正文和控件，没有代码），用 `make slides` 生成离线幻灯片。
# - **卡住了**就用菜单里的“内核 → 重启并运行所有单元格…”从头再来。`make lab` 打开你自己的副本（`my-notebooks/`），
#   `make lab-reset` 恢复原版，并把你的副本存为 `my-notebooks.bak/`。

# %% [markdown] lang="en"
# ## The map
#
# Notebooks 00–11 take the attention mechanism apart, one idea each; 11 reviews it. Notebooks 12 and 13 turn to
# models: 12 measures what the heads of small trained Transformers learned, and in 13 you build and train a GPT.
#
# | # | Notebook | What you will see | Time | Self-test |
# |---|---|---|---|---|
# | 00 | **Start here** | environment, prerequisites | 20 min | – |
# | 01 | [Query, Key, Value: the intuition](01_query_key_value.ipynb) | one attention step by hand; who "it" refers to | 50 min | Q6 |
# | 02 | [Scaled dot-product attention and √d_k](02_scaled_dot_product.ipynb) | why scores are divided by √d_k | 50 min | Q2 |
# | 03 | [Softmax](03_softmax.ipynb) | temperature, stability, sparsity | 50 min | Q5 |
# | 04 | [Masking](04_masking.ipynb) | causal and padding masks, masks at inference | 60 min | Q4 |
# | 05 | [Self- and cross-attention](05_self_and_cross_attention.ipynb) | where Q, K and V come from | 55 min | Q1 |
# | 06 | [Multi-head attention](06_multi_head_attention.ipynb) | heads that look for different things | 75 min | Q3 |
# | 07 | [Position](07_position.ipynb) | sinusoidal encodings, RoPE | 70 min | Q7 |
# | 08 | [Attention versus RNN](08_attention_vs_rnn.ipynb) | path length, parallelism | 70 min | Q8 |
# | 09 | [Cost and the context window](09_cost_and_context_window.ipynb) | the n² wall, the KV cache, lost in the middle | 60 min | p9 |
# | 10 | [Efficient attention](10_efficient_attention.ipynb) | tiled attention, sliding windows | 90 min | – |
# | 11 | [Review of the mechanism](11_review.ipynb) | the eight questions, one map of 00–10 | 45 min | Q1–Q8 |
# | 12 | [Attention inside a trained Transformer](12_trained_transformer.ipynb) | the Transformer block; trained heads measured and ablated | 160 min, two sittings | x12a–c |
# | 13 | [Build your own GPT](13_build_a_gpt.ipynb) | a GPT written piece by piece, trained live, its heads ablated and patched | 160 min, two sittings | x13a–c |
#
# *Time* includes the exercises. *Self-test*: Q1–Q8 are the core questions, asked where their topic is taught and
# again in 11; p9 is a prediction made before 09's experiment; x12a–c and x13a–c are extra questions on the models.
# Go in order the first time. **Layers and heads are numbered from 0**, as in the code: L1H0 is head 0 of layer 1
# (the second layer).

# %% [markdown] lang="zh"
# ## 课程地图
#
# 00–11 节把注意力机制一块块拆开讲，每节一个主题，11 节做总复习。12、13 两节转向模型：12 节测量训练好的小型 Transformer
# 里各个头学到了什么，13 节由你亲手搭一个 GPT 并训练它。
#
# | 节 | 内容 | 你会看到什么 | 用时 | 自测题 |
# |---|---|---|---|---|
# | 00 | **从这里开始** | 运行环境、先修知识 | 20 分钟 | – |
# | 01 | [Query、Key、Value：直观理解](01_query_key_value.ipynb) | 手算一步注意力；“它”指的是谁 | 50 分钟 | Q6 |
# | 02 | [缩放点积注意力与 √d_k](02_scaled_dot_product.ipynb) | 为什么分数要除以 √d_k | 50 分钟 | Q2 |
# | 03 | [Softmax](03_softmax.ipynb) | 温度、数值稳定、是否稀疏 | 50 分钟 | Q5 |
# | 04 | [掩码](04_masking.ipynb) | 因果掩码、填充掩码、推理时的掩码 | 60 分钟 | Q4 |
# | 05 | [自注意力与交叉注意力](05_self_and_cross_attention.ipynb) | Q、K、V 从哪里来 | 55 分钟 | Q1 |
# | 06 | [多头注意力](06_multi_head_attention.ipynb) | 不同的头关注不同的关系 | 75 分钟 | Q3 |
# | 07 | [位置信息](07_position.ipynb) | 正弦位置编码、RoPE | 70 分钟 | Q7 |
# | 08 | [注意力与 RNN](08_attention_vs_rnn.ipynb) | 路径长度、并行计算 | 70 分钟 | Q8 |
# | 09 | [计算代价与上下文窗口](09_cost_and_context_window.ipynb) | n² 瓶颈、KV 缓存、中间迷失 | 60 分钟 | p9 |
# | 10 | [高效注意力](10_efficient_attention.ipynb) | 分块计算、滑动窗口 | 90 分钟 | – |
# | 11 | [注意力机制总复习](11_review.ipynb) | 八道核心题，00–10 节的全景图 | 45 分钟 | Q1–Q8 |
# | 12 | [训练好的 Transformer 里的注意力](12_trained_transformer.ipynb) | Transformer 块；训练出来的头，逐个测量、逐个消融 | 160 分钟，分两次学 | x12a–c |
# | 13 | [亲手搭一个 GPT](13_build_a_gpt.ipynb) | 一件件写出 GPT 的零件，现场训练，再消融、修补它的头 | 160 分钟，分两次学 | x13a–c |
#
# 用时包括做练习的时间。自测题一栏中，Q1–Q8 是八道核心题，在讲到相应内容的那一节出现，11 节再全部复习一遍；
# p9 是 09 节实验之前请你先做的预测；x12a–c 和 x13a–c 是关于两个模型的附加题。第一次学建议按顺序来。

# %% [markdown] lang="en"
# ## Glossary
#
# The words this course uses, in the order it teaches them, each with the notebook that explains it.
# Query, Key, Value, token and softmax keep these names throughout.

# %% [markdown] lang="zh"
# ## 术语表
#
# 中文版每个概念只用一个译名，按课程讲解的先后列在下面，并注明详细讲解它的那一节。Query、Key、Value、token、softmax
# 以及模型和方法的名字保留英文。读过《动手学深度学习》（d2l-zh）的读者请留意第二张表：那里列出 d2l-zh 译法不同的几个术语，
# 以及不同的原因，比如本课程的“注意力汇聚点”与 d2l-zh 里名称相近的术语说的是两回事。
# **层和头一律从 0 开始编号**，与代码里的下标一致：第 0 个头就是第一个头，L1H0 指第 1 层（即第二层）的第 0 个头。

# %%
glossary.table()

# %% [markdown] lang="en"
# ## Environment check
#
# The next cell lists the versions in use and the backends `attention_core` can run on. NumPy is always there;
# torch (CPU) and CUDA are optional, and every notebook works without them.

# %% [markdown] lang="zh"
# ## 环境检查
#
# 下面的单元格列出正在使用的版本，以及 `attention_core` 能用哪些后端运行。NumPy 一定可用；torch（CPU）和 CUDA 是可选的，
# 没有它们，每一节也都能运行。

# %%
# MEASUREMENT
# (versions differ from machine to machine)
environment.show_backends()

# %% [markdown] lang="en"
# ## Refresher 1: vectors and the dot product
#
# Inside a model a token is a vector. The dot product $a \cdot b = \sum_i a_i b_i$ is large when two vectors point
# the same way, zero at right angles and negative when they point apart. Attention uses exactly this number to score
# how well a query matches a key.

# %% [markdown] lang="zh"
# ## 快速回顾 1：向量与点积
#
# 在模型内部，一个 token 就是一个向量。点积 $a \cdot b = \sum_i a_i b_i$ 在两个向量方向一致时很大，互相垂直时为 0，
# 方向相反时为负。注意力正是用这个数来衡量 Query 与 Key 有多匹配。

# %%
query = np.array([1.0, 0.5])
candidates = {"[en]same direction[zh]方向相同": np.array([2.0, 1.0]),
              "[en]right angle[zh]互相垂直": np.array([-0.5, 1.0]),
              "[en]opposite[zh]方向相反": np.array([-1.0, -0.5])}
for name, key in candidates.items():
    cosine = query @ key / (np.linalg.norm(query) * np.linalg.norm(key))
    print(pad(name, 15), f"[en]dot = {query @ key:+.2f}   cosine = {cosine:+.2f}[zh]点积 = {query @ key:+.2f}   余弦 = {cosine:+.2f}")

# %% [markdown] lang="en"
# Now move the two vectors yourself. The dot product changes sign as the angle passes 90°, and unlike the cosine it
# also grows with the **length** of the vectors. Notebook 02 comes back to this: wider vectors make scores too large.

# %% [markdown] lang="zh"
# 现在亲手拖动两个向量。夹角越过 90° 时点积会变号；与余弦不同，点积还会随向量的**长度**变大。
# 02 节会回到这一点：维度越高，分数就越容易过大。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
widgets.dot_product_widget()

# %% [markdown] lang="en"
# **Check yourself.** Take a = (1, 0). Which of b = (3, 1) and b = (1, 0) gets the larger dot product with a, and
# which the larger cosine?
#
# <details><summary>Answer</summary>
#
# The dot product prefers (3, 1): 3 against 1. The cosine prefers (1, 0): 1 against 3/√10 ≈ 0.95. The dot product
# counts length as well as direction; notebook 02 shows why attention divides it by √d_k.
# </details>

# %% [markdown] lang="zh"
# **自己检查一下**：取 a = (1, 0)。b = (3, 1) 和 b = (1, 0) 中，哪个与 a 的点积更大？哪个与 a 的余弦更大？
#
# <details><summary>答案</summary>
#
# 点积是 (3, 1) 更大，3 比 1；余弦是 (1, 0) 更大，1 比 3/√10 ≈ 0.95。点积既看方向，也看长度。02 节会讲注意力为什么要把它除以 √d_k。
# </details>

# %% [markdown] lang="en"
# ## Refresher 2: softmax
#
# Softmax turns any list of real scores into positive weights that add up to 1, keeping their order.
# Notebook 03 studies it in depth.

# %% [markdown] lang="zh"
# ## 快速回顾 2：softmax
#
# softmax 把任意一组实数分数变成和为 1 的正权重，并保持大小顺序。03 节会专门讨论它。

# %%
scores = np.array([2.0, 1.0, 0.0])
weights = ac.softmax(scores)
print(pad("[en]scores[zh]分数", 8) + ":", scores)
print(pad("[en]weights[zh]权重", 8) + ":", weights.round(3), "[en] sum =[zh] 和 =", weights.sum().round(6))

# %% [markdown] lang="en"
# **Check yourself.** Softmax of [2, 1, 0] is printed above. Without running anything: what is softmax of
# [12, 11, 10]? Is softmax of [4, 2, 0] flatter or sharper?
#
# <details><summary>Answer</summary>
#
# [12, 11, 10] gives the same weights, [0.665, 0.245, 0.090]: adding one number to every score changes nothing.
# [4, 2, 0] is sharper, [0.867, 0.117, 0.016]: doubling the gaps between scores sharpens the weights. Notebook 03
# turns both facts into tools (stability and temperature).
# </details>

# %% [markdown] lang="zh"
# **自己检查一下**：上面打印了 [2, 1, 0] 的 softmax。不运行代码，你能说出 [12, 11, 10] 的 softmax 吗？
# [4, 2, 0] 的 softmax 比它更平坦，还是更尖锐？
#
# <details><summary>答案</summary>
#
# [12, 11, 10] 的权重完全相同，仍是 [0.665, 0.245, 0.090]：给每个分数加同一个数，结果不变。[4, 2, 0] 更尖锐，
# 是 [0.867, 0.117, 0.016]：分数之间的差距翻倍，权重就更集中。03 节会把这两点分别用于数值稳定和温度。
# </details>

# %% [markdown] lang="en"
# ## Refresher 3: a layer is a learned projection
#
# A linear layer multiplies a vector by a matrix, $y = xW$, and training chooses $W$. Attention gives every token
# **three** projections of the same vector: $q = xW^Q$ (what I look for), $k = xW^K$ (how I can be found) and
# $v = xW^V$ (what I hand over).

# %% [markdown] lang="zh"
# ## 快速回顾 3：神经网络层就是可学习的投影
#
# 线性层把向量乘上一个矩阵，$y = xW$，$W$ 由训练学出来。注意力给每个 token 的同一个向量做**三种**投影，
# $q = xW^Q$ 表示我在找什么，$k = xW^K$ 表示我凭什么被找到，$v = xW^V$ 表示我交出什么。

# %%
x = rng.normal(size=4)                          # [en] one token, D = 4 [zh] 一个 token，D = 4
# [en] three random (4, 4) matrices stand in for what training would learn
# [zh] 用三个随机的 (4, 4) 矩阵代替训练学到的参数
W_q, W_k, W_v = (rng.normal(size=(4, 4)) / 2 for _ in range(3))
q, k, v = x @ W_q, x @ W_k, x @ W_v
print("x =", x.round(2))
print("q =", q.round(2))
print("k =", k.round(2))
print("v =", v.round(2))

# %% [markdown] lang="en"
# **Check yourself.** If $W^Q$ had shape (4, 2) instead of (4, 4), what shape would $q$ have, and which other matrix
# would have to change with it?
#
# <details><summary>Answer</summary>
#
# $q$ would hold 2 numbers. $W^K$ must change too: a query is compared with every key by a dot product, so $q$ and
# $k$ need the same length ($d_k$). $W^V$ may keep any width.
# </details>

# %% [markdown] lang="zh"
# **自己检查一下**：如果 $W^Q$ 的形状是 (4, 2) 而不是 (4, 4)，$q$ 会有几个数？哪个矩阵必须跟着改？
#
# <details><summary>答案</summary>
#
# $q$ 会有 2 个数。$W^K$ 也必须跟着改：Query 要和每个 Key 做点积，所以 $q$ 和 $k$ 的维度必须相同（都是 $d_k$）。
# $W^V$ 的维度可以另取。
# </details>

# %% [markdown] lang="en"
# ## Refresher 4: the RNN passes information along a chain
#
# A recurrent network reads one token per step, $h_t = \tanh(x_t W_x + h_{t-1} W_h)$, so whatever the first token
# contributed must survive every later step. Below we nudge the **first** input and measure how much the **last**
# hidden state moves, for longer and longer sequences. The printed $|\partial h_T / \partial x_1|$ is that movement
# per unit of nudge (the size of the matrix of such rates, which notebook 08 calls the Jacobian).

# %% [markdown] lang="zh"
# ## 快速回顾 4：RNN 沿着一条链传递信息
#
# 循环神经网络每一步读入一个 token，$h_t = \tanh(x_t W_x + h_{t-1} W_h)$，第一个 token 带来的信息必须熬过之后的每一步。
# 下面让序列越来越长，每次给**第一个**输入加一个微小扰动，测量**最后一个**隐藏状态变化多少。打印出的
# $|\partial h_T / \partial x_1|$ 就是单位扰动引起的变化大小，即 08 节所说的雅可比矩阵的大小。

# %%
chain = rnn.init_rnn(d_in=4, d_hidden=16, seed=0, recurrent_scale=0.9)
lengths = [1, 2, 5, 10, 20, 40]
influence = rnn.influence_of_first_input(chain, lengths, seed=0)
for t, value in zip(lengths, influence):
    print(f"T = {t:3d}   |d h_T / d x_1| ≈ {value:.1e}")

# %% [markdown] lang="en"
# The influence of the first token falls by orders of magnitude as the chain grows. Set `recurrent_scale=2.0` above
# and rerun: now it swings and grows (about 6 at T = 40). The tutorial *Attention in Transformers, from intuition to
# formula* [“Transformer Attention 机制入门：从直觉到公式”] names both failures: gradients vanish or explode. Attention
# removes the chain, letting any two positions interact in **one** step; notebook 08 measures the trade.
#
# **Check yourself.** From the table above, about how many times weaker is the first token's influence at T = 20
# than at T = 1?
#
# <details><summary>Answer</summary>
#
# About ten thousand times: 1.9 at T = 1 against 1.8e-04 at T = 20 (and 7.8e-09 at T = 40). In attention the first
# token is one step from every later one, whatever T is.
# </details>
#
# ## Summary
#
# A dot product scores how well two vectors match; softmax turns scores into weights; projections give one vector
# three roles; an RNN's long chain makes early information fade (or explode).
#
# **Next:** [01 · Query, Key, Value: the intuition](01_query_key_value.ipynb), where these four pieces become attention.

# %% [markdown] lang="zh"
# 随着链条变长，第一个 token 的影响下降了好几个数量级。把上面的 `recurrent_scale` 改成 `2.0` 再运行，影响就会忽大忽小、越变越大
# （T = 40 时约为 6）。《Transformer Attention 机制入门：从直觉到公式》把这两种失败合称为“梯度易消失／爆炸”。
# 注意力拿掉了这条链，任意两个位置**一步**就能直接交互，08 节会详细测量这种取舍。
#
# **自己检查一下**：从上面的表里读一读，T = 20 时第一个 token 的影响大约只有 T = 1 时的几分之一？
#
# <details><summary>答案</summary>
#
# 大约万分之一：T = 1 时是 1.9，T = 20 时是 1.8e-04（T = 40 时只剩 7.8e-09）。在注意力里，不论 T 多大，
# 第一个 token 与后面每个 token 都只隔一步。
# </details>
#
# ## 小结
#
# 点积衡量两个向量有多匹配，softmax 把分数变成权重，投影让同一个向量扮演三种角色，RNN 的长链条让早期信息逐渐消失（或爆炸）。
#
# **下一节**：[01 · Query、Key、Value：直观理解](01_query_key_value.ipynb)，这四块拼起来就是注意力。
