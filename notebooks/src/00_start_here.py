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
# Welcome to **Attention Lab**, a hands-on course on the attention mechanism of Transformers.
# Every notebook is a set of experiments: you change a number, move a slider, and watch what attention does.
#
# **After this notebook you will be able to**
# - find your way around the collection and choose where to start;
# - check that your environment works (NumPy always, torch and CUDA if present);
# - explain a dot product as a similarity score, which is the first step of attention.
#
# **What you should know first:** a little Python and NumPy. The four prerequisites of attention
# (vectors and dot products, softmax, a layer as a learned projection, the RNN) get a one-screen refresher below.

# %% [markdown] lang="zh"
# # 00 · 从这里开始
#
# 欢迎来到 **Attention Lab**：一套动手学习 Transformer 注意力机制的课程。
# 每个 notebook 都由实验组成：改一个数、拖一下滑块，亲眼看注意力会怎样变化。
#
# **学完本节，你将能够**
# - 了解整套课程的结构，知道从哪里开始；
# - 确认运行环境正常（NumPy 必备；如果装了 torch 和 CUDA，也一并检查）；
# - 把点积理解为“相似度打分”——这正是注意力计算的第一步。
#
# **需要的基础**：会一点 Python 和 NumPy 即可。注意力的四项先修知识（向量与点积、softmax、
# “神经网络层就是可学习的投影”、RNN）在下面各有一屏的快速回顾。

# %%
LANG = "[en]en[zh]zh"  # [en] language of this edition: "en" or "zh" [zh] 本版的语言："en" 或 "zh"
# %matplotlib inline
import numpy as np

import attention_core as ac
from attention_core.core import rnn
from attention_core.labs.nb00_start_here import widgets
from attention_core.teaching import environment, i18n
from attention_core.teaching.tables import pad

i18n.set_language(LANG)
rng = np.random.default_rng(0)  # [en] every random number in this notebook comes from this seed [zh] 本 notebook 的所有随机数都来自这个种子

# %% [markdown] lang="en"
# ## How to use this collection
#
# - **Run cells in order** with <kbd>Shift</kbd>+<kbd>Enter</kbd>. The first code cell of every notebook sets the
#   language, imports `attention_core` and fixes the random seed, so the numbers you see are the numbers in the text.
# - **Widgets** (sliders, buttons) update their figure at once. If a widget shows no picture, run its cell again.
# - **Definitions live in one package.** Notebooks never re-implement attention: they call `attention_core`.
#   To read the code behind a step, run `inspect.getsource(ac.reference_softmax)`.
# - **Two editions, one code.** `notebooks/en/` and `notebooks/zh/` run identical code cells; only the text differs.
# - **Self-test questions** sit at the end of each topic: answer, press *Check*, then compare with the reference answer.
# - **Teachers:** *View → Appearance → Presentation Mode* in JupyterLab makes the text large enough for a projector;
#   `make present NB=01` opens the teacher's view of a notebook (the story and the widgets, no code, in Voilà:
#   `.venv/bin/voila` with the `attention-lab-teacher` template), and `make slides` builds slides that work offline.
# - **Stuck?** *Kernel → Restart Kernel and Run All Cells* clears every variable and reruns the notebook from the top.
#   `make lab` serves your own copy of the notebooks (`my-notebooks/`); to undo your edits too, run `make lab-reset`
#   (your copy is kept as `my-notebooks.bak/`).

# %% [markdown] lang="zh"
# ## 怎样使用这套课程
#
# - **按顺序运行单元格**：按 <kbd>Shift</kbd>+<kbd>Enter</kbd>。每个 notebook 的第一个代码单元格负责设置语言、
#   导入 `attention_core` 并固定随机种子，所以你看到的数字和正文里写的一致。
# - **交互控件**（滑块、按钮）一动，图就会马上更新。如果控件没显示图，重新运行它所在的单元格即可。
# - **所有定义都在同一个包里**。notebook 从不自己重写注意力，而是调用 `attention_core`。
#   想看某一步背后的代码，运行 `inspect.getsource(ac.reference_softmax)` 就行。
# - **两个版本，同一份代码**。`notebooks/en/` 和 `notebooks/zh/` 的代码单元格完全相同，只有文字不同。
# - **自测题**在每个主题的末尾：先作答，点*检查答案*，再对照参考答案。
# - **老师们**：JupyterLab 的*查看 → 外观 → 演示模式*（英文界面：*View → Appearance → Presentation Mode*）
#   会把字放大，适合投影；`make present NB=01 LANG=zh` 打开某个 notebook 的教师视图（只有正文和控件、没有代码，
#   用 Voilà 显示：`.venv/bin/voila` 加 `attention-lab-teacher` 模板）；`make slides` 生成离线可用的幻灯片。
# - **卡住了**？用*内核 → 重启并运行所有单元格…*（*Kernel → Restart Kernel and Run All Cells*）清空所有变量，
#   从头重新运行整个 notebook。`make lab` 打开的是你自己的一份副本（`my-notebooks/`）；如果还想撤销自己改过的内容，
#   运行 `make lab-reset`（原来的副本保存在 `my-notebooks.bak/`）。

# %% [markdown] lang="en"
# ## The map
#
# | # | Notebook | What you will see | Self-test |
# |---|---|---|---|
# | 00 | **Start here** (this one) | environment, prerequisites, dot product as similarity | – |
# | 01 | [Query, Key, Value: the intuition](01_query_key_value.ipynb) | the worked example of attention, step by step; who "it" refers to | Q6 |
# | 02 | [Scaled dot-product attention and √d_k](02_scaled_dot_product.ipynb) | why the scores are divided by √d_k | Q2 |
# | 03 | [Softmax](03_softmax.ipynb) | temperature, stability, "is it sparse?" | Q5 |
# | 04 | [Masking](04_masking.ipynb) | causal and padding masks, the KV cache | Q4 |
# | 05 | [Self- and cross-attention](05_self_and_cross_attention.ipynb) | where Q, K and V come from | Q1 |
# | 06 | [Multi-head attention](06_multi_head_attention.ipynb) | heads that look for different things | Q3 |
# | 07 | [Position](07_position.ipynb) | sinusoidal encodings, RoPE | Q7 |
# | 08 | [Attention versus RNN](08_attention_vs_rnn.ipynb) | path length, parallelism | Q8 |
# | 09 | [Cost and the context window](09_cost_and_context_window.ipynb) | the n² wall, lost in the middle | P9 |
# | 10 | [Efficient attention](10_efficient_attention.ipynb) | tiled attention, sliding windows | – |
# | 11 | [Review](11_review.ipynb) | all eight self-test questions | Q1–Q8 |
# | 12 | [Attention inside a trained Transformer](12_trained_transformer.ipynb) | the Transformer block; heads a small trained model learned, measured and ablated | extra x12a–c |
# | 13 | [Build your own GPT](13_build_a_gpt.ipynb) | tokens; every piece of a GPT written by you and checked, trained on the course text, its heads found, generation with a KV cache | extra x13a–c |
#
# Go in order the first time: each notebook uses the ideas of the ones before it.

# %% [markdown] lang="zh"
# ## 课程地图
#
# | # | Notebook | 你会看到什么 | 自测题 |
# |---|---|---|---|
# | 00 | **从这里开始**（本节） | 运行环境、先修知识、点积即相似度 | – |
# | 01 | [Query、Key、Value：直觉](01_query_key_value.ipynb) | 一步步算完一个注意力例子；“it”指的是谁 | Q6 |
# | 02 | [缩放点积注意力与 √d_k](02_scaled_dot_product.ipynb) | 为什么分数要除以 √d_k | Q2 |
# | 03 | [Softmax](03_softmax.ipynb) | 温度、数值稳定、输出是否稀疏 | Q5 |
# | 04 | [掩码](04_masking.ipynb) | 因果掩码、填充掩码；KV 缓存 | Q4 |
# | 05 | [自注意力与交叉注意力](05_self_and_cross_attention.ipynb) | Q、K、V 从哪里来 | Q1 |
# | 06 | [多头注意力](06_multi_head_attention.ipynb) | 不同的头关注不同的关系 | Q3 |
# | 07 | [位置信息](07_position.ipynb) | 正弦位置编码、RoPE | Q7 |
# | 08 | [注意力与 RNN](08_attention_vs_rnn.ipynb) | 路径长度、并行计算 | Q8 |
# | 09 | [计算代价与上下文窗口](09_cost_and_context_window.ipynb) | n² 的墙、中间迷失 | P9 |
# | 10 | [高效注意力](10_efficient_attention.ipynb) | 分块计算、滑动窗口 | – |
# | 11 | [总复习](11_review.ipynb) | 全部八道自测题 | Q1–Q8 |
# | 12 | [训练好的 Transformer 里的注意力](12_trained_transformer.ipynb) | Transformer 块；一个训练好的小模型学出来的头，逐个测量、逐个消融 | 附加题 x12a–c |
# | 13 | [亲手搭一个 GPT](13_build_a_gpt.ipynb) | token；亲手写出并逐一检查 GPT 的每个零件，在课程文字上训练，找出它的头，用 KV 缓存生成 | 附加题 x13a–c |
#
# 第一次学建议按顺序来：每一节都会用到前面几节的概念。

# %% [markdown] lang="en"
# ## Glossary
#
# The Chinese edition uses one Chinese term per concept, listed here with the term of *Dive into Deep Learning*
# (d2l-zh) where it differs, so that its readers recognise them. Query, Key, Value, token, softmax and the names
# of models and methods stay in English in both editions. **Layers and heads are numbered from 0**, as their index in
# the code: head 0 is the first head, L1H0 is head 0 of layer 1 (the second layer).
#
# | English | this course (中文版) | d2l-zh, where it differs |
# |---|---|---|
# | attention; attention weights / scores | 注意力；注意力权重 / 注意力分数 | |
# | Query, Key, Value | Query、Key、Value (kept in English) | 查询、键、值 |
# | token | token (kept in English) | 词元 |
# | scaled dot-product attention | 缩放点积注意力 | |
# | self-attention / cross-attention | 自注意力 / 交叉注意力 | 自注意力 / 编码器－解码器注意力 |
# | multi-head attention; head | 多头注意力；头 | |
# | mask (noun); to mask | 掩码；屏蔽 | 掩蔽 |
# | causal mask / padding mask | 因果掩码 / 填充掩码 | |
# | KV cache | KV 缓存 | |
# | positional encoding (sinusoidal / learned) | 位置编码（正弦 / 可学习） | |
# | hidden state | 隐藏状态 | 隐状态 |
# | Transformer block (one layer of the model) | Transformer 块 | |
# | layer normalization; residual connection | 层归一化；残差连接 | 层规范化；残差连接 |
# | feed-forward network | 前馈网络 | 基于位置的前馈网络 |
# | embedding; encoder / decoder | 嵌入；编码器 / 解码器 | |
# | grouped-query attention (GQA) | 分组 Query 注意力 | |
# | context window; KV heads | 上下文窗口；KV 头 | |
# | ablation; induction head | 消融；induction head (kept in English) | |

# %% [markdown] lang="zh"
# ## 术语表
#
# 中文版里每个概念只用一个中文译名，列在下面；与《动手学深度学习》（d2l-zh）译法不同的，也一并列出，方便读过那本书的读者对照。
# Query、Key、Value、token、softmax 以及模型和方法的名字，两个版本都保留英文。**层和头一律从 0 开始编号**，与代码里的下标一致：
# 第 0 个头就是第一个头，L1H0 指第 1 层（即第二层）的第 0 个头。
#
# | 英文 | 本课程 | d2l-zh（不同时列出） |
# |---|---|---|
# | attention；attention weights / scores | 注意力；注意力权重 / 注意力分数 | |
# | Query、Key、Value | Query、Key、Value（保留英文） | 查询、键、值 |
# | token | token（保留英文） | 词元 |
# | scaled dot-product attention | 缩放点积注意力 | |
# | self-attention / cross-attention | 自注意力 / 交叉注意力 | 自注意力 / 编码器－解码器注意力 |
# | multi-head attention；head | 多头注意力；头 | |
# | mask（名词）；to mask（动词） | 掩码；屏蔽 | 掩蔽 |
# | causal mask / padding mask | 因果掩码 / 填充掩码 | |
# | KV cache | KV 缓存 | |
# | positional encoding（sinusoidal / learned） | 位置编码（正弦 / 可学习） | |
# | hidden state | 隐藏状态 | 隐状态 |
# | Transformer block（模型的一层） | Transformer 块 | |
# | layer normalization；residual connection | 层归一化；残差连接 | 层规范化；残差连接 |
# | feed-forward network | 前馈网络 | 基于位置的前馈网络 |
# | embedding；encoder / decoder | 嵌入；编码器 / 解码器 | |
# | grouped-query attention（GQA） | 分组 Query 注意力 | |
# | context window；KV heads | 上下文窗口；KV 头 | |
# | ablation；induction head | 消融；induction head（保留英文） | |

# %% [markdown] lang="en"
# ## Environment check
#
# The next cell reports the versions in use and which backends `attention_core` can run on.
# NumPy is always there; torch (CPU) and CUDA are optional, and every notebook works without them.

# %% [markdown] lang="zh"
# ## 环境检查
#
# 下面的单元格会列出正在使用的版本，以及 `attention_core` 可以用哪些后端运行。
# NumPy 一定可用；torch（CPU）和 CUDA 是可选的，没有它们每个 notebook 也都能运行。

# %%
# MEASUREMENT
# (versions differ from machine to machine)
environment.show_backends()

# %% [markdown] lang="en"
# ## Refresher 1: vectors and the dot product
#
# A token inside a model is a vector of numbers. The dot product $a \cdot b = \sum_i a_i b_i$ is large when two
# vectors point the same way, zero when they are at right angles, and negative when they point apart.
# Attention uses exactly this number to score how well a query matches a key.

# %% [markdown] lang="zh"
# ## 快速回顾 1：向量与点积
#
# 在模型内部，一个 token 就是一串数字组成的向量。点积 $a \cdot b = \sum_i a_i b_i$ 在两个向量方向一致时很大，
# 互相垂直时为 0，方向相反时为负。注意力正是用这个数来给“Query 和 Key 有多匹配”打分。

# %%
query = np.array([1.0, 0.5])
candidates = {"[en]same direction[zh]方向相同": np.array([2.0, 1.0]),
              "[en]right angle[zh]互相垂直": np.array([-0.5, 1.0]),
              "[en]opposite[zh]方向相反": np.array([-1.0, -0.5])}
for name, key in candidates.items():
    cosine = query @ key / (np.linalg.norm(query) * np.linalg.norm(key))
    print(pad(name, 15), f"[en]dot = {query @ key:+.2f}   cosine = {cosine:+.2f}[zh]点积 = {query @ key:+.2f}   余弦 = {cosine:+.2f}")

# %% [markdown] lang="en"
# Now move the two vectors yourself. Watch the dot product change sign as the angle passes 90°,
# and notice that it also grows with the **length** of the vectors, unlike the cosine.
# That second fact comes back in notebook 02, where wider vectors (more dimensions) make scores too large.

# %% [markdown] lang="zh"
# 现在亲手拖动两个向量。注意夹角越过 90° 时点积会变号；还要注意，点积会随向量的**长度**变大，
# 而余弦值不会。这一点会在 02 节再次出现：向量越长、维度越高，分数就越容易变得过大。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
widgets.dot_product_widget()

# %% [markdown] lang="en"
# ## Refresher 2: softmax
#
# Softmax turns any list of real scores into positive weights that add up to 1, keeping their order:
# the biggest score gets the biggest weight. Notebook 03 studies it in depth.

# %% [markdown] lang="zh"
# ## 快速回顾 2：softmax
#
# softmax 把任意一串实数分数变成和为 1 的正权重，并保持大小顺序：分数最高的得到最大的权重。
# 03 节会专门深入讨论它。

# %%
scores = np.array([2.0, 1.0, 0.0])
weights = ac.softmax(scores)
print(pad("[en]scores[zh]分数", 8) + ":", scores)
print(pad("[en]weights[zh]权重", 8) + ":", weights.round(3), "[en] sum =[zh] 和 =", weights.sum().round(6))

# %% [markdown] lang="en"
# ## Refresher 3: a layer is a learned projection
#
# A linear layer multiplies a vector by a matrix: $y = xW$. Training chooses $W$. Attention gives every token
# **three** such projections of the same vector: $q = xW^Q$ (what I look for), $k = xW^K$ (how I can be found)
# and $v = xW^V$ (what I hand over). Same input, three roles.

# %% [markdown] lang="zh"
# ## 快速回顾 3：神经网络层就是可学习的投影
#
# 线性层就是把向量乘上一个矩阵：$y = xW$，$W$ 由训练学出来。注意力给每个 token 的同一个向量
# 做**三种**投影：$q = xW^Q$（我在找什么）、$k = xW^K$（我凭什么被找到）、$v = xW^V$（我交出什么内容）。
# 同一个输入，三种角色。

# %%
x = rng.normal(size=4)                          # [en] one token, D = 4 [zh] 一个 token，D = 4
params = ac.init_multihead(d_model=4, n_heads=1, seed=0, bias=False)
q, k, v = x @ params.w_q, x @ params.w_k, x @ params.w_v
print("x =", x.round(2))
print("q =", q.round(2))
print("k =", k.round(2))
print("v =", v.round(2))

# %% [markdown] lang="en"
# ## Refresher 4: the RNN passes information along a chain
#
# A recurrent network reads one token per step: $h_t = \tanh(x_t W_x + h_{t-1} W_h)$. Whatever the first token
# contributed has to survive every later step. Below we nudge the **first** input and measure how much the
# **last** hidden state moves, for longer and longer sequences.

# %% [markdown] lang="zh"
# ## 快速回顾 4：RNN 沿着一条链传递信息
#
# 循环神经网络每一步读入一个 token：$h_t = \tanh(x_t W_x + h_{t-1} W_h)$。第一个 token 带来的信息，
# 必须熬过之后的每一步才能到达末尾。下面让序列一次比一次长，每次都轻推**第一个**输入，测量**最后一个**隐藏状态随之变化多少。

# %%
chain = rnn.init_rnn(d_in=4, d_hidden=16, seed=0, recurrent_scale=0.9)
lengths = [1, 2, 5, 10, 20, 40]
influence = rnn.influence_of_first_input(chain, lengths, seed=0)
for t, value in zip(lengths, influence):
    print(f"T = {t:3d}   |d h_T / d x_1| ≈ {value:.1e}")

# %% [markdown] lang="en"
# The influence of the first token falls by orders of magnitude as the chain grows. Change `recurrent_scale=0.9`
# to `2.0` in the cell above and rerun it: now the influence does not fade, it swings and grows (about 6 at T = 40),
# the other failure of a long chain (“Transformer Attention 机制入门：从直觉到公式”: gradients *vanish or explode*). Attention removes the chain: any two positions interact in **one** step.
# Notebook 08 measures this trade in detail.
#
# ## Summary
#
# - The collection is a sequence of experiments; run cells in order and move the widgets.
# - A dot product scores how well two vectors match; softmax turns scores into weights;
#   projections give one vector three roles; an RNN's long chain makes early information fade (or explode).
#
# **Next:** [01 · Query, Key, Value: the intuition](01_query_key_value.ipynb), where these four pieces become attention.

# %% [markdown] lang="zh"
# 随着链条变长，第一个 token 的影响下降了好几个数量级。把上面单元格里的 `recurrent_scale=0.9` 改成 `2.0` 再运行：
# 这次影响不再衰减，而是忽大忽小、越变越大（T = 40 时约为 6）——这是长链条的另一种失败（《Transformer Attention 机制入门：从直觉到公式》所说的“梯度易消失/爆炸”）。注意力把这条链拿掉了：任意两个位置**一步**就能直接交互。
# 08 节会详细测量这种取舍。
#
# ## 小结
#
# - 这套课程由一连串实验组成：按顺序运行单元格，动手拖动控件。
# - 点积衡量两个向量有多匹配；softmax 把分数变成权重；投影让同一个向量扮演三种角色；
#   RNN 的长链条让早期信息逐渐消失（或爆炸）。
#
# **下一节**：[01 · Query、Key、Value：直觉](01_query_key_value.ipynb)——这四块拼起来，就是注意力。
