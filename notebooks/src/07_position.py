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
# # 07 · Position
#
# **After this notebook you will be able to**
# - show by experiment that self-attention is blind to word order: shuffle the input and the output is shuffled the same way;
# - build the sinusoidal position table, read it as waves of different speeds, and show that moving $k$ positions is the same rotation at every position;
# - say what a learned position table is, what it needs and what its limits are;
# - explain how RoPE makes a query–key score depend only on their offset, and check it numerically;
# - tell apart the mechanisms that change scores **before** softmax: masks, a position bias, a local window;
# - answer the self-test question "self-attention ignores position: how is that fixed?".
#
# **What you should know first:** one attention step ([01 · Query, Key, Value](01_query_key_value.ipynb)); softmax
# ([03 · Softmax](03_softmax.ipynb)); masks as $-\infty$ added to the scores ([04 · Masking](04_masking.ipynb)).
# *About 70 minutes, exercises included.*

# %% [markdown] lang="zh"
# # 07 · 位置信息
#
# **学完本节，你将能够**
# - 用实验证明自注意力看不见词序：把输入打乱，输出只是跟着换了同样的顺序；
# - 构造正弦位置编码表，把它读成一组快慢不同的波，并证明“往后挪 $k$ 个位置”在任何位置上都是同一个旋转；
# - 说清可学习位置编码表是什么、需要什么、有什么局限；
# - 解释 RoPE 为什么让 Query 与 Key 的分数只取决于二者的偏移，并用数值验证；
# - 分清在 softmax **之前**改变分数的几种机制：掩码、位置偏置、局部窗口；
# - 回答自测题“自注意力是位置无关的，如何弥补？”。
#
# **需要的基础**：一步注意力的流程，见 [01 节](01_query_key_value.ipynb)；softmax，见 [03 节](03_softmax.ipynb)；
# 掩码就是给分数加上 $-\infty$，见 [04 节](04_masking.ipynb)。*约 70 分钟，含练习。*

# %%
LANG = "[en]en[zh]zh"  # [en] language of this edition: "en" or "zh" [zh] 本版的语言："en" 或 "zh"
# %matplotlib inline
import matplotlib.pyplot as plt
import numpy as np

import attention_core as ac
from attention_core.labs.nb07_position import checks, position_lab, widgets
from attention_core.teaching import i18n, plots, quiz
from attention_core.teaching.tables import pad

i18n.set_language(LANG)
rng = np.random.default_rng(0)  # [en] every random number in this notebook comes from this seed [zh] 本节的所有随机数都来自这个种子
np.set_printoptions(precision=3, suppress=True)  # [en] arrays print with 3 decimals [zh] 数组打印时保留 3 位小数

# %% [markdown] lang="en"
# ## Self-attention ignores order
#
# "Dog bites man" is not news; "man bites dog" is. Same three words, opposite meaning: in language, **order is
# meaning**. Now look at $\text{softmax}(QK^\top / \sqrt{d_k})\,V$ again: every query is compared with every key, and
# every value is mixed in with its weight. Nowhere does the formula ask *where* a token sits; there is no index $i$ or
# $j$ in it. So a self-attention layer should not tell a sentence from its shuffle. Test it on a real layer: two heads
# with their projections $W^Q, W^K, W^V, W^O$ (seeded random weights, as before training), on six random token vectors.

# %% [markdown] lang="zh"
# ## 自注意力不看顺序
#
# “狗咬人”不是新闻，“人咬狗”才是。同样三个词，意思完全相反：在语言里，**顺序本身就是意义**。
# 再看一遍公式 $\text{softmax}(QK^\top / \sqrt{d_k})\,V$：每个 Query 与每个 Key 比较，每个 Value 按权重混进来。
# 公式里没有任何一处在问一个 token 位于*哪里*：其中没有下标 $i$ 或 $j$，只有向量本身。所以自注意力层应当分辨不出一句话和它被打乱后的样子。
# 下面用一个真实的层来检验：两个头，带着各自的投影 $W^Q, W^K, W^V, W^O$（用种子生成的随机权重，相当于训练之前），作用在六个随机的 token 向量上。

# %%
D = 16                                                  # [en] model width [zh] 模型维度
params = ac.init_multihead(d_model=D, n_heads=2, seed=0)

def self_attention(x):
    """[en] One self-attention layer: Q, K and V all come from the same x (T, D) -> output (T, D).
    [zh] 一层自注意力：Q、K 和 V 都来自同一个 x (T, D) -> 输出 (T, D)。"""
    out, _ = ac.multi_head_attention(x, x, x, params)
    return out

x = rng.normal(size=(6, D))                             # [en] six tokens, (T=6, D) [zh] 六个 token，(T=6, D)
out = self_attention(x)
for _ in range(3):
    perm = rng.permutation(6)                           # [en] a shuffle of the six positions [zh] 把六个位置打乱
    shuffled_out = self_attention(x[perm])              # [en] run the layer on the shuffled tokens [zh] 在打乱后的 token 上运行这一层
    gap = np.abs(out[perm] - shuffled_out).max()
    print(f"[en]shuffle {perm}:  max |out[perm] - attention(x[perm])| = {gap:.0e}[zh]打乱 {perm}：max |out[perm] - attention(x[perm])| = {gap:.0e}")

# %% [markdown] lang="en"
# The output of the shuffled sentence is the old output, shuffled the same way, to the last bit or two ($10^{-16}$ is
# float64 rounding). This is **permutation equivariance**; `position_lab.equivariance_gap(layer, x, perm)` measures it.
#
# ### Why: a permutation passes straight through
#
# Write the shuffle as a permutation matrix $P$ ($PX$ reorders the rows of $X$; $P^\top P = I$). The projections act
# on each row, so $Q' = PQ$, $K' = PK$, $V' = PV$. Then
#
# $$Q'K'^\top = P\,QK^\top P^\top, \qquad \text{softmax}(P S P^\top) = P\,\text{softmax}(S)\,P^\top,$$
#
# because softmax works row by row and only reorders what it is given. Finally
#
# $$\text{softmax}(P S P^\top)\,PV = P\,\text{softmax}(S)\,P^\top P\,V = P\,\big(\text{softmax}(S)\,V\big).$$
#
# Every step, including $W^O$ and every head, keeps the $P$ on the outside.

# %% [markdown] lang="zh"
# 句子打乱之后，输出恰好是原输出按同样方式打乱的结果，只差最后一两位：$10^{-16}$ 是 float64 的舍入误差。
# 这叫作**置换等变性**，`position_lab.equivariance_gap(layer, x, perm)` 量的正是这个数。
#
# ### 原因：每一步都保留置换
#
# 把打乱写成一个置换矩阵 $P$，$PX$ 就是把 $X$ 的各行换个顺序，且 $P^\top P = I$。投影逐行作用，所以 $Q' = PQ$，$K' = PK$，$V' = PV$。于是
#
# $$Q'K'^\top = P\,QK^\top P^\top, \qquad \text{softmax}(P S P^\top) = P\,\text{softmax}(S)\,P^\top$$
#
# 因为 softmax 逐行计算，只是把拿到的数重新排了序。最后
#
# $$\text{softmax}(P S P^\top)\,PV = P\,\text{softmax}(S)\,P^\top P\,V = P\,\big(\text{softmax}(S)\,V\big)$$
#
# 每一步，包括输出投影 $W^O$ 和每一个头，都把 $P$ 留在最外面：置换从输入一路保留到输出。

# %% [markdown] lang="en"
# ### Dog bites man, man bites dog
#
# Give each word one vector and run both sentences through the same layer. Each word's output (the first 4 of its
# 16 numbers) is printed next to its output in the other sentence:

# %% [markdown] lang="zh"
# ### 狗咬人，人咬狗
#
# 给每个词一个向量，让两句话通过同一个层。下面把每个词的输出（16 个数中的前 4 个）和它在另一句里的输出并排打印：

# %%
dog, bites, man = "[en]dog bites man[zh]狗 咬 人".split()              # [en] the three words [zh] 三个词
embed = {word: rng.normal(size=D) for word in (dog, bites, man)}   # [en] one vector per word [zh] 每个词一个向量
first, second = [dog, bites, man], [man, bites, dog]               # [en] the two sentences [zh] 两个句子

def sentence(words):
    """[en] The (T, D) input of a sentence: its words' vectors in order.
    [zh] 一个句子的 (T, D) 输入：按顺序排列的词向量。"""
    return np.stack([embed[word] for word in words])

def compare(layer):
    a, b = layer(sentence(first)), layer(sentence(second))
    for word in (dog, bites, man):
        out_a, out_b = a[first.index(word)], b[second.index(word)]
        print(f"{pad(word, 6)} {out_a[:4]}  |  {out_b[:4]}  ", f"[en]max diff {np.abs(out_a - out_b).max():.3f}[zh]最大差异 {np.abs(out_a - out_b).max():.3f}")

print(f"[en]word   in '{' '.join(first)}'             |  in '{' '.join(second)}'[zh]词     在“{''.join(first)}”中                   |  在“{''.join(second)}”中")
compare(self_attention)

# %% [markdown] lang="en"
# Identical, word for word. "dog" comes out the same whether it bit or was bitten, so no later layer can recover who
# bit whom: both sentences give the same **set** of outputs in a different order. Order has to be **injected**, in two
# families of ways: add position to the inputs (sinusoidal or learned tables), or build it into the scores (RoPE,
# position biases, masks, windows).

# %% [markdown] lang="zh"
# 逐词完全相同。无论“狗”是咬的一方还是被咬的一方，它的输出都一样，所以后面的任何一层都无法还原到底是谁咬了谁：
# 两句话给出的是同一**组**输出，只是排列顺序不同。顺序必须被**注入**进去。办法分两大类：把位置加到输入上（正弦位置编码或可学习位置编码，见下文），
# 或者把位置做进分数里（RoPE、位置偏置、掩码、窗口）。

# %% [markdown] lang="en"
# ## Sinusoidal encodings
#
# *Attention Is All You Need* adds to token $p$'s vector a fixed vector $PE[p]$ of the same width $D$. Its entries
# come in pairs, one pair per frequency $\omega_i = 10000^{-2i/D}$:
#
# $$PE[p, 2i] = \sin(p\,\omega_i), \qquad PE[p, 2i+1] = \cos(p\,\omega_i).$$
#
# Read it as a clock with $D/2$ hands: hand $i$ turns by $\omega_i$ radians per position. The first hand turns once
# every $2\pi \approx 6.3$ positions, the last one so slowly that it needs tens of thousands of positions for a turn.
# Together, the hands give every position a different reading. `ac.sinusoidal_encoding(T, D)` builds the table:

# %% [markdown] lang="zh"
# ## 正弦位置编码
#
# *Attention Is All You Need* 给第 $p$ 个 token 的向量加上一个同样是 $D$ 维的固定向量 $PE[p]$。它的元素成对出现，每一对对应一个频率
# $\omega_i = 10000^{-2i/D}$：
#
# $$PE[p, 2i] = \sin(p\,\omega_i), \qquad PE[p, 2i+1] = \cos(p\,\omega_i)$$
#
# 可以把它想成一个有 $D/2$ 根指针的钟：第 $i$ 根指针每过一个位置转 $\omega_i$ 弧度。第一根指针每 $2\pi \approx 6.3$ 个位置转一圈，
# 最后一根转得极慢，要几万个位置才转一圈。所有指针合起来，让每个位置都有一个与众不同的读数。`ac.sinusoidal_encoding(T, D)` 负责构造这张表：

# %%
T, D_pe = 50, 64
pe = ac.sinusoidal_encoding(T, D_pe)                     # [en] (T, D): row p is the vector added at position p [zh] (T, D)：第 p 行是加在位置 p 上的向量
omega = position_lab.sinusoidal_frequencies(D_pe)        # [en] (D/2,) speed of each (sin, cos) pair [zh] (D/2,) 每对 (sin, cos) 的转速
print(f"[en]table shape {pe.shape}   values in [{pe.min():.3f}, {pe.max():.3f}][zh]表的形状 {pe.shape}   取值范围 [{pe.min():.3f}, {pe.max():.3f}]")
print("PE[0, :6] =", pe[0, :6], " (sin 0 = 0, cos 0 = 1)")
print("PE[1, :6] =", pe[1, :6])
print("[en]wavelength of pairs 0, 1, 2, 8, 31 (positions):[zh]第 0、1、2、8、31 对（从 0 编号）的波长（以位置计）：", np.round(2 * np.pi / omega[[0, 1, 2, 8, 31]], 1))
print("[en]all 50 rows different:[zh]50 行互不相同：", len(np.unique(pe.round(6), axis=0)) == T)
ax = plots.plot_positional_encoding(pe)

# %% [markdown] lang="en"
# The left columns (fast pairs) alternate quickly down the positions; the right columns barely change over 50
# positions, where sine stays near 0 and cosine near 1 (the right-hand columns stay nearly constant down the page).

# %% [markdown] lang="zh"
# 左边几列（快的指针）沿着位置方向迅速交替变化；右边几列在 50 个位置内几乎不变：正弦一直接近 0，余弦一直接近 1（右侧那些几乎从上到下不变的竖条）。

# %% [markdown] lang="en"
# ### A shift is a rotation
#
# Why sines and cosines, and not simply the number $p$? The paper's reason: for any fixed offset $k$, $PE[p+k]$ is a
# **fixed linear function** of $PE[p]$, the same for every $p$. For one pair it is the angle-addition formula,
#
# $$\begin{pmatrix} \sin((p+k)\omega) \\ \cos((p+k)\omega) \end{pmatrix}
# = \begin{pmatrix} \cos k\omega & \sin k\omega \\ -\sin k\omega & \cos k\omega \end{pmatrix}
# \begin{pmatrix} \sin p\omega \\ \cos p\omega \end{pmatrix},$$
#
# a rotation by the angle $k\omega$. Stack one such $2 \times 2$ block per pair and you get a $D \times D$ matrix $M_k$
# with $PE[p+k] = M_k\,PE[p]$. We build $M_k$ once and apply it to **every** row of the table:

# %% [markdown] lang="zh"
# ### 平移就是旋转
#
# 为什么用正弦和余弦，而不是直接用数字 $p$？论文给出的理由是：对任意固定的偏移 $k$，$PE[p+k]$ 是 $PE[p]$ 的一个**固定的线性函数**，
# 对所有 $p$ 都是同一个。对一对维度来说，这就是三角函数的和角公式：
#
# $$\begin{pmatrix} \sin((p+k)\omega) \\ \cos((p+k)\omega) \end{pmatrix}
# = \begin{pmatrix} \cos k\omega & \sin k\omega \\ -\sin k\omega & \cos k\omega \end{pmatrix}
# \begin{pmatrix} \sin p\omega \\ \cos p\omega \end{pmatrix}$$
#
# 即旋转 $k\omega$ 角。每一对维度放一个这样的 $2 \times 2$ 块，就得到一个 $D \times D$ 的矩阵 $M_k$，满足 $PE[p+k] = M_k\,PE[p]$。
# 我们只构造一次 $M_k$，然后把它作用在表的**每一行**上：

# %%
for k in (1, 3, 10):
    M = position_lab.sinusoidal_shift_matrix(D_pe, k)          # [en] (D, D), built from k alone [zh] (D, D)，只由 k 构造
    moved = pe[: T - k] @ M.T                                   # [en] M_k PE[p] for p = 0 .. T-k-1, (T-k, D) [zh] p = 0 .. T-k-1 时的 M_k PE[p]，(T-k, D)
    err = np.abs(moved - pe[k:]).max()
    print(f"[en]k = {k:2d}: max |M_k PE[p] - PE[p+k]| over all {T - k} positions p = {err:.0e}[zh]k = {k:2d}：在全部 {T - k} 个位置 p 上，max |M_k PE[p] - PE[p+k]| = {err:.0e}")
M3 = position_lab.sinusoidal_shift_matrix(D_pe, 3)
print("[en]the block of pair 0 in M_3 (angle 3 rad):[zh]M_3 中第 0 对（从 0 编号）的分块（转角 3 弧度）：")
print(M3[:2, :2])
print("[en]M_3 is a rotation: M^T M = I ->[zh]M_3 是一个旋转：M^T M = I ->", np.allclose(M3.T @ M3, np.eye(D_pe)))

# %% [markdown] lang="en"
# One matrix, fifty positions, agreement to rounding error. A consequence you will meet again with RoPE: the dot product
# of two encodings depends only on their offset, $PE[p] \cdot PE[p+k] = \sum_i \cos(k\,\omega_i)$, whatever $p$ is. The
# paper hoped a model could so learn to attend "three words back" with one set of weights everywhere. (Inside a model
# the projections $W^Q, W^K$ sit in between, so this is not guaranteed; RoPE, below, guarantees it.)

# %% [markdown] lang="zh"
# 一个矩阵，五十个位置，误差只在舍入量级。由此还能得到一个在 RoPE 里会再次见到的结论：两个编码的点积只取决于它们的偏移，
# $PE[p] \cdot PE[p+k] = \sum_i \cos(k\,\omega_i)$，与 $p$ 无关。论文因此期望模型能用同一组权重，在任何位置上学会“看三个位置之前的词”。
# （在模型内部，中间还隔着投影 $W^Q, W^K$，所以分数并不保证只取决于偏移；下文的 RoPE 则保证了这一点。）

# %% [markdown] lang="en"
# ### Try it: position and dimension
#
# Move $p$ (the row, a position) and $i$ (the column, a dimension). The lower plot is column $i$ along all positions, a
# sine or cosine wave with its wavelength. Try $i = 0$ and $i = 1$ (the fastest pair: the same wave a quarter turn
# apart); then $i = 20$, $40$, $63$ (slower and slower). Then fix $i = 2$ and move $p$: the orange dot walks along the wave.

# %% [markdown] lang="zh"
# ### 动手试试：位置与维度
#
# 拖动 $p$ 和 $i$：$p$ 是行（位置），$i$ 是列（维度）。下面的图是第 $i$ 列沿所有位置的取值，一条正弦或余弦波，读数给出它的波长。
# 先试 $i = 0$ 和 $i = 1$，这是最快的一对，同一条波错开四分之一圈；再试 $i = 20$、$40$、$63$，一个比一个慢。然后固定 $i = 2$ 拖动 $p$，橙色的点沿着波移动。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
widgets.positional_widget(T=T, D=D_pe, position=5, dim=2)

# %% [markdown] lang="en"
# ## Learned position tables
#
# The other common choice (BERT, GPT-2) is simpler: a table of $T_{max} \times D$ free parameters, one row per
# position, trained with the rest of the model. `ac.learned_position_table` gives such a table as it starts,
# before training: small random numbers. Compare its dot products between positions with the sinusoidal table's:

# %% [markdown] lang="zh"
# ## 可学习的位置编码表
#
# 另一种常见做法（BERT、GPT-2）更简单：一张 $T_{max} \times D$ 的自由参数表，每个位置一行，与模型的其余部分一起训练。
# `ac.learned_position_table` 给出这样一张表在训练开始前的样子：一些很小的随机数。把它在不同位置之间的点积与正弦位置编码比一比：

# %%
learned = ac.learned_position_table(T, D_pe, seed=0)               # [en] (T, D), before training [zh] (T, D)，训练之前
gram_sin = pe @ pe.T                                                 # (T, T): PE[m] . PE[n]
gram_learned = learned @ learned.T                                   # (T, T)
for name, g in (("[en]sinusoidal[zh]正弦位置编码", gram_sin), ("[en]learned (untrained)[zh]可学习位置编码（未训练）", gram_learned)):
    spread = position_lab.diagonal_spread(g) / np.abs(g).max()       # [en] 0: depends on the offset n - m only [zh] 0：只取决于偏移 n - m
    print(pad(name, 26), f"[en]spread along a diagonal / largest entry = {spread:.3f}[zh]沿对角线的离散程度 / 最大元素 = {spread:.3f}")
print("[en]sinusoidal PE[p] . PE[p+3] for p = 0, 10, 40:[zh]正弦位置编码 PE[p] . PE[p+3]，p = 0、10、40：", np.round([gram_sin[p, p + 3] for p in (0, 10, 40)], 3),
      f"= sum cos(3 w_i) = {np.cos(3 * omega).sum():.3f}")

# %% [markdown] lang="en"
# The learned table starts with no structure at all: whatever relation between positions it ends up with comes
# from training, and a position that training never reached keeps its random row. And it stops at its last row.
# A model trained with $T_{max} = 50$ has no vector for position 50:

# %% [markdown] lang="zh"
# 可学习位置编码一开始没有任何结构：位置之间最终形成什么关系，全靠训练；训练中从未出现过的位置，它那一行就一直是随机数。
# 而且它在最后一行就到头了。用 $T_{max} = 50$ 训练的模型，根本没有位置 50 的向量：

# %%
print(f"[en]learned table: {learned.shape}  rows for positions 0 .. {len(learned) - 1}[zh]可学习位置编码：{learned.shape}  只有位置 0 .. {len(learned) - 1} 的行")
try:
    learned[T]                                          # [en] position T = 50: one past the end [zh] 位置 T = 50：刚好越过末尾
except IndexError as exc:
    print("learned[50] ->", type(exc).__name__ + ":", exc)
    print(f"[en]  in plain words: the table has rows 0 .. {len(learned) - 1} only; row {T} does not exist[zh]  意思是：这张表只有第 0 .. {len(learned) - 1} 行，第 {T} 行不存在")
longer = ac.sinusoidal_encoding(T + 50, D_pe)           # [en] the formula works for any position [zh] 公式对任何位置都适用
print("[en]sinusoidal: a row for position 50 too;  first 50 rows unchanged:[zh]正弦位置编码：位置 50 也有一行；前 50 行保持不变：", np.array_equal(longer[:T], pe))


# %% [markdown] lang="en"
# The sinusoidal formula gives a vector for any position, so a longer input at least gets encodings; whether a trained
# model uses positions it never saw is another matter (often it does not). Relative schemes such as RoPE and ALiBi do
# not solve this either: RoPE models degrade beyond their training length unless the rotation is rescaled and the model
# tuned on longer texts (position interpolation, NTK-aware scaling, YaRN); ALiBi's linear penalty extrapolates better, at
# the price of favouring nearby tokens. (Cited from Press et al. 2022, Chen et al. 2023, Peng et al. 2023; nothing here
# trains a model long enough to measure it.)

# %% [markdown] lang="zh"
# 正弦公式可以为任意位置算出向量，所以更长的输入至少能拿到编码；至于训练好的模型能否用好从没见过的位置，则是另一回事
# （往往用不好）。新模型转向了 RoPE、ALiBi 这类相对位置方案，但相对位置本身也没有解决这个问题：RoPE 模型超出训练长度后
# 同样会变差，除非把旋转重新缩放，再在更长的文本上继续微调（位置插值、NTK-aware 缩放、YaRN）；ALiBi 的线性惩罚外推得更好，
# 代价是偏向近处的 token。（以上引自这些方法的论文：Press 等，2022；Chen 等，2023；Peng 等，2023；这里没有训练足够长的模型来实测。）

# %% [markdown] lang="en"
# ## Adding position breaks the symmetry
#
# Now add the table to the inputs, $x_p + PE[p]$, and repeat both experiments. The words move when we shuffle; the
# positions stay where they are, so each word now arrives with a different position vector.

# %% [markdown] lang="zh"
# ## 加上位置，对称性就被打破
#
# 现在把位置编码表加到输入上，即 $x_p + PE[p]$，再把两个实验各做一遍。打乱时词在移动，位置却留在原地，所以每个词都会配上一个不同的位置向量。

# %%
def with_position(layer):
    """[en] The same layer, with the sinusoidal table added to its input first.
    [zh] 同一层，只是先把正弦位置编码加到输入上。"""
    return lambda x: layer(x + ac.sinusoidal_encoding(len(x), x.shape[-1]))

def with_learned_position(layer):
    """[en] The same layer, with the (untrained) learned table of above added to its input first.
    [zh] 同一层，只是先把上面那张（未训练的）可学习位置编码表加到输入上。"""
    return lambda x: layer(x + ac.learned_position_table(T, x.shape[-1], seed=0)[: len(x)])

for name, layer in (("[en]without position[zh]不加位置", self_attention),
                    ("[en]+ sinusoidal table[zh]+ 正弦位置编码", with_position(self_attention)),
                    ("[en]+ learned table[zh]+ 可学习位置编码", with_learned_position(self_attention))):
    print(pad(name, 20), f"max |out[perm] - layer(x[perm])| = {position_lab.equivariance_gap(layer, x, perm):.3g}")
print()
print(f"[en]word   in '{' '.join(first)}'             |  in '{' '.join(second)}'[zh]词     在“{''.join(first)}”中                   |  在“{''.join(second)}”中")
compare(with_position(self_attention))

# %% [markdown] lang="en"
# The shuffle no longer passes through: with the sinusoidal table the difference is 0.593 instead of $10^{-16}$, and the
# untrained learned table breaks the symmetry too (its random rows are small, so the gap is smaller, 0.031). Below,
# with the sinusoidal table, "dog" as the subject
# and "dog" as the object come out different (by up to 0.485), and so does "bites" (0.439), although it sits in the
# middle of both sentences: its neighbours changed places. The layer can now tell who bit whom; learning to
# *use* that is the job of training.

# %% [markdown] lang="zh"
# 置换等变性被打破了：加上正弦位置编码后，差值从 $10^{-16}$ 变成了 0.593；未训练的可学习位置编码也打破了对称，只是它的随机行很小，差值也小，为 0.031。
# 再看加正弦位置编码的两句话：作为主语的“狗”和作为宾语的“狗”输出不同了（最多相差 0.485），
# 连“咬”也变了（0.439），尽管它在两句话里都位于中间：是它的邻居换了位置。这个层现在能分辨谁咬了谁；至于学会*利用*这一点，则是训练的任务。

# %% [markdown] lang="en"
# ## RoPE: rotate the query and the key
#
# Adding position to the input mixes "what" and "where" in one vector, and the projections then blur them further.
# **RoPE** (rotary position embedding, used by LLaMA and most recent models) puts position into the score itself:
# it rotates each pair of the query at position $m$ by the angle $m\theta_i$ and each pair of the key at position $n$
# by $n\theta_i$, the same clock as above. Rotations keep lengths and turn dot products into angle differences:
#
# $$\big(R(m\theta)\,q\big) \cdot \big(R(n\theta)\,k\big) = q^\top R(m\theta)^\top R(n\theta)\,k = q^\top R\big((n-m)\theta\big)\,k .$$
#
# The score depends on the **offset** $n - m$, not on $m$ and $n$ themselves. Check it with `ac.apply_rope` on one
# query and one key placed at many pairs of positions:

# %% [markdown] lang="zh"
# ## RoPE：旋转 Query 和 Key
#
# 把位置加到输入上，会把“是什么”和“在哪里”混进同一个向量，之后的投影又把它们搅得更乱。**RoPE**（旋转位置编码，LLaMA 和大多数新模型都在用）
# 把位置直接放进分数里：位置 $m$ 上的 Query，每一对维度旋转 $m\theta_i$；位置 $n$ 上的 Key，每一对维度旋转 $n\theta_i$。用的还是上面那座钟。
# 旋转不改变长度，并把点积变成角度之差：
#
# $$\big(R(m\theta)\,q\big) \cdot \big(R(n\theta)\,k\big) = q^\top R(m\theta)^\top R(n\theta)\,k = q^\top R\big((n-m)\theta\big)\,k$$
#
# 分数取决于**偏移** $n - m$，而不是 $m$ 和 $n$ 本身。用 `ac.apply_rope` 把同一个 Query 和同一个 Key 放到许多对位置上验证一下：

# %%
q = rng.normal(size=8)                                  # [en] one query, Dh = 8 [zh] 一个 Query，Dh = 8
k = rng.normal(size=8)                                  # [en] one key [zh] 一个 Key
print("[en]  m     n   n-m   RoPE score[zh]  m     n   n-m   RoPE 分数")
for m, n in [(0, 3), (5, 8), (20, 23), (997, 1000), (3, 0), (8, 5), (1000, 997), (0, 0), (500, 500)]:
    print(f"{m:4d}  {n:4d}  {n - m:3d}   {position_lab.rope_score(q, k, m, n):8.4f}")
print("[en]formula[zh]公式", f"q^T R(3θ) k = {position_lab.rope_relative_score(q, k, 3):.4f},  "
      f"R(-3θ): {position_lab.rope_relative_score(q, k, -3):.4f},  R(0) = q·k: {q @ k:.4f}")
rotated = ac.apply_rope(np.tile(q, (4, 1)), np.array([0.0, 1.0, 50.0, 1000.0]))   # [en] q at 4 positions, (4, Dh) [zh] q 在 4 个位置上，(4, Dh)
print(f"[en]norm of q: {np.linalg.norm(q):.4f}   after rotation to 0, 1, 50, 1000:[zh]q 的长度：{np.linalg.norm(q):.4f}   旋转到位置 0、1、50、1000 之后：", np.linalg.norm(rotated, axis=1).round(4))

# %% [markdown] lang="en"
# Same offset, same score, whether the pair sits at the start or a thousand positions in; the sign of the offset
# matters ($+3$ and $-3$ differ: "three ahead" is not "three back"), and at offset 0 the score is the plain $q \cdot k$.
# The rotation never changes a vector's length, so the content's strength is untouched.
#
# Seen over all pairs of positions, an offset-only function is a matrix with constant diagonals. Below, three
# matrices over 32 positions: dot products of the sinusoidal table, of the untrained learned table, and the RoPE
# scores of our $q$ and $k$.

# %% [markdown] lang="zh"
# 偏移相同，分数就相同，无论这对位置在开头还是在一千个位置之后；偏移的符号有影响（$+3$ 和 $-3$ 不同：“往后三个”不等于“往前三个”），
# 偏移为 0 时分数就是普通的 $q \cdot k$。旋转从不改变向量的长度，所以内容本身的强弱不受影响。
#
# 把所有位置对放在一起看，只取决于偏移的函数就是一个沿对角线取值不变的矩阵。下面是 32 个位置上的三个矩阵：正弦位置编码的点积、未训练的可学习位置编码的点积，
# 以及我们这组 $q$、$k$ 的 RoPE 分数。

# %%
rope_scores = position_lab.rope_score_matrix(q, k, 32)             # [en] (32, 32): q at m against k at n [zh] (32, 32)：位置 m 的 q 对位置 n 的 k
print(f"[en]spread along a diagonal / largest entry: sinusoidal {position_lab.diagonal_spread(gram_sin[:32, :32]) / np.abs(gram_sin).max():.3f}, learned {position_lab.diagonal_spread(gram_learned[:32, :32]) / np.abs(gram_learned[:32, :32]).max():.3f}, RoPE {position_lab.diagonal_spread(rope_scores) / np.abs(rope_scores).max():.3f}[zh]沿对角线的离散程度 / 最大元素：正弦位置编码 {position_lab.diagonal_spread(gram_sin[:32, :32]) / np.abs(gram_sin).max():.3f}，可学习位置编码 {position_lab.diagonal_spread(gram_learned[:32, :32]) / np.abs(gram_learned[:32, :32]).max():.3f}，RoPE {position_lab.diagonal_spread(rope_scores) / np.abs(rope_scores).max():.3f}")
fig, axes = plt.subplots(1, 3, figsize=(13, 3.8), layout="compressed")
titles = ("[en]sinusoidal table: PE[m] · PE[n][zh]正弦位置编码：PE[m] · PE[n]", "[en]learned table (untrained): L[m] · L[n][zh]可学习位置编码（未训练）：L[m] · L[n]", "[en]RoPE: q_m · k_n[zh]RoPE 分数：q_m · k_n")
for ax, matrix, title in zip(axes, (gram_sin[:32, :32], gram_learned[:32, :32], rope_scores), titles):
    ax = position_lab.plot_pair_matrix(matrix, ax=ax, title=title, query_key=matrix is rope_scores)

# %% [markdown] lang="en"
# The left and right matrices are striped along their diagonals (each stripe is one offset); the middle one has
# only its main diagonal (each row's squared length) and noise elsewhere. Two differences between the outer two: the sinusoidal matrix is about the position vectors alone, while
# the RoPE matrix is the actual score that enters softmax; and RoPE's stripes depend on $q$ and $k$, so content
# decides *which* offsets score high.

# %% [markdown] lang="zh"
# 左右两个矩阵沿对角线呈条纹状（每条条纹对应一个偏移）；中间那个只有主对角线（每一行自身长度的平方），其余都是噪声。左右两者还有两点不同：正弦矩阵只涉及位置向量本身，
# 而 RoPE 矩阵就是真正送进 softmax 的分数；并且 RoPE 的条纹取决于 $q$ 和 $k$，所以由内容来决定*哪些*偏移得分高。

# %% [markdown] lang="en"
# ## Before the softmax: masks, position bias, local windows
#
# Three mechanisms act on the scores before softmax, and each brings position in: a **mask** hides keys (score
# $-\infty$, weight exactly 0); a **position bias** adds a number that depends on the distance, such as the ALiBi-like
# $-m \cdot |i - j|$ with a slope $m$; a **local window** hides every key $w$ or more positions back. Throughout the
# course, **a window of $w$** means the $w$ keys a query sees, itself included: itself and the $w - 1$ tokens before it
# (the causal window of `ac.sliding_window_mask(T, w)`, as in Mistral). One query (position 5 of 0..7), its content
# scores $q \cdot k_j / \sqrt{d_k}$, and what each mechanism makes of them (slope $m = 0.5$, a window of 3: keys 3, 4, 5):

# %% [markdown] lang="zh"
# ## 在 softmax 之前：掩码、位置偏置、局部窗口
#
# 还有三种机制直接在 softmax 之前作用于分数，每一种都把位置带了进来。**掩码**屏蔽某些 Key，分数变成 $-\infty$，权重严格为 0；
# **位置偏置**加上一个取决于距离的数，比如类似 ALiBi 的 $-m \cdot |i - j|$，$m$ 是斜率；**局部窗口**屏蔽往前距离达到 $w$ 的所有 Key。
# 本课程说“宽度为 $w$ 的窗口”，一律指 Query 能看到的 $w$ 个 Key，包括它自己：它自己和它前面的 $w - 1$ 个 token，
# 也就是 `ac.sliding_window_mask(T, w)` 给出的因果窗口，与 Mistral 相同。
# 下面取 8 个位置（0–7）中位于 5 号位置的 Query，列出它与各个 Key 的内容分数 $q \cdot k_j / \sqrt{d_k}$，以及每种机制如何改变它们。
# 斜率 $m$ 取 0.5，窗口宽度为 3，即 Key 3、4、5：

# %%
scores = np.array([2.0, 0.5, -0.5, 0.0, 1.0, 0.8, 0.3, 1.8])      # [en] one query's content scores, Tk = 8 [zh] 一个 Query 的内容分数，Tk = 8
query = 5
print(pad("[en]bias -0.5|5 - j|[zh]偏置 -0.5|5 - j|", 16) + ":", position_lab.distance_bias(8, 0.5)[query])
print(pad("[en]causal mask[zh]因果掩码", 16) + ":", ac.causal_mask(8)[query].astype(int), " " + "[en](1 = visible)[zh]（1 = 可见）")
print(pad("[en]window of 3[zh]宽度为 3 的窗口", 16) + ":", ac.sliding_window_mask(8, 3)[query].astype(int),
      f"[en]  ({ac.sliding_window_mask(8, 3)[query].sum()} keys)[zh]  （{ac.sliding_window_mask(8, 3)[query].sum()} 个 Key）")
print()
variants = position_lab.score_row_variants(scores, query, slope=0.5, window=3)
print(pad("[en]key j[zh]Key j", 24) + "".join(f"{j:>7d}" for j in range(8)))
for name, v in variants.items():
    label = position_lab.variant_label(name)                       # [en] aligned by display width (Chinese: 2 columns) [zh] 按显示宽度对齐（汉字占 2 列）
    print(pad(label, 22) + "s " + "".join(f"{s:7.2f}" for s in v["scores"]))
    print(pad("", 22) + "w " + "".join(f"{w:7.3f}" for w in v["weights"]))

# %%
ax = position_lab.plot_score_row(variants, query=query)

# %% [markdown] lang="en"
# With content only, key 0 wins (0.321), five positions away, followed by key 7, in the future. The causal mask removes
# keys 6 and 7 (exact zeros) and key 0 rises to 0.474. The distance bias hides nothing, but key 0 drops from score 2.0 to
# $-0.5$ and weight 0.074, while the query's own key 5 and key 7 tie at 0.270. The window keeps only keys 3 to 5. Causal
# mask plus bias (how ALiBi is used in decoders) puts 0.427 on the query itself. The content scores never changed:
# **everything about position happened before the softmax**, by adding to the scores or hiding keys.

# %% [markdown] lang="zh"
# 只看内容时，胜出的是五个位置之外的 Key 0，权重 0.321，其次是来自未来的 Key 7。因果掩码去掉了 Key 6 和 7，权重严格为 0，Key 0 升到 0.474。
# 距离偏置不屏蔽任何东西，但 Key 0 的分数从 2.0 降到 $-0.5$，权重降到 0.074，Query 自己的 Key 5 与 Key 7 并列第一，都是 0.270。窗口只留下 Key 3 到 5。
# 因果掩码与偏置合用，也就是解码器里使用 ALiBi 的方式，Query 自己拿到 0.427。内容分数始终没变：**所有与位置有关的改变都发生在 softmax 之前**，
# 要么给分数加上一个数，要么屏蔽某些 Key。

# %% [markdown] lang="en"
# ### Try it: slope, window, causal mask
#
# The same row of content scores (the short grey marks), the scores after your changes (orange bars, $-\infty$ where a key
# is hidden) and the weights. The window is the one of the row above: $w$ keys, the query and the $w - 1$ before it.
# Raise the slope step by step. At 0.1 key 7 (two positions away) already overtakes key 0 (five away); above 0.5 the
# query's own key leads, and at 1.0 it takes 0.465. Set the window to 1 (the query sees only itself: weight 1). Set the
# window off (the slider's 0 means no window), tick the causal mask with slope 0, and watch key 7's weight move to the others.

# %% [markdown] lang="zh"
# ### 动手试试：斜率、窗口、因果掩码
#
# 图中是同一行内容分数（灰色短横）、你改动之后的分数（橙色柱，被屏蔽的 Key 显示 $-\infty$）和权重。窗口的含义与上面那一行相同：
# 宽度为 $w$ 时，Query 看到自己和前面的 $w - 1$ 个 Key。
#
# 试试看。把斜率一点点调高：到 0.1 时，Key 7（相距两个位置）就已经超过了 Key 0（相距五个位置）；超过 0.5 后，Query 自己的 Key 领先，
# 到 1.0 时它拿到 0.465。把窗口设为 1，Query 只能看见自己，权重为 1。再把窗口设回 0（滑块上的 0 表示不用窗口），斜率为 0 时勾选因果掩码，看 Key 7 的权重如何分给其他 Key。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
widgets.position_bias_widget(scores, query=query, slope=0.0, window=0, causal=False)

# %% [markdown] lang="en"
# ## Misconception: attention weights are distance-based
#
# It is tempting to think that a token naturally attends more to its neighbours. Plain attention has no such
# preference: distance enters only through the mechanisms above. To see it on average, take a middle query among
# 9 positions and 4000 random sequences whose content has nothing to do with position, and average the weight
# given to each distance:

# %% [markdown] lang="zh"
# ## 误区：注意力权重按距离分配
#
# 人们很容易以为一个 token 天生更关注它的邻居。纯粹的注意力没有这种偏好：距离只能通过上面那些机制进入。为了在平均意义上看清这一点，
# 取 9 个位置中居中的 Query，生成 4000 条内容与位置毫无关系的随机序列，统计每个距离上得到的平均权重：

# %%
curves = {
    "[en]content only[zh]只看内容": position_lab.weight_by_distance(9, 16, 4000, seed=1),
    "[en]+ distance bias[zh]+ 距离偏置": position_lab.weight_by_distance(9, 16, 4000, seed=1, slope=0.5),
    "[en]+ symmetric window, 5 keys[zh]+ 对称窗口，5 个 Key": position_lab.weight_by_distance(9, 16, 4000, seed=1, window=3),  # [en] causal=False inside: reach 3 (|i-j| < 3), 5 keys [zh] 内部用 causal=False：半径 3（|i-j| < 3），5 个 Key
}
for label, curve in curves.items():
    print(pad(label, 28), "[en]weight at distance 0..4:[zh]距离 0..4 上的权重：", curve)
print(f"[en]uniform 1/9 = {1 / 9:.3f}[zh]均匀分布 1/9 = {1 / 9:.3f}")
ax = position_lab.plot_weight_by_distance(curves, uniform=1 / 9)


# %% [markdown] lang="en"
# Content only: the same average weight at every distance, $1/9$ up to sampling noise. With the bias (slope 0.5), the
# weight falls with distance; with a symmetric window of 5 keys (reach 3, $|i - j| < 3$: the query and two keys on each
# side; `ac.sliding_window_mask(T, 3, causal=False)` is symmetric, so its 3 is the reach, not the key count), it is cut to zero beyond distance 2. So "attention prefers nearby tokens"
# is a property of a **model** (its encodings, biases, masks, windows, and what training made of them), not of the
# attention formula. Recall notebook 01: with no mechanism, a matching key gets the same weight wherever it stands.

# %% [markdown] lang="zh"
# 只看内容时，每个距离上的平均权重都一样，在抽样误差范围内等于 $1/9$。加上斜率为 0.5 的偏置，权重随距离下降。
# 这里的 Query 在中间，所以用的是 5 个 Key 的对称窗口（半径 3，即 $|i - j| < 3$）：Query 自己加上两边各两个 Key。
# 它对应 `ac.sliding_window_mask(T, 3, causal=False)`，对称时参数 3 是半径，不是 Key 的个数；距离超过 2 的权重被截为零。所以“注意力偏爱近处的 token”是某个**模型**的性质，取决于它的位置编码、偏置、掩码、窗口以及训练把它们变成了什么，
# 而不是注意力公式本身的性质。回想 01 节：没有任何机制时，一个匹配的 Key 无论站在哪里，得到的权重都一样。

# %% [markdown] lang="en"
# ## Exercise 1 · ★☆☆ · about 10 min: build the sinusoidal table
#
# Write `my_sinusoidal_encoding(n_positions, d_model)` returning the $(T, D)$ table of this notebook:
# $PE[p, 2i] = \sin\left(p / 10000^{2i/D}\right)$ and $PE[p, 2i+1] = \cos\left(p / 10000^{2i/D}\right)$, positions from 0.
# The checker compares it with `ac.sinusoidal_encoding` and recognises the usual slips: sin and cos swapped, the
# frequency off (base, or $i$ instead of $2i$), the sines and cosines in two blocks, positions from 1.

# %% [markdown] lang="zh"
# ## 练习 1 · ★☆☆ · 约 10 分钟：构造正弦位置编码表
#
# 写出 `my_sinusoidal_encoding(n_positions, d_model)`，返回本节的 $(T, D)$ 表：$PE[p, 2i] = \sin\left(p / 10000^{2i/D}\right)$，
# $PE[p, 2i+1] = \cos\left(p / 10000^{2i/D}\right)$，位置从 0 开始。检查器会与 `ac.sinusoidal_encoding` 比较，并能认出常见的错误：
# sin 和 cos 放反，频率不对（底数错了，或把 $2i$ 写成 $i$），sin 和 cos 分成前后两块，位置从 1 开始。

# %%
def my_sinusoidal_encoding(n_positions, d_model):
    """[en] -> (n_positions, d_model): sin in the even columns, cos in the odd ones, one frequency per pair
    [zh] -> (n_positions, d_model)：偶数列放 sin，奇数列放 cos，每对列一个频率"""
    raise NotImplementedError("[en]angles = position / 10000^(2i / d_model)[zh]角度 = 位置 / 10000^(2i / d_model)")

checks.check_sinusoidal_encoding(my_sinusoidal_encoding)


# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def my_sinusoidal_encoding(n_positions, d_model):
#     pos = np.arange(n_positions)[:, None]                  # (T, 1)
#     two_i = np.arange(0, d_model, 2)[None, :]              # (1, D/2): 0, 2, 4, ...
#     angles = pos / 10000 ** (two_i / d_model)              # (T, D/2): one frequency per pair
#     pe = np.zeros((n_positions, d_model))
#     pe[:, 0::2] = np.sin(angles)
#     pe[:, 1::2] = np.cos(angles)
#     return pe
# ```
# </details>

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def my_sinusoidal_encoding(n_positions, d_model):
#     pos = np.arange(n_positions)[:, None]                  # (T, 1)
#     two_i = np.arange(0, d_model, 2)[None, :]              # (1, D/2)：0, 2, 4, ...
#     angles = pos / 10000 ** (two_i / d_model)              # (T, D/2)：每对列一个频率
#     pe = np.zeros((n_positions, d_model))
#     pe[:, 0::2] = np.sin(angles)
#     pe[:, 1::2] = np.cos(angles)
#     return pe
# ```
# </details>

# %% [markdown] lang="en"
# ## Stretch exercise 2 · ★★★ · about 25 min: rotate with RoPE
#
# Write `my_rope(x, positions)`, like `ac.apply_rope`: for each row $t$ of `x` $(\dots, T, D_h)$ and each pair
# $(x_{2i}, x_{2i+1})$, rotate the pair by $\text{positions}[t] \cdot \theta_i$ with $\theta_i = 10000^{-2i/D_h}$. Then check
# the property this notebook measured: the rotated $q_m \cdot k_n$ depends only on $n - m$. The checker tries positions
# out of order and a batch, and names a rotation the wrong way, the "rotate half" pairing $(i, i + D_h/2)$, a wrong
# frequency, ignored positions and a map that changes lengths.

# %% [markdown] lang="zh"
# ## 挑战练习 2 · ★★★ · 约 25 分钟：用 RoPE 旋转
#
# 写出和 `ac.apply_rope` 一样的 `my_rope(x, positions)`：对 `x` $(\dots, T, D_h)$ 的每一行 $t$ 和每一对 $(x_{2i}, x_{2i+1})$，
# 把这一对旋转 $\text{positions}[t] \cdot \theta_i$ 角，其中 $\theta_i = 10000^{-2i/D_h}$。然后检验本节测过的性质：旋转后的 $q_m \cdot k_n$ 只取决于偏移 $n - m$。
# 检查器会用乱序的位置和批量输入来试，并能指出旋转方向反了、用了 GPT-NeoX 和 Llama 那种“前后两半”配对法 $(i, i + D_h/2)$、频率不对、忽略了 `positions`，以及会改变向量长度的变换。

# %%
def my_rope(x, positions):
    """[en] x (..., T, Dh), positions (T,) -> x with each pair (2i, 2i+1) of row t turned by positions[t] * theta_i
    [zh] x (..., T, Dh)，positions (T,) -> 把第 t 行的每对 (2i, 2i+1) 旋转 positions[t] * theta_i 之后的 x"""
    raise NotImplementedError("(a, b) -> (a cos - b sin, a sin + b cos)")

print(checks.check_rope(my_rope))
q_r, k_r = rng.normal(size=(1, 8)), rng.normal(size=(1, 8))
try:                                                   # [en] the property: only the offset n - m matters [zh] 要验证的性质：只有偏移 n - m 起作用
    same_offset = [float(my_rope(q_r, np.array([m]))[0] @ my_rope(k_r, np.array([m + 3]))[0]) for m in (0, 10, 500)]
    print("[en]q_m · k_(m+3) for m = 0, 10, 500:[zh]q_m · k_(m+3)，m = 0、10、500：", np.round(same_offset, 6))
except NotImplementedError:
    print("[en](write my_rope first: then this line shows the same number three times)[zh]（先写好 my_rope：之后这一行会把同一个数显示三次）")

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def my_rope(x, positions):
#     d = x.shape[-1]
#     theta = 10000.0 ** (-np.arange(0, d, 2) / d)           # (Dh/2,) one speed per pair
#     angle = np.asarray(positions, float)[:, None] * theta  # (T, Dh/2)
#     cos, sin = np.cos(angle), np.sin(angle)
#     a, b = x[..., 0::2], x[..., 1::2]                      # the pairs (2i, 2i+1)
#     out = np.empty_like(x, dtype=float)
#     out[..., 0::2] = a * cos - b * sin
#     out[..., 1::2] = a * sin + b * cos
#     return out
# ```
# </details>

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def my_rope(x, positions):
#     d = x.shape[-1]
#     theta = 10000.0 ** (-np.arange(0, d, 2) / d)           # (Dh/2,) 每对一个转速
#     angle = np.asarray(positions, float)[:, None] * theta  # (T, Dh/2)
#     cos, sin = np.cos(angle), np.sin(angle)
#     a, b = x[..., 0::2], x[..., 1::2]                      # 成对的 (2i, 2i+1)
#     out = np.empty_like(x, dtype=float)
#     out[..., 0::2] = a * cos - b * sin
#     out[..., 1::2] = a * sin + b * cos
#     return out
# ```
# </details>

# %% [markdown] lang="en"
# ## Self-test (Q7)

# %% [markdown] lang="zh"
# ## 自测题（Q7）

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
quiz.quiz_widget("q7")

# %% [markdown] lang="en"
# ## Summary
#
# - Self-attention is permutation-equivariant (measured: $10^{-16}$): "dog bites man" and "man bites dog" give the same
#   outputs per word. Order must be injected (Q7): added to the inputs, or built into the scores.
# - The sinusoidal table turns each pair at its own speed; moving $k$ positions is one rotation $M_k$ for every $p$, so
#   $PE[p] \cdot PE[p+k]$ depends on $k$ only. A learned table has no structure until trained and no row beyond $T_{max}$.
#   Adding the sinusoidal table breaks the symmetry (gap 0.593; the untrained learned table, 0.031).
# - RoPE rotates $q$ and $k$ by their positions: the score depends only on $n - m$, and lengths are kept.
# - Masks, distance biases and windows change the scores before softmax; with no position mechanism at all (no encoding,
#   RoPE, bias, mask or window), the average weight does not depend on distance.
#
# **Next:** [08 · Attention versus RNN](08_attention_vs_rnn.ipynb): an RNN gets order for free but pays with long paths and sequential steps.

# %% [markdown] lang="zh"
# ## 小结
#
# - 自注意力具有置换等变性，实测差值为 $10^{-16}$：“狗咬人”和“人咬狗”里每个词的输出完全相同。所以顺序必须另外注入（Q7），要么加到输入上，要么做进分数里。
# - 正弦位置编码表的每一对维度按各自的速度旋转，往后挪 $k$ 个位置对每个 $p$ 都是同一个旋转 $M_k$，所以 $PE[p] \cdot PE[p+k]$ 只取决于 $k$。
#   可学习位置编码表在训练前没有任何结构，在 $T_{max}$ 之后也没有行。加上位置编码就会打破这种对称性：正弦位置编码实测差值 0.593，未训练的可学习位置编码为 0.031。
# - RoPE 按位置旋转 $q$ 和 $k$，分数只取决于 $n - m$，向量长度不变。
# - 掩码、距离偏置和窗口在 softmax 之前改变分数；不加任何位置机制时（没有位置编码、RoPE、偏置、掩码或窗口），平均权重与距离无关。
#
# **下一节**：[08 · 注意力与 RNN](08_attention_vs_rnn.ipynb)，讲 RNN 怎样天生带着顺序，又为此付出漫长的路径和串行计算的代价。
