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
# # 08 · Attention versus RNN
#
# **After this notebook you will be able to**
# - say how many steps information needs between two distant tokens: $n$ hand-offs in an RNN, **one** in attention;
# - measure how much an early token still moves the last output as the distance grows: fading (or exploding) along the RNN's chain, flat for attention;
# - show why even unlimited parallel hardware needs $n$ rounds for an RNN and one for attention;
# - say what a loss in nats, a gradient step, Adam and a warm-up are, each computed on one small example;
# - train a plain RNN, a GRU and one attention layer on a long-range task and read their accuracy against the distance;
# - fill in the table "RNN versus attention" with counted numbers, find where attention becomes the more expensive one ($n = d$), and answer "why can attention replace an RNN on long sequences?".
#
# **What you should know first:** the RNN refresher of [00 · Start here](00_start_here.ipynb); one attention step
# ([01 · Query, Key, Value](01_query_key_value.ipynb)); why attention is blind to order ([07 · Position](07_position.ipynb)).
# *About 70 minutes, exercises included.*

# %% [markdown] lang="zh"
# # 08 · 注意力与 RNN
#
# **学完本节，你将能够**
# - 说清两个相隔很远的 token 之间信息要走多少步：RNN 要接力 $n$ 次，注意力只要**一步**；
# - 测量距离拉长时一个早先的 token 还能在多大程度上影响最后的输出：在 RNN 的链条上逐渐消失或爆炸，在注意力里保持不变；
# - 说明为什么即使硬件并行能力无限，RNN 也要算 $n$ 轮，注意力只要一轮；
# - 说清以纳特为单位的损失、一步梯度下降、Adam 和预热各是什么，每一样都在一个小例子上算出来；
# - 在远距离任务上训练普通 RNN、GRU 和一层注意力，读懂它们的准确率如何随距离变化；
# - 用数出来的数字填好“RNN 与注意力”对比表，找到注意力反而更贵的分界点 $n = d$，并回答“为什么注意力能替代 RNN 处理长序列”。
#
# **需要的基础**：[00 节](00_start_here.ipynb)对 RNN 的快速回顾；一步注意力的流程，见 [01 节](01_query_key_value.ipynb)；
# 注意力为什么看不见顺序，见 [07 节](07_position.ipynb)。*约 70 分钟，含练习。*

# %%
LANG = "[en]en[zh]zh"  # [en] language of this edition: "en" or "zh" [zh] 本版的语言："en" 或 "zh"
# %matplotlib inline
import numpy as np

import attention_core as ac
from attention_core import backends
from attention_core.core import rnn
from attention_core.labs.nb07_position import position_lab
from attention_core.labs.nb08_attention_vs_rnn import checks, rnn_lab, widgets
from attention_core.teaching import formula, i18n, quiz
from attention_core.teaching.tables import pad

i18n.set_language(LANG)
rng = np.random.default_rng(0)  # [en] every random number in this notebook comes from this seed [zh] 本节的所有随机数都来自这个种子
np.set_printoptions(precision=3, suppress=True)  # [en] arrays print with 3 decimals [zh] 数组打印时保留 3 位小数

# %% [markdown] lang="en"
# ## Two ways to pass information along
#
# Take the example of the tutorial "Transformer self-attention: the intuition, no maths needed" (Transformer
# 自注意力机制：直觉理解，不需要数学): the model is at word 20 and needs something from word 1. A recurrent network
# (RNN) reads one word per step and keeps a running summary, the hidden state $h_t$. Word 1 reaches word 20 only as part
# of that summary, **handed on** 19 times, each a lossy transformation. Attention does not relay: the query of word 20
# meets the key of word 1 directly, and word 1's value is mixed in with the resulting weight. Whatever the distance, it
# is **one** step.
#
# Here is the whole RNN of this course (`attention_core.core.rnn`). The loop is the point: step $t$ needs $h_{t-1}$. So
# `path_length` below is a definition (the distance for a recurrent layer, 1 for attention); what the long path
# **costs** is measured next. (As in every notebook, the library's functions are printed without their docstrings.)

# %% [markdown] lang="zh"
# ## 传递信息的两种方式
#
# 沿用《Transformer 自注意力机制：直觉理解，不需要数学》的例子：模型正在处理第 20 个词，需要用到第 1 个词的信息。循环神经网络（RNN）每步读一个词，
# 维护一份不断更新的摘要，即隐藏状态 $h_t$。第 1 个词只能作为摘要的一部分**接力**传下去，要接力 19 次，每次都是有损的变换。
# 注意力不接力：第 20 个词的 Query 直接和第 1 个词的 Key 比较，再按得到的权重把第 1 个词的 Value 混进来。无论相隔多远，都只要**一步**。
#
# 下面是本课程的整个 RNN（`attention_core.core.rnn`）。关键在那个循环：第 $t$ 步需要 $h_{t-1}$。所以下面的 `path_length` 只是一个定义：
# 循环层的跳数等于距离，注意力层为 1。长路径的**代价**接下来再测。（`h0` 缺省时为全零，由参数检查补上。）

# %%
print(formula.source(rnn.rnn_forward))
# [en] the hops are a definition of the structure, not a measurement
# [zh] 跳数是由结构定义出来的，不是测量出来的
print(formula.source(rnn_lab.path_length))

# %% [markdown] lang="en"
# A gated RNN (GRU, LSTM) changes **what** happens at each hand-off, not **how many** there are: its path is just as long.

# %% [markdown] lang="zh"
# 门控 RNN（GRU、LSTM）改变的是每次接力时**做什么**，而不是接力**多少次**：它的路径一样长。

# %% [markdown] lang="en"
# ## Path length
#
# ### The chain of multiplications
#
# How much does a nudge to an early input $x_s$ move the last hidden state $h_T$? Follow it through the recurrence
# $h_t = \tanh(x_t W_x + h_{t-1} W_h + b)$ (row vectors), one step at a time. Write $G_t = \operatorname{diag}(1 - h_t^2)$
# for the slope of tanh at step $t$, and let $T$ be the index of the last step (below, 48 steps numbered 0..47, so
# $T = 47$).
#
# 1. At step $s$ the nudge enters: $\delta h_s = \delta x_s\, W_x\, G_s$.
# 2. Every later step passes it on, multiplied again: $\delta h_t = \delta h_{t-1}\, W_h\, G_t$.
# 3. So after $T - s$ hand-offs
#
# $$\frac{\partial h_T}{\partial x_s} = W_x\, G_s\, \underbrace{(W_h G_{s+1})\,(W_h G_{s+2}) \cdots (W_h G_T)}_{T - s \text{ factors}} .$$
#
# 4. Each factor has norm at most $\|W_h\| \cdot \max(1 - h^2) \le \|W_h\|$. Our $W_h$ is an orthogonal matrix times
#    0.9, so $\|W_h\| = 0.9$ and the product shrinks at least like $0.9^{T-s}$: the early token **fades**.
#    With $\|W_h\|$ well above 1 the product can grow instead: it **explodes**.
#
# With row vectors this Jacobian is a $(D_{in}, D_h)$ matrix: row $i$ says how $h_T$ moves when input unit $i$ of
# $x_s$ moves (Exercise 2 below asks for its transpose, one row per hidden unit). It is read both ways: forwards, it
# says how much of $x_s$ is still in $h_T$ (information); backwards,
# it is exactly the gradient that training sends from the output to $x_s$ (backpropagation through time multiplies
# the same factors). `rnn_lab.rnn_input_jacobians` computes the product; finite differences (just calls of
# `rnn_forward`) check it.

# %% [markdown] lang="zh"
# ## 路径长度
#
# ### 一长串乘法
#
# 给早先的输入 $x_s$ 一个微小扰动，最后的隐藏状态 $h_T$ 会变化多少？沿着递推式 $h_t = \tanh(x_t W_x + h_{t-1} W_h + b)$（行向量）一步一步往下追。
# 记 $G_t = \operatorname{diag}(1 - h_t^2)$，即第 $t$ 步 tanh 的斜率；$T$ 是最后一步的下标（下面的序列有 48 步，编号 0 到 47，所以 $T = 47$）。
#
# 1. 在第 $s$ 步，扰动进入：$\delta h_s = \delta x_s\, W_x\, G_s$。
# 2. 之后的每一步都把它传下去，并再乘一次：$\delta h_t = \delta h_{t-1}\, W_h\, G_t$。
# 3. 所以经过 $T - s$ 次接力之后
#
# $$\frac{\partial h_T}{\partial x_s} = W_x\, G_s\, \underbrace{(W_h G_{s+1})\,(W_h G_{s+2}) \cdots (W_h G_T)}_{T - s \text{ 个因子}}$$
#
# 4. 每个因子的范数至多为 $\|W_h\| \cdot \max(1 - h^2) \le \|W_h\|$。这里的 $W_h$ 是一个正交矩阵乘以 0.9，所以 $\|W_h\| = 0.9$，
#    乘积至少像 $0.9^{T-s}$ 那样缩小：早先的 token **逐渐消失**。如果 $\|W_h\|$ 远大于 1，乘积反而可能越乘越大：**爆炸**。
#
# 用行向量写，这个雅可比矩阵是 $(D_{in}, D_h)$ 的：第 $i$ 行说明 $x_s$ 的第 $i$ 个分量变化时 $h_T$ 怎样变化。后面的练习 2 要的是它的转置，
# 每个隐藏单元一行。这个雅可比矩阵可以从两个方向解读：往前读，它说明 $h_T$ 里还剩多少 $x_s$ 的信息；往回读，它恰好就是训练时从输出传回 $x_s$ 的梯度
# （随时间反向传播乘的正是这些因子）。`rnn_lab.rnn_input_jacobians` 计算这个乘积，再用有限差分（只调用 `rnn_forward`）来验证它。

# %%
D = 16                                                        # [en] input and hidden width [zh] 输入和隐藏状态的维度
chain = rnn.init_rnn(D, D, seed=0, recurrent_scale=0.9)       # ||W_h|| = 0.9
xs = rng.normal(size=(48, D))                                 # [en] one sequence of 48 steps, (48, D): T = 47 [zh] 一条 48 步的序列，(48, D)：T = 47
J = rnn_lab.rnn_input_jacobians(chain, xs)                    # [en] (T, D, D): d h_47 / d x_s for every s [zh] (T, D, D)：每个 s 的 d h_47 / d x_s
last_state = lambda x: rnn.rnn_forward(x, chain)              # [en] (T, D) -> all hidden states (T, D) [zh] (T, D) -> 所有隐藏状态 (T, D)
print(f"||W_h|| = {np.linalg.norm(chain.w_h, 2):.3f}   ||W_x|| = {np.linalg.norm(chain.w_x, 2):.3f}")
print("[en] T - s   ||dh_T/dx_s||   bound ||W_x||·0.9^(T-s)   = finite differences[zh] T - s   ||dh_T/dx_s||   上界 ||W_x||·0.9^(T-s)    与有限差分一致")
for gap in (0, 1, 5, 10, 20, 40):
    s = 47 - gap
    fd = rnn_lab.finite_difference_jacobian(last_state, xs, s)
    print(f"{gap:5d}   {np.linalg.norm(J[s], 2):13.3g}   {np.linalg.norm(chain.w_x, 2) * 0.9 ** gap:22.3g}"
          f"   {np.allclose(J[s], fd, atol=1e-8)}")

# %% [markdown] lang="en"
# Forty hand-offs shrink the influence from 1.44 to $3.8 \times 10^{-9}$, far below even the bound: tanh's slope
# $1 - h^2 < 1$ takes its share at every step too. Refresher 4 of notebook 00 measured the same fading with finite
# differences (`rnn.influence_of_first_input`), and the exact product agrees with it.
#
# ### An early token, moved further and further back
#
# Now attention on equal terms. Take 46 random distractor tokens, one "early" token and a last token (all seeded), and
# put the early token $k$ positions before the last one, $k = 1, \dots, 47$; only its place changes. For each $k$ we
# measure how much it moves the **last output** of the RNN above and of one two-head self-attention layer
# (`ac.multi_head_attention`, seeded weights, finite differences).

# %% [markdown] lang="zh"
# 接力 40 次之后，影响从 1.44 缩小到 $3.8 \times 10^{-9}$，比上界还小得多：tanh 的斜率 $1 - h^2 < 1$ 每一步也要打一次折扣。
# 00 节的快速回顾 4 用有限差分（`rnn.influence_of_first_input`）测过同样的衰减，这里的精确乘积与它一致。
#
# ### 把一个早先的 token 越推越远
#
# 现在在同等条件下和注意力比一比。取 46 个随机的干扰 token、一个“早先的”token 和最后一个 token，都由种子生成，把早先的 token 放在最后一个 token
# 之前 $k$ 个位置，$k = 1, \dots, 47$，变的只是它的位置。对每个 $k$，测量它能把**最后的输出**推动多少：一个是上面的 RNN，
# 一个是一层有两个头的自注意力（`ac.multi_head_attention`，权重由种子生成，用有限差分测量）。

# %%
# [en] exact for the RNN, finite differences for attention [zh] RNN 用精确值，注意力用有限差分
curves = rnn_lab.influence_curves(n=48, d=D, recurrent_scale=0.9, seed=0)
print("[en]   k   RNN        attention[zh]   k   RNN        注意力")
for k in (1, 2, 5, 10, 20, 40, 47):
    print(f"{k:4d}   {curves['rnn'][k - 1]:<9.3g}  {curves['attention'][k - 1]:.3g}")
spread = np.ptp(curves["attention"]) / curves["attention"].mean()
print("[en]attention: the same at all 47 distances (relative spread < 1e-6):[zh]注意力：在全部 47 个距离上都一样（相对离散度 < 1e-6）：", spread < 1e-6)
per_step = np.exp(np.polyfit(curves["distances"], np.log(curves["rnn"]), 1)[0])
print(f"[en]RNN: each hand-off keeps about {per_step:.2f} of the influence[zh]RNN：每接力一次，影响大约只剩下 {per_step:.2f}")
ax = rnn_lab.plot_influence(curves)

# %% [markdown] lang="en"
# The RNN's line falls almost straight on the log scale: every hand-off keeps about 0.6 of what is left (the 0.9 of
# $W_h$ times the average slope of tanh), so at $k = 40$ the early token moves the last output by $3 \times 10^{-9}$: it
# is gone, and so is its gradient. The attention line is flat to the last digit: 0.109 at every distance. The last query
# meets the early key directly, and the set of keys is the same whatever the order (notebook 07), so distance does not
# enter the computation. The influence is set by **content**: how well that key matches the query.
#
# The other failure: a large recurrent weight. With $\|W_h\| = 3$ the same chain grows instead:

# %% [markdown] lang="zh"
# RNN 的曲线在对数坐标上几乎是一条下降的直线：每接力一次，影响只剩约 0.6（$W_h$ 的 0.9 乘以 tanh 的平均斜率）。所以到 $k = 40$ 时，
# 早先的 token 只能让最后的输出变化 $3 \times 10^{-9}$：它实际上已经消失了，梯度也一样。注意力的曲线完全水平，打印出的每一位都相同：每个距离上都是 0.109。
# 最后那个 Query 直接遇到早先的 Key，而无论顺序如何，Key 的集合都一样（07 节），所以距离根本没有进入计算。影响大小由**内容**决定，即那个 Key 与 Query 有多匹配。
#
# 另一种失败是循环权重太大。$\|W_h\| = 3$ 时，同一条链不再缩小，而是越乘越大：

# %%
big = rnn_lab.influence_curves(n=48, d=D, recurrent_scale=3.0, seed=0)
for k in (1, 10, 20, 40):
    print(f"[en]k = {k:2d}   RNN with ||W_h|| = 3: {big['rnn'][k - 1]:9.3g}    attention: {big['attention'][k - 1]:.3g}[zh]k = {k:2d}   ||W_h|| = 3 的 RNN：{big['rnn'][k - 1]:9.3g}    注意力：{big['attention'][k - 1]:.3g}")

# %% [markdown] lang="en"
# At $k = 40$ it is about 5000 times its value at $k = 1$: such a gradient blows training up. These are the two faces
# of "gradients easily vanish or explode" in the tutorial "An introduction to the Transformer attention mechanism: from
# intuition to formulas" (Transformer Attention 机制入门：从直觉到公式): both come from one long product, and no single
# scale keeps it near 1 for every input.
#
# ### Try it: distance and recurrent scale
#
# Move the early token with the distance slider: the RNN needs $k$ hand-offs (orange dots), attention one step (blue
# arc, the same height at every distance). Then change the recurrent scale and watch the orange line tilt down
# (forgetting) or up (exploding) while the blue one never moves.

# %% [markdown] lang="zh"
# 到 $k = 40$ 时，它大约是 $k = 1$ 时的 5000 倍，这样的梯度会让训练失控。这就是《Transformer Attention 机制入门：从直觉到公式》所说“梯度易消失/爆炸”的两面：
# 二者都来自同一个长长的乘积，任何一个固定的尺度都无法让它对所有输入都保持在 1 附近。
#
# ### 动手试试：距离与循环权重尺度
#
# 拖动距离滑块移动早先的 token：RNN 要接力 $k$ 次（橙色的点），注意力只要一步（蓝色的弧，在任何距离上都一样高）。
# 再调整循环权重尺度，看橙色曲线向下倾斜（遗忘）或向上翘起（爆炸），而蓝色曲线纹丝不动。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
widgets.path_length_widget(distance=10, recurrent_scale=0.9)

# %% [markdown] lang="en"
# **What a short path does and does not give.** One step means the early token *can* reach the last output without
# decaying; whether the model *uses* that path depends on what its weights learned. A high weight is not a guarantee
# of the right token (notebook 01): the short path improves the structural conditions for learning long-range
# dependencies, nothing more. The trained comparison below shows both halves.

# %% [markdown] lang="zh"
# **短路径能给什么，不能给什么**。一步直达意味着早先的 token *能够*不经衰减地到达最后的输出；模型是否*用上*这条路径，
# 取决于它的权重学到了什么。而权重未必落在正确的 token 上（见 01 节）：短路径改善的是学习远距离依赖的结构条件，仅此而已。
# 下面训练出来的对比会同时展示这两面。

# %% [markdown] lang="en"
# ## Parallelism
#
# ### Steps that must wait for each other
#
# Draw each layer as a dependency graph: which values each output needs before it can be computed. An RNN's
# $h_t$ needs $x_t$ and $h_{t-1}$; an attention output needs all the inputs and no other output. The number of
# rounds that even unlimited hardware needs is the longest chain in that graph (its *critical path*):

# %% [markdown] lang="zh"
# ## 并行
#
# ### 必须彼此等待的步骤
#
# 把每种层画成一张依赖图：每个输出在计算之前需要哪些值。RNN 的 $h_t$ 需要 $x_t$ 和 $h_{t-1}$；注意力的输出需要所有输入，但不需要任何其他输出。
# 即使硬件无限多，也至少要算多少轮，取决于这张图里最长的那条依赖链（它的*关键路径*）：

# %%
print("[en]     n   RNN rounds   attention rounds[zh]     n     RNN 轮数       注意力轮数")
for n in (8, 64, 256):
    print(f"{n:6d}   {rnn_lab.sequential_steps('rnn', n):10d}   {rnn_lab.sequential_steps('attention', n):16d}")

# %% [markdown] lang="en"
# Let us try it. With one processor per position, compute **all** the RNN's states at once, each from its left
# neighbour's current guess (starting from zeros), round after round. `rnn_lab.parallel_rounds` does that, one batched
# call per round, and counts the positions that are right after each round. Attention computes all 32 outputs in one
# call, and again one query at a time in a random order:

# %% [markdown] lang="zh"
# 来试一试。假设每个位置配一个处理器，**同时**计算 RNN 的所有状态：每个位置都用左邻居当前的猜测值，从全零开始，一轮接一轮地算。
# `rnn_lab.parallel_rounds` 就这样做，每轮一次批量调用，并数出每一轮之后有几个位置已经算对。注意力则一次调用算出全部 32 个输出，再按随机顺序一个 Query 一个 Query 地算一遍：

# %%
x = rng.normal(size=(32, D))                                   # [en] 32 positions, (T, D) [zh] 32 个位置，(T, D)
rounds = rnn_lab.parallel_rounds(rnn_lab.rnn_step(chain), x, np.zeros(D))
print("[en]RNN: positions right after each round:[zh]RNN：每一轮之后算对的位置数：", rounds["correct"])
print("[en]RNN: rounds needed for 32 positions:[zh]RNN：32 个位置需要的轮数：", rounds["rounds"])

full, _ = ac.scaled_dot_product_attention(x, x, x)             # [en] all 32 outputs in one call, (T, D) [zh] 一次调用得到全部 32 个输出，(T, D)
one_by_one = np.empty_like(full)
for t in rng.permutation(32):                                  # [en] any order: no position waits for another [zh] 任意顺序：没有哪个位置要等别的位置
    one_by_one[t] = ac.scaled_dot_product_attention(x[t:t + 1], x, x)[0][0]
print("[en]attention: one call = 32 separate calls in a random order:[zh]注意力：一次调用 = 按随机顺序分开调用 32 次：", np.allclose(full, one_by_one))

# %% [markdown] lang="en"
# Each round gets exactly one more position right: a position can be right only once its left neighbour is, so 32
# positions take 32 rounds, whatever the number of processors. As the tutorial "Attention mechanism" (注意力机制) puts
# it, step $t + 1$ must wait for the state of step $t$. Attention's outputs do not depend on each other: one parallel
# round, whose $n \times n$ scores are one matrix product, the kind of work a GPU's thousands of lanes do at once.
#
# A curiosity that confirms the rule: a strongly forgetting chain can look "done" early.

# %% [markdown] lang="zh"
# 每一轮恰好多算对一个位置：左邻居算对之后，一个位置才可能算对，所以 32 个位置需要 32 轮，处理器再多也没用。
# 用《注意力机制》一文的话说，第 $t + 1$ 步必须等第 $t$ 步的状态产生。注意力的各个输出互不依赖，只需一轮并行计算，
# 这一轮里 $n \times n$ 的分数就是一次矩阵乘法，正是 GPU 成千上万条通道最擅长同时完成的工作。
#
# 有一个小插曲反而印证了这条规律：遗忘得很厉害的链，可能会提前“算完”。

# %%
fast_forgetter = rnn.init_rnn(D, D, seed=0, recurrent_scale=0.5)
quick = rnn_lab.parallel_rounds(rnn_lab.rnn_step(fast_forgetter), x, np.zeros(D))
print("[en]||W_h|| = 0.5: rounds needed for 32 positions:[zh]||W_h|| = 0.5：32 个位置需要的轮数：", quick["rounds"])

# %% [markdown] lang="en"
# 21 rounds instead of 32, because with $\|W_h\| = 0.5$ (and tanh's slopes on top) a wrong guess 20 positions back has
# shrunk below the $10^{-9}$ tolerance `parallel_rounds` uses: the chain has forgotten it. An RNN skips rounds only by forgetting, which a long-range task cannot afford.
#
# ### Wall-clock time
#
# Now time both on this machine for growing $n$ ($d = 64$, one sequence, one CPU core each). Your numbers will differ;
# read the shapes of the lines.

# %% [markdown] lang="zh"
# 只用了 21 轮而不是 32 轮，因为 $\|W_h\| = 0.5$ 时，再加上 tanh 的斜率，20 个位置之前的错误猜测已经缩小到 `parallel_rounds` 所用的容差 $10^{-9}$ 以下，链条把它忘掉了。
# RNN 只有靠遗忘才能跳过若干轮，而这恰恰是远距离任务承受不起的。
#
# ### 实际耗时
#
# 现在在这台机器上给两者计时，$n$ 逐渐增大，$d = 64$，一条序列，各用一个 CPU 核心。你测出的数字会不同，请看曲线的形状。

# %%
# MEASUREMENT
# (wall-clock times differ from machine to machine)
timings = rnn_lab.time_layers([16, 64, 256, 1024], d=64, repeats=7)
for n, t_rnn, t_att in zip(timings["n"], timings["rnn"], timings["attention"]):
    print(f"[en]n = {n:5d}   RNN {1e3 * t_rnn:7.2f} ms ({1e6 * t_rnn / n:.1f} µs per step)   attention {1e3 * t_att:7.2f} ms[zh]n = {n:5d}   RNN {1e3 * t_rnn:7.2f} ms（每步 {1e6 * t_rnn / n:.1f} µs）   注意力 {1e3 * t_att:7.2f} ms")
ax = rnn_lab.plot_timings(timings)

# %% [markdown] lang="en"
# The RNN's line is straight with slope 1 on the log-log plot: time grows like $n$, a few microseconds per step, because
# every step waits for the one before and is far too small to keep the processor busy. Attention starts almost flat (a
# few big matrix products) and then bends up, because it does $n^2 d$ work; on one CPU core it can become the **slower**
# one. On a GPU the flat part is expected to last much longer, because all $n^2$ scores are computed side by side, while
# the RNN's $n$ steps stay one after another on any hardware. That, not fewer operations, is why Transformers train
# faster. (The GPU part is cited, not measured here: Vaswani et al. 2017 count the sequential operations per layer in
# Table 1, $O(1)$ for self-attention and $O(n)$ for a recurrent layer, and compare training costs in Table 2.)

# %% [markdown] lang="zh"
# 在双对数坐标下，RNN 的曲线是斜率为 1 的直线：耗时随 $n$ 线性增长，每步几微秒，因为每一步都要等前一步，而且计算量太小，喂不饱处理器。
# 注意力的曲线起初几乎是平的，只是几次大的矩阵乘法，之后向上弯，因为它要做 $n^2 d$ 的计算；只用一个 CPU 核心时，它可能反而**更慢**。
# 在 GPU 上，平坦的那一段预计会长得多，因为全部 $n^2$ 个分数可以并排同时算，而 RNN 的 $n$ 步在任何硬件上都只能一步接一步。
# Transformer 训练得更快，靠的正是这一点，而不是运算次数更少。GPU 这部分是引用的，这里没有实测：Vaswani 等 2017 年的论文在表 1 里比较了每层的串行操作数，
# 自注意力是 $O(1)$，循环层是 $O(n)$，并在表 2 里比较了训练开销。

# %% [markdown] lang="en"
# ## Four words of training: loss, gradient step, Adam, warm-up
#
# The next section trains small models, and notebooks 12 and 13 train larger ones. Four words carry all of it, each
# computed here on one example: a model that must name one of 8 symbols and outputs 8 scores (**logits**), which
# softmax turns into probabilities.
#
# - **Loss** (cross-entropy): $-\ln p_{\text{answer}}$, the surprise at the right answer. With the natural logarithm
#   its unit is the **nat**; a uniform guess over 8 symbols costs $\ln 8 = 2.079$ nats, a sure right answer 0.
# - **Gradient step**: move each parameter a little against the gradient of the loss, $\theta \leftarrow \theta - \eta\,
#   \partial L / \partial \theta$ ($\eta$ is the learning rate). For logits the gradient is simply $p - \text{one-hot}$.
# - **Adam**: the same step, but each parameter's gradient is divided by a running estimate of its own size, so every
#   parameter moves by about $\eta$, whether its gradient is large or tiny (exactly so on the first step, which is
#   $\eta \cdot \operatorname{sign}(g)$ by construction; later steps only roughly).
# - **Warm-up**: the learning rate starts small and grows over the first steps, while Adam's estimates still rest on a
#   few gradients.

# %% [markdown] lang="zh"
# ## 训练的四个基本概念：损失、梯度下降、Adam、预热
#
# 下一小节要训练几个小模型，12、13 节还要训练更大的。训练用到的四个概念，下面都在同一个例子上算出来：模型要说出 8 个符号中的一个，
# 它输出 8 个分数（**logit**），softmax 把它们变成概率。
#
# - **损失**（交叉熵）：$-\ln p_{\text{答案}}$，即模型看到正确答案时的“意外程度”。用自然对数时单位是**纳特**（nat）；在 8 个符号里均匀乱猜，
#   损失是 $\ln 8 = 2.079$ 纳特，有十足把握地答对（$p_{\text{答案}} = 1$）则是 0。
# - **梯度下降**：让每个参数沿损失梯度的反方向挪一小步，$\theta \leftarrow \theta - \eta\, \partial L / \partial \theta$，$\eta$ 叫学习率。
#   对 logit 来说，梯度就是 $p - \text{one-hot}$。
# - **Adam**：同样是一步，但每个参数的梯度先除以它自己大小的滑动估计，于是无论梯度大小，每个参数都大约挪动 $\eta$（第一步按构造恰好是 $\eta \cdot \operatorname{sign}(g)$，之后只是大致如此）。
# - **预热**：前若干步的学习率从小到大逐渐增加，因为这时 Adam 的估计只建立在寥寥几个梯度之上。

# %%
answer = 3                                                         # [en] the right symbol, of 8 [zh] 正确的符号，共 8 个
logits = np.zeros(8)                                               # [en] an untrained model: no preference [zh] 未训练的模型：没有偏好
loss = lambda z: -np.log(ac.softmax(z)[answer])                    # [en] cross-entropy in nats (natural log) [zh] 交叉熵，单位纳特（自然对数）
print(f"[en]uniform guess: loss {loss(logits):.3f} nats = ln 8 = {np.log(8):.3f}[zh]均匀乱猜：损失 {loss(logits):.3f} 纳特 = ln 8 = {np.log(8):.3f}")

grad = ac.softmax(logits) - np.eye(8)[answer]                      # [en] dL/dz = p - one-hot, (8,) [zh] dL/dz = p - one-hot，(8,)
eps = 1e-6
numeric = np.array([(loss(logits + eps * e) - loss(logits)) / eps for e in np.eye(8)])   # [en] finite differences [zh] 有限差分
print("[en]gradient p - one-hot:[zh]梯度 p - one-hot：", grad, " " + "[en]= finite differences:[zh]与有限差分一致：", np.allclose(grad, numeric, atol=1e-5))
z = logits.copy()
for step in range(1, 4):
    z = z - 1.0 * (ac.softmax(z) - np.eye(8)[answer])             # [en] one gradient step, learning rate 1.0 [zh] 一步梯度下降，学习率 1.0
    print(f"[en]after step {step}: loss {loss(z):.3f} nats, p(answer) = {ac.softmax(z)[answer]:.3f}[zh]第 {step} 步之后：损失 {loss(z):.3f} 纳特，p(答案) = {ac.softmax(z)[answer]:.3f}")

g = np.array([1000.0, 1.0, 0.001])                                 # [en] three parameters' gradients, far apart [zh] 三个参数的梯度，大小悬殊
lr, beta1, beta2 = 0.01, 0.9, 0.999
m, v = (1 - beta1) * g, (1 - beta2) * g ** 2                       # [en] Adam's running averages after one step [zh] 一步之后 Adam 的两个滑动平均
adam_step = lr * (m / (1 - beta1)) / (np.sqrt(v / (1 - beta2)) + 1e-8)   # [en] bias-corrected [zh] 经过偏差修正
print("[en]plain step lr·g:[zh]普通一步 lr·g：", ", ".join(f"{s:g}" for s in lr * g),
      "  " + "[en]Adam's first step:[zh]Adam 的第一步：", ", ".join(f"{s:.4g}" for s in adam_step))

warmup, steps = 5, 10
schedule = [lr * min(1.0, (t + 1) / warmup) for t in range(steps)]   # [en] linear warm-up, then flat [zh] 线性预热，之后保持不变
print("[en]learning rate with a 5-step warm-up:[zh]预热 5 步的学习率：", np.round(schedule, 3))

# %% [markdown] lang="en"
# Three gradient steps raise the right symbol's probability from $1/8$ to 0.62 and lower the loss from 2.079 to 0.48
# nats; training repeats such steps on batch after batch of examples. A plain step
# moves the three parameters by 10, 0.01 and 0.00001; Adam moves each by 0.01. That is why the runs below use Adam, and
# why 12 and 13 add a warm-up: its learning rate climbs 0.002, 0.004, ... and is full only at step 5. A loss "below 0.01"
# below means the right answer gets $e^{-0.01} \approx 0.99$ of the probability.
#
# ## A trained comparison: recall the first token
#
# Random weights show what the structure allows. Does it matter once the models are trained? The task: a sequence starts
# with one of 8 symbols, then come $k$ distractor tokens, then a question token; the model must name the first symbol
# (chance is $1/8$). Symbols and distractors are different tokens, so the task is only about **distance**.

# %% [markdown] lang="zh"
# 三步梯度下降就把正确符号的概率从 $1/8$ 提到 0.62，损失从 2.079 纳特降到 0.48；训练就是在一批又一批样本上重复这样的步子。
# 普通的一步让三个参数分别挪动 10、0.01 和 0.00001，
# Adam 则让每个参数都挪动 0.01。所以下面的训练用 Adam；12、13 节还加了预热，学习率按 0.002、0.004……爬升，到第 5 步才到顶。
# 下文说“损失低于 0.01”，意思是正确答案拿到了约 $e^{-0.01} \approx 0.99$ 的概率。
#
# ## 训练出来的对比：记住第一个 token
#
# 随机权重只说明结构允许什么。训练之后还是这样吗？任务是：序列以 8 个符号之一开头，接着是 $k$ 个干扰 token，最后是一个提问 token，
# 模型要说出开头的符号，随机猜的正确率是 $1/8$。符号和干扰项是不同的 token，所以这个任务考的只是**距离**。

# %%
if backends.torch_available():
    import torch
    torch.set_num_threads(1)                                    # [en] one thread: the same numbers on every run [zh] 单线程：每次运行的数字都相同
    tokens, target = rnn_lab.recall_batch(4, 3, torch.Generator().manual_seed(0))
    print("[en]three sequences at k = 4 (symbols 0-7, distractors 8-15, question 16):[zh]k = 4 时的三个序列（符号 0–7，干扰项 8–15，提问 16）：")
    print(tokens.numpy(), " " + "[en]answers:[zh]答案：", target.numpy())
else:
    print("[en]torch is not installed: the trained comparison is skipped (pip install torch==2.13.0)[zh]没有安装 torch：跳过训练对比（pip install torch==2.13.0）")

# %% [markdown] lang="en"
# Three small models of width 32 see the same batches: a plain RNN (`torch.nn.RNN`, tanh), a gated RNN (`torch.nn.GRU`)
# and one attention layer whose query comes from the question token and whose keys and values come from every token
# (`ac.scaled_dot_product_attention` on torch tensors). For each $k \in \{2, 4, 8, 16, 32\}$ a fresh model trains for at
# most 300 batches of 32 sequences (Adam, stopping once the loss stays below 0.01), then answers 512 new sequences. The
# attention layer needs no position encoding: it finds the symbol by content. Training takes about twenty seconds, and the
# exact accuracies can differ slightly on another computer.

# %% [markdown] lang="zh"
# 三个维度为 32 的小模型看到同样的批次：普通 RNN（`torch.nn.RNN`，tanh）、门控 RNN（`torch.nn.GRU`）和一层注意力，
# 注意力的 Query 来自提问 token，Key 和 Value 来自所有 token（在 torch 张量上调用 `ac.scaled_dot_product_attention`）。
# 对每个 $k \in \{2, 4, 8, 16, 32\}$ 都训练一个新模型，最多 300 个批次、每批 32 条序列，用 Adam，损失稳定低于 0.01 就提前停止，然后回答 512 条新序列。
# 注意力层不需要位置编码，凭内容就能找到那个符号。训练要二十秒左右；换一台计算机，准确率的具体数值可能略有不同。

# %%
# MEASUREMENT
# (training: exact numbers and times vary slightly between machines)
KS = (2, 4, 8, 16, 32)
recall = rnn_lab.recall_comparison(KS, seed=0) if backends.torch_available() else None
if recall is not None:
    print("k            " + "".join(f"{k:>7d}" for k in KS))
    kind_names = {"rnn": "RNN", "gru": "GRU", "attention": "[en]attention[zh]注意力"}
    for kind in rnn_lab.MODEL_KINDS:
        print(pad(kind_names[kind], 10) + " " + pad("[en]acc[zh]准确率", 6) + "".join(f"{a:7.2f}" for a in recall["accuracy"][kind]))
        print(f"{'':<10} " + pad("[en]steps[zh]步数", 6) + "".join(f"{s:7d}" for s in recall["steps"][kind])
              + f"   ({recall['seconds'][kind]:.1f} s)")
    print("[en]largest k solved (accuracy >= 0.9 at every k up to it): [zh]解决了的最大 k（直到它为止每个 k 的准确率都 >= 0.9）："
          + "[en], [zh]，".join(f"{kind_names[kind]} {rnn_lab.largest_solved(KS, recall['accuracy'][kind])}"
                              for kind in rnn_lab.MODEL_KINDS))

# %%
if recall is not None:
    ax = rnn_lab.plot_recall(recall)

# %%
if recall is not None:
    acc = recall["accuracy"]
    print("[en]all three recall the first token at k = 2 (accuracy >= 0.9):[zh]k = 2 时三者都记住了第一个 token（准确率 >= 0.9）：",
          all(acc[kind][0] >= 0.9 for kind in rnn_lab.MODEL_KINDS))
    print("[en]the gated RNN still does at k = 8:[zh]k = 8 时门控 RNN 仍然做得到：", acc["gru"][KS.index(8)] >= 0.9)
    print("[en]at k = 32 both recurrent models fail (accuracy < 0.5; chance is 1/8), attention does not (> 0.5):[zh]k = 32 时两个循环模型都失败了（准确率 < 0.5；均匀乱猜的准确率是 1/8），注意力没有（> 0.5）：",
          max(acc["rnn"][-1], acc["gru"][-1]) < 0.5 < acc["attention"][-1])

# %% [markdown] lang="en"
# All three solve the task with 2 distractors between the symbol and the question. The plain RNN loses it first: in this run it is solved up
# to $k = 4$, down to 0.29 at $k = 8$ and at chance from $k = 16$ on, the fading chain again, now in a trained model. The
# GRU holds on longer (to $k = 16$): its update gate can learn to copy the state almost unchanged, keeping the product
# near 1. But at $k = 32$ it too fails within this budget (0.26, where guessing gives 0.125), while attention answers
# right at every distance within a few dozen batches: its path to the symbol is one step at $k = 2$ and $k = 32$ alike.
# (Where each recurrent model gives up moves a little with the seed and budget; the order does not.)

# %% [markdown] lang="zh"
# 符号和问题之间只隔 2 个干扰 token 时，三个模型都答对了。普通 RNN 最先失守：这次运行中它只解决到 $k = 4$，$k = 8$ 时只剩 0.29，从 $k = 16$ 起接近随机猜，
# 这又是那条衰减的链条，只不过出现在训练好的模型里。GRU 坚持得久一些，一直到 $k = 16$：它的更新门可以学会几乎原封不动地复制状态，让乘积保持在 1 附近。
# 但到 $k = 32$，在这份训练预算内它也失败了，只有 0.26，随机猜是 0.125；而注意力在每个距离上都答对了，几十个批次就学会：
# 无论 $k = 2$ 还是 $k = 32$，它到那个符号的路径都只有一步。每个循环模型在哪个距离上放弃，会随种子和训练预算略有变化，但先后顺序不变。

# %% [markdown] lang="en"
# ### Gated RNNs: better memory, the same path
#
# The tutorial "Attention mechanism" is precise: gated recurrent networks ease **retention** but keep two structural
# constraints, the **long path** and the **sequential computation**. Check both on the trained GRU for $k = 8$, which
# solved its task: run its own cell (`torch.nn.GRUCell` with the trained weights) through `parallel_rounds`, and count
# the hops from the symbol to the question.

# %% [markdown] lang="zh"
# ### 门控 RNN：记性更好，路径照旧
#
# 《注意力机制》一文说得很准确：门控循环网络缓解了信息**保留**问题，但两个结构约束依旧，即**长传递路径**和**顺序计算**。
# 在 $k = 8$ 时训练好、解决了任务的 GRU 上检验这两点：用训练好的权重构造它的单元（`torch.nn.GRUCell`），交给 `parallel_rounds` 去跑，再数一数从符号到提问要几跳。

# %%
if recall is not None:
    k = 8
    gru = recall["models"]["gru"][KS.index(k)]
    step, embed = rnn_lab.recurrent_step(gru)
    tokens, _ = rnn_lab.recall_batch(k, 1, torch.Generator().manual_seed(1))
    gru_rounds = rnn_lab.parallel_rounds(step, embed(tokens[0]), np.zeros(32), tol=1e-5)
    print(f"[en]trained GRU, k = {k}: {len(tokens[0])} positions need {gru_rounds['rounds']} rounds (= k + 2)[zh]训练后的 GRU，k = {k}：{len(tokens[0])} 个位置需要 {gru_rounds['rounds']} 轮（= k + 2）")
    print(f"[en]hand-offs from the symbol to the question: rounds − 1 = {gru_rounds['rounds'] - 1}; in attention: 1 (one query-key match)[zh]从符号到提问的接力次数：轮数 − 1 = {gru_rounds['rounds'] - 1}；注意力：1（一次 Query–Key 匹配）")

# %% [markdown] lang="en"
# The trained GRU remembers, and it still waits: 10 positions, 10 rounds, 9 hand-offs; at $k = 1000$ it would be
# 1002 rounds. The gates make each hand-off less lossy; they do not shorten the chain, and they do not let step $t$
# start before step $t - 1$ is done. (LSTMs behave the same way: by the same structure, their hops also equal the distance.)

# %% [markdown] lang="zh"
# 训练好的 GRU 记住了，但它照样要等：10 个位置，10 轮，9 次接力；如果 $k = 1000$，就是 1002 轮。门控让每次接力的损耗更小，却没有让链条变短，
# 也没有让第 $t$ 步在第 $t - 1$ 步完成之前就开始。（LSTM 也是一样：按结构，它的跳数同样等于距离。）

# %% [markdown] lang="en"
# ## The complexity table
#
# The tutorial "An introduction to the Transformer attention mechanism" sums the comparison up in one table; every row
# has now been measured or counted:
#
# | | RNN | Transformer attention | shown in this notebook |
# | --- | --- | --- | --- |
# | information path | serial along the time steps, length $O(n)$ | any two positions in one step, $O(1)$ | influence vs distance; path lengths |
# | long-range dependencies | gradients vanish or explode | passed directly through $\alpha_{ij}$ | $\|W_h\| = 0.9$: $3 \times 10^{-9}$ at $k = 40$; $\|W_h\| = 3$: $10^4$; attention flat |
# | parallelism | must compute step by step, $O(n)$ sequential steps | the whole sequence in parallel, $O(1)$ | 32 positions: 32 rounds vs 1 |
# | compute per layer | $O(n \cdot d^2)$ ($d^2$ per step, $n$ steps) | $O(n^2 \cdot d)$ (the $n^2$ pairs) | counted below: crossover at $n = d$ |
# | memory | the hidden state | the $n \times n$ attention matrix | counted below |
# | position information | ordered by construction | needs a position encoding | below, and notebook 07 |
#
# Per layer, the RNN applies the $d \times d$ matrix $W_h$ at each of $n$ steps ($n d^2$ multiply-adds); attention
# compares every pair of positions with a $d$-wide dot product ($n^2 d$). They are equal at $n = d$.

# %% [markdown] lang="zh"
# ## 复杂度对比表
#
# 《Transformer Attention 机制入门：从直觉到公式》用一张表总结了这场对比，现在表里的每一行都已经测过或数过了：
#
# | | RNN | Transformer 注意力 | 本节在哪里展示 |
# | --- | --- | --- | --- |
# | 信息传递路径 | 沿时间步串行，长度 $O(n)$ | 任意两位置一步直达，$O(1)$ | 影响随距离的变化；路径长度 |
# | 长距离依赖 | 梯度易消失/爆炸 | 直接通过 $\alpha_{ij}$ 传递 | $\|W_h\| = 0.9$：$k = 40$ 时为 $3 \times 10^{-9}$；$\|W_h\| = 3$：$10^4$；注意力保持不变 |
# | 并行性 | 必须按时间步顺序算，$O(n)$ 个串行步骤 | 整序列可并行，$O(1)$ | 32 个位置：32 轮对 1 轮 |
# | 每层计算量 | $O(n \cdot d^2)$，每步 $d^2$，共 $n$ 步 | $O(n^2 \cdot d)$，$n^2$ 个位置对 | 下面来数：分界点在 $n = d$ |
# | 内存 | 隐藏状态 | $n \times n$ 注意力矩阵 | 下面来数 |
# | 位置信息 | 天然有序 | 需要额外的位置编码 | 见下文和 07 节 |
#
# 每一层里，RNN 在 $n$ 步中的每一步都要乘一次 $d \times d$ 的矩阵 $W_h$，共 $n d^2$ 次乘加；注意力要用 $d$ 维点积比较每一对位置，共 $n^2 d$ 次。两者在 $n = d$ 时相等。

# %%
print("[en]   d       n     RNN n·d²    attention n²·d   attention / RNN[zh]   d       n     RNN n·d²       注意力 n²·d   注意力 / RNN")
for d in (64, 512):
    for n in (16, d, 4096, 32768):
        rnn_macs = rnn_lab.layer_macs("rnn", n, d)["recurrence"]
        att_macs = rnn_lab.layer_macs("attention", n, d)["scores"]
        print(f"{d:4d}  {n:6d}   {rnn_macs:11.3g}   {att_macs:14.3g}   {att_macs / rnn_macs:10.3g}")
ax = rnn_lab.plot_macs(ds=(64, 512))

# %% [markdown] lang="en"
# Below $n = d$ attention's pairwise term is the smaller one; above it attention costs $n / d$ times more (64 times at
# $d = 512$, $n = 32768$). Counting **every** matrix product gives the same crossover against a gated RNN: a GRU layer
# does $6 n d^2$ (three gates, an input and a recurrent product each), one attention layer $4 n d^2$ (the projections)
# plus $2 n^2 d$ (scores and the weighted sum):

# %% [markdown] lang="zh"
# 在 $n = d$ 以下，注意力的两两比较项更小；超过它，注意力的开销是 RNN 的 $n / d$ 倍，$d = 512$、$n = 32768$ 时是 64 倍。
# 把**每一次**矩阵乘法都算上，和门控 RNN 相比分界点依然一样：一层 GRU 要做 $6 n d^2$ 次乘加，三个门各有一个输入乘积和一个循环乘积；
# 一层注意力要做 $4 n d^2$，即四个投影，再加 $2 n^2 d$，即打分和对 Value 加权求和：

# %%
kind_labels = {"rnn": "RNN", "gru": "GRU", "lstm": "LSTM", "attention": "[en]attention[zh]注意力"}
for d in (64, 512):
    n = d
    counts = {kind: rnn_lab.layer_macs(kind, n, d)["total"] for kind in rnn_lab.KINDS}
    print(f"d = {d}, n = d: " + ", ".join(f"{kind_labels[kind]} {macs:.3g}" for kind, macs in counts.items()))
    for kind in ("gru", "lstm"):
        print("   " + f"[en]attention's multiply-adds reach the {kind_labels[kind]}'s at n = {rnn_lab.crossover_length(d, kind)}[zh]注意力的乘加次数在 n = {rnn_lab.crossover_length(d, kind)} 时追上 {kind_labels[kind]}")
    at_one = {kind: rnn_lab.layer_macs(kind, 1, d)["total"] for kind in ("attention", "rnn")}
    if rnn_lab.crossover_length(d, "rnn") == 1:                         # [en] costlier from the very first token [zh] 从第一个 token 起就更贵
        print("   " + f"[en]attention costs more than the plain RNN at every n (n = 1: {at_one['attention']:.3g} against {at_one['rnn']:.3g})[zh]在任何 n 上，注意力都比普通 RNN 贵（n = 1 时：{at_one['attention']:.3g} 对 {at_one['rnn']:.3g}）")

# %% [markdown] lang="en"
# Against a GRU the crossover is exactly $n = d$; against an LSTM (8 products per step) $n = 2d$; a plain tanh RNN is
# cheaper than attention at every length. Attention does **not** win on operations. Memory tells the same story, and the
# last row of the table is the price of the missing order:

# %% [markdown] lang="zh"
# 和 GRU 相比，分界点恰好是 $n = d$；和每步 8 次乘积的 LSTM 相比是 $n = 2d$；普通的 tanh RNN 在任何长度上都比注意力便宜。注意力**不是**靠运算次数取胜的。
# 内存也是如此；而表格的最后一行，是注意力看不见顺序的代价：

# %%
n, d = 4096, 512
print(f"[en]n = {n}, d = {d}:  RNN hidden state {d:,} numbers;  attention weights {n * n:,} numbers per head[zh]n = {n}，d = {d}：RNN 隐藏状态 {d:,} 个数；注意力权重每个头 {n * n:,} 个数")
print(f"[en](training an RNN keeps every state for backpropagation: n·d = {n * d:,})[zh]（训练 RNN 时要为反向传播保存每一步的状态：n·d = {n * d:,}）")
attention_layer = ac.init_multihead(d_model=D, n_heads=2, seed=0)
perm = rng.permutation(32)
gap_attention = position_lab.equivariance_gap(lambda z: ac.multi_head_attention(z, z, z, attention_layer)[0], x, perm)
gap_rnn = position_lab.equivariance_gap(last_state, x, perm)
print(f"[en]shuffle the 32 tokens: attention output only shuffled (gap < 1e-12): {gap_attention < 1e-12};  RNN states changed (gap {gap_rnn:.2f})[zh]打乱 32 个 token：注意力的输出只是被同样打乱（差 < 1e-12）：{gap_attention < 1e-12}；RNN 的状态变了（差 {gap_rnn:.2f}）")

# %% [markdown] lang="en"
# An RNN carries one state of $d$ numbers forward; attention stores an $n \times n$ weight matrix per head (what that
# means in bytes and for the context window is measured in notebook 09). And an RNN knows the order for free, because
# the chain *is* the order, while attention must have it injected (07). The core trade, in the tutorial's words: the RNN
# buys linear cost with a sequential inductive bias; the Transformer buys direct long-range interaction and parallelism
# with all-pairs attention.

# %% [markdown] lang="zh"
# RNN 只需把一份 $d$ 个数的状态往后传；注意力则要为每个头存一个 $n \times n$ 的权重矩阵，它换算成字节、对上下文窗口意味着什么，09 节会实测。
# 而且 RNN 天然知道顺序，因为链条本身就是顺序，注意力则必须另外注入位置信息（07 节）。用原教程的话说，这就是核心取舍：
# RNN 用“顺序归纳偏置”换来线性的计算量；Transformer 用“全连接注意力”换来远距离的直接交互和并行性。

# %% [markdown] lang="en"
# ## Misconceptions
#
# - **"Attention is cheaper than an RNN."** No: per layer it costs $n^2 d$ against $n d^2$, more as soon as $n > d$,
#   and its weight matrix grows like $n^2$. It wins on path length and on parallel steps, not on operations.
# - **"A GRU or an LSTM solves the long-range problem."** It eases it: in this run our GRU kept the symbol over 16
#   distractors where the plain RNN lost it after a few. The chain is as long as before and its steps still wait for each other.
# - **"One step means the right answer."** The short path is a possibility, not a result. The same attention
#   architecture, untrained, has the same one-step path and answers at chance:

# %% [markdown] lang="zh"
# ## 常见误区
#
# - “**注意力比 RNN 更省。**”不对：每层的开销是 $n^2 d$ 对 $n d^2$，只要 $n > d$ 注意力就更贵，而且它的权重矩阵按 $n^2$ 增长。
#   它赢在路径长度和并行步数，而不是运算次数。
# - “**GRU 或 LSTM 解决了远距离依赖问题。**”它只是缓解了：这次运行中，GRU 能跨过 16 个干扰 token 记住符号，而普通 RNN 几个之后就丢了。
#   但链条和以前一样长，它的每一步也仍然要彼此等待。
# - “**一步直达就等于答对。**”短路径只是一种可能，不是结果。同样结构的注意力在未经训练时，路径同样只有一步，却答不对：

# %%
if recall is not None:
    untrained = rnn_lab.make_recall_model("attention", seed=0)
    for k in (2, 32):
        print(f"[en]k = {k:2d}   untrained attention below 0.5: {rnn_lab.recall_accuracy(untrained, k) < 0.5}   trained attention above 0.5: {recall['accuracy']['attention'][KS.index(k)] > 0.5}[zh]k = {k:2d}   未训练的注意力低于 0.5：{rnn_lab.recall_accuracy(untrained, k) < 0.5}   训练后的注意力高于 0.5：{recall['accuracy']['attention'][KS.index(k)] > 0.5}")


# %% [markdown] lang="en"
# ## Exercise 1 · ★☆☆ · about 10 min: the RNN, one step after another
#
# Write the recurrent network yourself: `my_rnn_forward(xs, params)` takes inputs $(T, D_{in})$ and the weights
# `params.w_x` $(D_{in}, D_h)$, `params.w_h` $(D_h, D_h)$, `params.b` $(D_h,)$, and returns every hidden state
# $(T, D_h)$, with $h_t = \tanh(x_t W_x + h_{t-1} W_h + b)$ and $h_{-1} = 0$. Notice that you cannot avoid the loop.

# %% [markdown] lang="zh"
# ## 练习 1 · ★☆☆ · 约 10 分钟：RNN，一步接一步
#
# 亲手写一个循环神经网络：`my_rnn_forward(xs, params)` 接收输入 $(T, D_{in})$ 和权重 `params.w_x` $(D_{in}, D_h)$、
# `params.w_h` $(D_h, D_h)$、`params.b` $(D_h,)$，返回每一步的隐藏状态 $(T, D_h)$，其中 $h_t = \tanh(x_t W_x + h_{t-1} W_h + b)$，
# $h_{-1} = 0$。注意：这个循环是省不掉的。

# %%
def my_rnn_forward(xs, params):
    """[en] xs (T, D_in) -> hidden states (T, D_h): h_t = tanh(x_t W_x + h_(t-1) W_h + b), h_(-1) = 0
    [zh] xs (T, D_in) -> 隐藏状态 (T, D_h)：h_t = tanh(x_t W_x + h_(t-1) W_h + b)，h_(-1) = 0"""
    raise NotImplementedError("[en]carry h through a loop over t[zh]在对 t 的循环里把 h 一步步传下去")

checks.check_rnn_forward(my_rnn_forward)


# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def my_rnn_forward(xs, params):
#     h = np.zeros(params.w_h.shape[0])                      # h_(-1) = 0
#     states = []
#     for x_t in xs:                                         # step t waits for step t - 1
#         h = np.tanh(x_t @ params.w_x + h @ params.w_h + params.b)
#         states.append(h)
#     return np.stack(states)                                # (T, D_h)
# ```
# </details>

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def my_rnn_forward(xs, params):
#     h = np.zeros(params.w_h.shape[0])                      # h_(-1) = 0
#     states = []
#     for x_t in xs:                                         # 第 t 步要等第 t - 1 步
#         h = np.tanh(x_t @ params.w_x + h @ params.w_h + params.b)
#         states.append(h)
#     return np.stack(states)                                # (T, D_h)
# ```
# </details>

# %% [markdown] lang="en"
# ## Exercise 2 · ★★☆ · about 20 min: the gradient along the chain
#
# How much does the last state move when the first input moves? Write `my_rnn_gradient(xs, params)` returning the
# Jacobian $\partial h_{T-1} / \partial x_0$ in the layout with one row per hidden unit, shape $(D_h, D_{in})$: the
# **transpose** of the row-vector product written out above, so the factors come in the other order. By the chain rule:
# $\partial h_0 / \partial x_0 = \text{diag}(1 - h_0^2)\, W_x^\top$ and each later step multiplies on the left by
# $J_t = \text{diag}(1 - h_t^2)\, W_h^\top$. Then look at its norm for a long chain: that product of $T - 1$ factors is
# the fading you measured with finite differences above. (Here $T$ counts the tokens, so the last state is $h_{T-1}$.)

# %% [markdown] lang="zh"
# ## 练习 2 · ★★☆ · 约 20 分钟：沿着链条的梯度
#
# 第一个输入动一动，最后一个状态会动多少？写一个 `my_rnn_gradient(xs, params)`，用链式法则返回雅可比矩阵
# $\partial h_{T-1} / \partial x_0$。这里每个隐藏单元占一行，形状为 $(D_h, D_{in})$，是上文按行向量写出的那个乘积的**转置**，
# 所以因子的顺序也反了过来：$\partial h_0 / \partial x_0 = \text{diag}(1 - h_0^2)\, W_x^\top$，
# 之后每一步在左边再乘上 $J_t = \text{diag}(1 - h_t^2)\, W_h^\top$。然后看看链条很长时它的范数：这 $T - 1$ 个因子的乘积，
# 就是上面用有限差分测到的那种衰减。（这里的 $T$ 是 token 的个数，所以最后一个状态是 $h_{T-1}$。）

# %%
def my_rnn_gradient(xs, params):
    """[en] xs (T, D_in) -> d h_(T-1) / d x_0, shape (D_h, D_in), by the chain rule
    [zh] xs (T, D_in) -> d h_(T-1) / d x_0，形状 (D_h, D_in)，用链式法则求"""
    raise NotImplementedError("[en]start from d h_0 / d x_0, then multiply by J_t for t = 1 .. T-1[zh]从 d h_0 / d x_0 出发，再依次乘以 t = 1 .. T-1 的 J_t")

checks.check_rnn_gradient(my_rnn_gradient)

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def my_rnn_gradient(xs, params):
#     hs = rnn.rnn_forward(xs, params)                       # (T, D_h): the states the slopes need
#     jac = np.diag(1 - hs[0] ** 2) @ params.w_x.T           # d h_0 / d x_0   (D_h, D_in)
#     for h_t in hs[1:]:
#         jac = np.diag(1 - h_t ** 2) @ params.w_h.T @ jac   # J_t on the left: the last step first
#     return jac
# ```
# </details>

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def my_rnn_gradient(xs, params):
#     hs = rnn.rnn_forward(xs, params)                       # (T, D_h)：求斜率要用到的隐藏状态
#     jac = np.diag(1 - hs[0] ** 2) @ params.w_x.T           # d h_0 / d x_0   (D_h, D_in)
#     for h_t in hs[1:]:
#         jac = np.diag(1 - h_t ** 2) @ params.w_h.T @ jac   # J_t 乘在左边：最后一步在最前面
#     return jac
# ```
# </details>

# %% [markdown] lang="en"
# ## Self-test (Q8)

# %% [markdown] lang="zh"
# ## 自测题（Q8）

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
quiz.quiz_widget("q8")

# %% [markdown] lang="en"
# ## Summary
#
# - **Path length:** an RNN hands token $s$ on $T - s$ times, a product of $T - s$ factors: with $\|W_h\| = 0.9$ the early
#   token moves the last output by $3 \times 10^{-9}$ at distance 40; with $\|W_h\| = 3$ it explodes. Attention: one
#   step, 0.109 at every distance.
# - **Parallelism:** an RNN needs $n$ rounds even on unlimited hardware (32 positions: 32 rounds), attention one matrix product.
# - **Trained:** a plain RNN forgets the first token after a few distractors, a GRU holds to $k = 16$ but not $k = 32$,
#   one attention layer solves every $k$; gated RNNs keep the long path and the sequential steps.
# - **Cost:** counting only the core terms, $n d^2$ against $n^2 d$, the crossover is $n = d$; counting every matrix
#   product, it stays $n = d$ against a GRU, while a plain RNN is cheaper at every length. It replaces the RNN on long
#   sequences because of the short path and the parallelism, not because it is cheaper (Q8).
#
# **Next:** [09 · Cost and the context window](09_cost_and_context_window.ipynb) turns $n^2$ into seconds and bytes, and shows why context windows are limited.

# %% [markdown] lang="zh"
# ## 小结
#
# - **路径长度**：RNN 要把第 $s$ 个 token 接力 $T - s$ 次，影响是 $T - s$ 个因子的乘积：$\|W_h\| = 0.9$ 时，距离 40 的早先 token 只能把最后的输出推动 $3 \times 10^{-9}$；
#   $\|W_h\| = 3$ 时则会爆炸。注意力一步直达，每个距离上都是 0.109。
# - **并行**：即使硬件无限，RNN 也要 $n$ 轮，32 个位置恰好 32 轮；注意力只是一次矩阵乘法。
# - **训练对比**：普通 RNN 隔几个干扰 token 就忘了第一个 token，GRU 撑到 $k = 16$ 却撑不到 $k = 32$，一层注意力在每个 $k$ 上都能解决；门控 RNN 的长路径和顺序计算依旧。
# - **代价**：只比核心项 $n d^2$ 对 $n^2 d$，分界点在 $n = d$；把所有矩阵乘法都算上，和 GRU 比仍是 $n = d$，普通 RNN 则在任何长度上都更省。它能在长序列上替代 RNN，靠的是短路径和并行性，而不是更省（Q8）。
#
# **下一节**：[09 · 计算代价与上下文窗口](09_cost_and_context_window.ipynb)，把 $n^2$ 换算成秒和字节，说明上下文窗口为什么有上限。
