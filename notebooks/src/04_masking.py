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
# # 04 · Masking
#
# **After this notebook you will be able to**
# - build the causal mask and show that a score of $-\infty$ becomes a weight of **exactly** 0;
# - prove by experiment that with the mask no output depends on later tokens;
# - batch sequences of different lengths with a padding mask, combine masks, and handle a row with nothing to see;
# - answer "is the mask still needed at inference?" with a KV cache you ran yourself.
#
# **What you should know first:** softmax never gives an exact zero on its own ([03](03_softmax.ipynb)).
# *About 60 minutes.*

# %% [markdown] lang="zh"
# # 04 · 掩码
#
# **学完本节，你将能够**
# - 构造因果掩码，并说明 $-\infty$ 分数为什么变成**严格**为 0 的权重；
# - 用实验证明加了掩码以后，任何输出都与后面的 token 无关；
# - 用填充掩码把长度不同的序列放进一批，组合掩码，并处理什么都看不见的一行；
# - 亲手跑一遍 KV 缓存，回答“推理时还需要掩码吗”。
#
# **需要的基础**：softmax 本身从不给出严格的 0，见 [03 节](03_softmax.ipynb)。*约 60 分钟。*

# %%
LANG = "[en]en[zh]zh"  # [en] language of this edition: "en" or "zh" [zh] 本版的语言："en" 或 "zh"
# %matplotlib inline
import numpy as np

import attention_core as ac
from attention_core.labs.nb04_masking import checks, decision, masking_lab, widgets
from attention_core.teaching import formula, i18n, plots, quiz
from attention_core.teaching.tables import pad as pad_text

i18n.set_language(LANG)
rng = np.random.default_rng(0)  # [en] every random number in this notebook comes from this seed [zh] 本节的所有随机数都来自这个种子
np.set_printoptions(precision=3, suppress=True)  # [en] arrays print with 3 decimals [zh] 数组打印时保留 3 位小数

# %% [markdown] lang="en"
# ## Why hide the future
#
# A decoder (the part of a Transformer that generates text) is trained to **predict the next token**. Training feeds
# the whole sentence in one pass and every position predicts its successor at the same time. That is fast, and it
# puts each position's answer in the input, one column to the right.

# %% [markdown] lang="zh"
# ## 为什么要屏蔽未来
#
# 解码器（Transformer 中负责生成文本的部分）训练的目标是**预测下一个 token**。训练时整句话一次输入，每个位置同时预测它的下一个 token。
# 这样训练很快，但每个位置要预测的答案其实就在输入里，就在它右边一格。

# %%
tokens = "[en]The cat sat on the mat[zh]小猫 坐 在 垫子 上 了".split()      # [en] six tokens [zh] 六个 token
for t in range(len(tokens) - 1):
    seen = pad_text(" ".join(tokens[:t + 1]), 22)                 # [en] padded by display width [zh] 按显示宽度补齐
    print(f"[en]position {t}: sees {seen} must predict “{tokens[t + 1]}”[zh]位置 {t}：能看到 {seen} 要预测“{tokens[t + 1]}”")

# %% [markdown] lang="en"
# If position 2 (*sat*) could attend to position 3 (*on*), it would learn to copy the answer, and at generation time,
# when *on* does not exist yet, it would have nothing to copy. So position $t$ may only see positions $\le t$.
#
# For scores we take six tokens with random embeddings of width 8 and one attention layer from the package,
# `ac.init_multihead(d_model=8, n_heads=1)`. With one head, `ac.multi_head_attention` is the attention of notebooks
# 01–02 followed by an output matrix $W^O$ (with a bias after each projection), as the cell checks (several heads are notebook 06's subject).

# %% [markdown] lang="zh"
# 如果位置 2（“在”）能关注位置 3（“垫子”），它学会的就是抄答案；到了生成的时候，“垫子”还不存在，也就无从抄起。
# 所以位置 $t$ 只能看到 $\le t$ 的位置。
#
# 分数来自六个 token 的随机嵌入（维度为 8）和包里的一层注意力 `ac.init_multihead(d_model=8, n_heads=1)`。只有一个头时，
# `ac.multi_head_attention` 就是 01–02 节的注意力再乘输出矩阵 $W^O$（每次投影之后都加一个偏置），下面的单元格会验证这一点（多个头是 06 节的内容）。

# %%
x = rng.normal(size=(6, 8))                                  # [en] (T=6, D=8): stand-ins for the tokens' embeddings [zh] (T=6, D=8)：代替各 token 的嵌入
layer = ac.init_multihead(d_model=8, n_heads=1, seed=0)      # [en] one attention layer, one head, seeded weights [zh] 一层注意力，一个头，权重由种子生成
q = x @ layer.w_q + layer.b_q                                # [en] (T, Dk): what each token looks for [zh] (T, Dk)：每个 token 要找什么
k = x @ layer.w_k + layer.b_k                                # [en] (T, Dk): how each token can be found [zh] (T, Dk)：每个 token 凭什么被找到
v = x @ layer.w_v + layer.b_v                                # [en] (T, Dv): what each token hands over [zh] (T, Dv)：每个 token 交出什么
scores = ac.attention_scores(q, k)                           # (Tq, Tk) = Q K^T / sqrt(Dk)
one_head = ac.multi_head_attention(x, x, x, layer)[0]        # [en] (T, D): the layer, as the package runs it [zh] (T, D)：包里实际运行的这一层
by_hand = ac.scaled_dot_product_attention(q, k, v)[0] @ layer.w_o + layer.b_o   # [en] attention of 01-02, then W_o [zh] 01-02 的注意力，再乘 W_o
print("[en]one head = softmax(Q K^T / sqrt(d_k)) V, then W_o:[zh]一个头 = softmax(Q K^T / sqrt(d_k)) V，再乘 W_o：", np.allclose(one_head, by_hand))
print(scores)

# %% [markdown] lang="en"
# ## The causal mask, step by step
#
# The tutorial *Attention in Transformers, from intuition to formula* [“Transformer Attention 机制入门：从直觉到公式”]
# writes the rule as a case distinction on the scores, before softmax:
#
# $$\text{masked}_{ij} = \begin{cases} \dfrac{q_i \cdot k_j}{\sqrt{d_k}}, & j \le i \\[4pt] -\infty, & j > i \end{cases}$$
#
# This mask is the **causal mask**, also called the **look-ahead mask**. In `attention_core` a mask is a boolean
# array, `True` where query $i$ **may** attend to key $j$ (the convention of PyTorch's `scaled_dot_product_attention`).
# `ac.causal_mask(T)` is the lower triangle, diagonal included; `ac.additive_mask` turns it into the numbers added to
# the scores.

# %% [markdown] lang="zh"
# ## 逐步构造因果掩码
#
# 《Transformer Attention 机制入门：从直觉到公式》把这条规则写成 softmax 之前对分数的分情况定义：
#
# $$\text{masked}_{ij} = \begin{cases} \dfrac{q_i \cdot k_j}{\sqrt{d_k}}, & j \le i \\[4pt] -\infty, & j > i \end{cases}$$
#
# 这种掩码叫**因果掩码**，也叫**前瞻掩码**（look-ahead mask）。在 `attention_core` 里，掩码是一个布尔数组，
# Query $i$ **可以**关注 Key $j$ 的地方为 `True`，与 PyTorch 的 `scaled_dot_product_attention` 约定相同。
# `ac.causal_mask(T)` 是包括对角线在内的下三角，`ac.additive_mask` 把它变成加到分数上的数。

# %%
mask = ac.causal_mask(6)                                     # [en] (Tq, Tk) bool, True = may attend [zh] (Tq, Tk) 布尔型，True = 可以关注
print("[en]boolean mask (1 = may attend):[zh]布尔掩码（1 = 可以关注）：")
print(mask.astype(int))
print("[en]additive mask (added to the scores):[zh]加性掩码（加到分数上）：")
print(ac.additive_mask(mask))

# %%
ax = plots.plot_mask(mask, tokens)

# %% [markdown] lang="en"
# ### The mask as a decision, pair by pair
#
# The same tutorial draws the rule as a flowchart: the query at position $i$ asks one question of every key $j$.
#
# ```mermaid
# flowchart TD
#     A["query at position i"] --> B{"key position j ≤ i?"}
#     B -- yes --> C["score normally: q_i · k_j / √d_k"]
#     B -- no --> D["fill −∞"]
#     C --> E["softmax of row i"]
#     D --> E
#     E --> F["weights only from the past"]
# ```
#
# `decision.causal_decision(scores, i, j)` follows one pair through it. Two pairs, one on each branch:

# %% [markdown] lang="zh"
# ### 逐对判断：把掩码画成流程图
#
# 同一篇教程还把这条规则画成了流程图：位置 $i$ 的 Query 对每个 Key $j$ 只问一个问题。
#
# ```mermaid
# flowchart TD
#     A["位置 i 的 Query"] --> B{"Key 的位置 j ≤ i？"}
#     B -- 是 --> C["正常打分：q_i · k_j / √d_k"]
#     B -- 否 --> D["填 -∞"]
#     C --> E["对第 i 行做 softmax"]
#     D --> E
#     E --> F["权重仅来自过去"]
# ```
#
# `decision.causal_decision(scores, i, j)` 带着一对位置走一遍这张图。下面两对各走一条分支：

# %%
for i, j in ((4, 2), (2, 4)):
    pair = decision.causal_decision(scores, i, j)                # [en] one (query, key) pair through the flowchart [zh] 一对 (Query, Key) 走一遍流程图
    branch = "[en]j <= i: score normally; [zh]j <= i：正常打分；" if pair["branch"] == "score" else "[en]j > i: fill -inf; [zh]j > i：填 -inf；"
    print(f"i = {i}, j = {j}: {branch}" + f"[en]score {pair['score']:.3f} -> softmax sees {pair['masked_score']:.3f}[zh]分数 {pair['score']:.3f} -> softmax 看到的是 {pair['masked_score']:.3f}")
    print("[en]   row of weights:[zh]   这一行的权重：", pair["weights"], f"[en] weight of key {j} = {pair['weight']:.3f}, sum {pair['weights'].sum():.3f}[zh] Key {j} 的权重 = {pair['weight']:.3f}，和为 {pair['weights'].sum():.3f}")
ax = decision.plot_decision_flowchart(decision.causal_decision(scores, 2, 4), tokens)

# %% [markdown] lang="en"
# Both branches meet in the softmax of row $i$: $(4, 2)$ keeps its score and gets a positive weight, $(2, 4)$ gets
# $-\infty$ and a weight of exactly 0, and the row sums to 1 over the keys $0 \dots i$.
#
# **Try it.** Choose $i$ and $j$; the highlighted path is the pair's branch, the bars are row $i$ after softmax. First
# predict: for $i = 0$, how many bars are not $-\infty$? Which $j$ is never filled with $-\infty$?

# %% [markdown] lang="zh"
# 两条分支在第 $i$ 行的 softmax 处汇合。$(4, 2)$ 保留分数，得到正的权重；$(2, 4)$ 得到 $-\infty$，权重严格为 0；
# 这一行在 Key $0 \dots i$ 上的权重之和为 1。
#
# **动手试试**。选择 $i$ 和 $j$，高亮的路径是这一对走的分支，柱状图是第 $i$ 行 softmax 之后的权重。先预测一下：$i = 0$ 时有几根柱子不是 $-\infty$？
# 哪个 $j$ 永远不会被填成 $-\infty$？

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
decision.causal_decision_widget(scores, tokens, i=2, j=4)

# %% [markdown] lang="en"
# <details><summary>Check your predictions</summary>
#
# For $i = 0$ only key 0 is visible: one bar, weight exactly 1. Key $j = 0$ is never filled, since $0 \le i$ for every
# $i$; the diagonal ($j = i$) is always kept too.
# </details>

# %% [markdown] lang="zh"
# <details><summary>核对你的预测</summary>
#
# $i = 0$ 时只有 Key 0 可见，只有一根柱子，权重严格为 1。Key $j = 0$ 永远不会被填，因为对每个 $i$ 都有 $0 \le i$；对角线（$j = i$）也总是保留的。
# </details>

# %% [markdown] lang="en"
# Follow one query, *sat* (row 2), through softmax. Its three hidden scores become $-\infty$, stay $-\infty$ after
# subtracting the row maximum, and $e^{-\infty} = 0$ exactly: zeros by construction, and the visible weights still
# sum to 1.

# %% [markdown] lang="zh"
# 以 Query“在”（第 2 行）为例，走一遍 softmax。它的三个被屏蔽的分数变成 $-\infty$，减去行最大值后仍是 $-\infty$，
# 而 $e^{-\infty} = 0$ 严格成立。这些 0 是构造出来的，可见的权重之和仍然是 1。

# %%
steps = masking_lab.masked_softmax_steps(scores, mask)       # [en] every intermediate, (T, T) each [zh] 每个中间结果，各为 (T, T)
row = 2
for key, name in (("[en]scores[zh]分数", "scores"), ("[en]+ additive mask[zh]+ 加性掩码", "masked"),
                  ("[en]- row max[zh]- 行最大值", "shifted"), ("[en]exp[zh]exp", "exp")):
    print(pad_text(key, 16), steps[name][row] if name != "scores" else scores[row])
print(pad_text("[en]weights[zh]权重", 16), steps["weights"][row], f"[en]  sum = {steps['weights'][row].sum():.3f}[zh]  和 = {steps['weights'][row].sum():.3f}")

# %%
out, weights = ac.scaled_dot_product_attention(q, k, v, mask=mask)   # (T, Dv), (T, T)
print(f"[en]hidden cells: {int((~mask).sum())}   weights exactly 0: {int((weights == 0).sum())}   all of them hidden: {bool((weights[~mask] == 0).all())}[zh]被屏蔽的格子：{int((~mask).sum())}   严格为 0 的权重：{int((weights == 0).sum())}   它们都是被屏蔽的：{bool((weights[~mask] == 0).all())}")
print("[en]row sums:[zh]每行之和：", weights.sum(axis=1))
print(f"[en]same as the step-by-step version: {np.allclose(weights, steps['weights'])}   same as ac.softmax(scores, mask=mask): {np.allclose(weights, ac.softmax(scores, mask=mask))}[zh]与逐步计算的结果相同：{np.allclose(weights, steps['weights'])}   与 ac.softmax(scores, mask=mask) 相同：{np.allclose(weights, ac.softmax(scores, mask=mask))}")
ax = plots.attention_heatmap(weights, tokens)

# %% [markdown] lang="en"
# Why $-\infty$ and not "a very negative number"? A moderate fill leaks: with $-10$ a future key still gets up to
# $7.2 \times 10^{-5}$. A huge one ($-10^9$) underflows to exactly 0 here and many implementations use it; $-\infty$
# says what is meant (where the two differ comes below).

# %% [markdown] lang="zh"
# 为什么用 $-\infty$，而不是“一个很负的数”？填充值不够负，就会漏进权重：填 $-10$ 时，未来的 Key 仍能分到最多 $7.2 \times 10^{-5}$ 的权重。
# 非常负的值（$-10^9$）在这里会下溢为严格的 0，很多实现也这样用；$-\infty$ 则把意思说得最直接（两者的区别见下文）。

# %%
for name, fill in (("-10", -10.0), ("-1e9", -1e9), ("-inf", -np.inf)):
    w = masking_lab.naive_masked_softmax(scores, mask, fill=fill)        # [en] hidden scores set to `fill` [zh] 被屏蔽的分数设为 `fill`
    print(f"[en]fill {name:>5}: largest weight on a future key = {w[~mask].max():.1e}[zh]填入 {name:>5}：未来 Key 上的最大权重 = {w[~mask].max():.1e}")


# %% [markdown] lang="en"
# ## Proof by experiment: without the mask, the future leaks
#
# Claim: with the causal mask, the output at position $t$ does not depend on any token after $t$. Replace one token
# by a random one, rerun the layer, and measure how far each output moves. Row $t$, column $s$ of the table holds the
# largest change of output $t$ when token $s$ is replaced; a cell is **exactly 0** only when $t$ cannot see $s$.

# %% [markdown] lang="zh"
# ## 用实验证明：不加掩码，未来就会泄露
#
# 要证明的是：加了因果掩码，位置 $t$ 的输出与 $t$ 之后的 token 都无关。把一个 token 换成随机的另一个，重新运行这一层，看每个输出变了多少。
# 表中第 $t$ 行、第 $s$ 列是替换 token $s$ 时输出 $t$ 的最大变化；只有当 $t$ 完全看不到 $s$ 时，这一格才**严格为 0**。

# %%
def run_layer(x, mask=None):
    return ac.multi_head_attention(x, x, x, layer, mask=mask)[0]    # (T, D)

no_mask = masking_lab.influence_matrix(lambda z: run_layer(z), x, seed=1)              # (T, T)
causal = masking_lab.influence_matrix(lambda z: run_layer(z, mask), x, seed=1)         # (T, T)
s = 4                                                         # [en] replace token 4 ("the") [zh] 替换 token 4（“上”）
print(f"[en]replace token {s} (“{tokens[s]}”): change of each output t = 0..5[zh]替换 token {s}（“{tokens[s]}”）：每个输出 t = 0..5 的变化")
print("  " + pad_text("[en]no mask[zh]不加掩码", 12), no_mask[:, s])
print("  " + pad_text("[en]causal mask[zh]因果掩码", 12), causal[:, s])
print(f"[en]largest change of an output by a LATER token:  no mask {no_mask[~mask].max():.3f}   causal mask {causal[~mask].max():.3f}[zh]某个输出因它后面的 token 而产生的最大变化：不加掩码 {no_mask[~mask].max():.3f}   因果掩码 {causal[~mask].max():.3f}")
print("[en]non-zero pattern of the causal table == the causal mask:[zh]因果表中非零的位置 == 因果掩码：", np.array_equal(causal > 0, mask))

# %%
fig = masking_lab.plot_influence([no_mask, causal], tokens,
                                 titles=["[en]no mask[zh]不加掩码", "[en]causal mask[zh]因果掩码"])

# %% [markdown] lang="en"
# Without a mask every cell is non-zero: replacing *the* (token 4) moves the output of *The* (position 0) by 0.144.
# With the causal mask the upper triangle is exactly 0, and the non-zero cells are exactly the mask's lower triangle.
# The mask is a hard wall, not a hint. (The last row is the same in both: the last position sees everything anyway.)

# %% [markdown] lang="zh"
# 不加掩码时每一格都不为零，替换“上”（token 4）会让“小猫”（位置 0）的输出变化 0.144。加上因果掩码，整个上三角严格为 0，
# 非零的格子恰好就是掩码的下三角。掩码是一堵硬墙，而不是给模型的提示。（两张表的最后一行相同，因为最后一个位置本来就能看到全部。）

# %% [markdown] lang="en"
# ## Padding: batches of sequences of different lengths
#
# A batch is one $(B, T, D)$ array, so shorter sequences are **padded** to the longest length. The padded rows are
# ordinary numbers (zeros here) that attention would happily mix in. A **padding mask** hides them:
# `ac.padding_mask(lengths)` has shape $(B, 1, T_k)$, one row per sequence, broadcast over its queries.

# %% [markdown] lang="zh"
# ## 填充：长度不同的一批序列
#
# 一批数据是一个 $(B, T, D)$ 数组，所以较短的序列要**填充**到最长的长度。填充出来的行也是普通的数（这里是 0），注意力会毫不犹豫地把它们混进来。
# **填充掩码**负责屏蔽它们：`ac.padding_mask(lengths)` 的形状是 $(B, 1, T_k)$，每条序列一行，沿该序列的所有 Query 广播。

# %%
sequences = [rng.normal(size=(n, 8)) for n in (6, 4, 2)]     # [en] three sequences of lengths 6, 4, 2 [zh] 三条序列，长度为 6、4、2
batch, lengths = masking_lab.pad_batch(sequences)             # [en] (B=3, T=6, D=8), zeros appended [zh] (B=3, T=6, D=8)，末尾补 0
pad = ac.padding_mask(lengths)                               # (B, 1, Tk)
print(f"[en]lengths {lengths}   batch {batch.shape}   padding mask {pad.shape}[zh]长度 {lengths}   批次 {batch.shape}   填充掩码 {pad.shape}")
print(pad.astype(int))

# %% [markdown] lang="en"
# The test of a padding mask: a sequence's output inside the padded batch must equal its output computed alone.

# %% [markdown] lang="zh"
# 检验填充掩码的办法是：一条序列放进填充后的批次算出的输出，必须与它单独计算时相同。

# %%
with_pad, _ = ac.multi_head_attention(batch, batch, batch, layer, mask=pad)     # (B, T, D)
without, w_without = ac.multi_head_attention(batch, batch, batch, layer)        # [en] pads visible; (B, H, T, T) [zh] 填充可见；(B, H, T, T)
for b, seq in enumerate(sequences):
    alone = run_layer(seq)                                                       # [en] (T_b, D), no padding at all [zh] (T_b, D)，完全没有填充
    n = len(seq)
    print(f"[en]sequence {b} (length {n}): max |batch - alone| with padding mask {np.abs(with_pad[b, :n] - alone).max():.3f},  without {np.abs(without[b, :n] - alone).max():.3f}  (weight on the pads without: up to {w_without[b, 0, :n, n:].sum(axis=-1).max():.2f})[zh]序列 {b}（长度 {n}）：max |批次 - 单独| 加填充掩码时 {np.abs(with_pad[b, :n] - alone).max():.3f}，不加时 {np.abs(without[b, :n] - alone).max():.3f}（不加时落在填充上的权重最多 {w_without[b, 0, :n, n:].sum(axis=-1).max():.2f}）")

# %% [markdown] lang="en"
# With the padding mask the batched outputs are the sequences' own (difference 0.000); without it, the two-token
# sequence is off by 0.865, its queries having spent up to 0.74 of their attention on rows of zeros. (The outputs at
# the padded positions are computed too and ignored by the loss.)

# %% [markdown] lang="zh"
# 加了填充掩码，批次里的输出就是各条序列自己的输出（差为 0.000）。不加的话，两个 token 的那条序列偏差达 0.865，
# 因为它的 Query 把最多 0.74 的注意力花在了填充位置上（它们的输入是全零向量）。（填充位置本身的输出也会算出来，只是计算损失时跳过。）

# %% [markdown] lang="en"
# ### Combining masks
#
# A decoder batch needs both masks. A key is visible only if **every** mask allows it, so combining is a logical AND
# with broadcasting: `ac.combine_masks` turns the causal $(T_q, T_k)$ and the padding $(B, 1, T_k)$ into one
# $(B, T_q, T_k)$ mask. A window works the same way.
#
# In this course a **window of $w$** means the $w$ keys a query
# sees, itself included: `ac.sliding_window_mask(6, 3)` shows each query itself and the 2 tokens before it. With
# `causal=False` the band is symmetric, $|i - j| < 3$: $2 \cdot 3 - 1 = 5$ keys away from the ends of the sequence;
# ANDed with the causal mask, it leaves the same 3.

# %% [markdown] lang="zh"
# ### 组合掩码
#
# 解码器的一批数据两种掩码都需要。只有**每个**掩码都允许时 Key 才可见，所以组合就是带广播的逻辑与：`ac.combine_masks` 把因果掩码
# $(T_q, T_k)$ 和填充掩码 $(B, 1, T_k)$ 合成一个 $(B, T_q, T_k)$ 的掩码。窗口也是这样组合的。
#
# 本课程说“窗口为 $w$”，指的是一个 Query 能看到的 $w$ 个 Key，包括它自己：`ac.sliding_window_mask(6, 3)` 让每个 Query 看到自己和前面 2 个 token。
# 传入 `causal=False` 得到的是对称的带状区域 $|i - j| < 3$，不靠序列两端时共 $2 \times 3 - 1 = 5$ 个 Key；它与因果掩码相与，剩下的还是这 3 个。

# %%
both = ac.combine_masks(ac.causal_mask(6), pad)                                  # (B, Tq, Tk)
print(f"[en]causal {ac.causal_mask(6).shape} AND padding {pad.shape} -> {both.shape}[zh]因果掩码 {ac.causal_mask(6).shape} 与填充掩码 {pad.shape} 相与 -> {both.shape}")
print("[en]keys visible to each query of sequence 1 (length 4):[zh]序列 1（长度 4）中每个 Query 可见的 Key 数：", both[1].sum(axis=1))
sliding = ac.sliding_window_mask(6, 3)                                           # [en] causal window of 3 keys [zh] 因果窗口，3 个 Key
band = ac.sliding_window_mask(6, 3, causal=False)                                # [en] symmetric: |i - j| < 3 [zh] 对称：|i - j| < 3
print(f"[en]query 3 sees {int(sliding[3].sum())} keys in the window of 3 and {int(band[3].sum())} in the symmetric band[zh]窗口为 3 时 Query 3 看到 {int(sliding[3].sum())} 个 Key，对称带状区域下看到 {int(band[3].sum())} 个")
print("[en]causal AND symmetric band == window 3:[zh]因果掩码与对称带状区域相与 == 窗口 3：",
      np.array_equal(ac.combine_masks(ac.causal_mask(6), band), sliding))
words = [tokens, "[en]A dog ran home[zh]小狗 跑 回 家".split(), "[en]Hi there[zh]你好 呀".split()]   # [en] each sequence's own words [zh] 每条序列自己的词
padded_words = [w + ["<pad>"] * (len(tokens) - len(w)) for w in words]            # [en] ... and its pads [zh] ……以及它的填充
fig = masking_lab.plot_mask_grid(list(both), padded_words,
                                 titles=[f"[en]sequence {b}, length {n}[zh]序列 {b}，长度 {n}" for b, n in enumerate(lengths)])

# %% [markdown] lang="en"
# ## A row with nothing to see
#
# Combined masks can hide **every** key from a query. For batched generation, prompts are usually padded on the
# **left**, so that they all end in the last column; with a causal mask on top, a pad near the start may only look
# at keys that are pads themselves. Below, sequence 1 has 3 pads, then 3 real tokens; its queries 0, 1, 2 see nothing.

# %% [markdown] lang="zh"
# ## 什么都看不见的一行
#
# 组合掩码可能把某个 Query 的**所有** Key 都屏蔽掉。批量生成时，提示词通常在**左侧**填充，好让它们都在最后一列结束；
# 再叠加因果掩码，靠前的填充位置能看的 Key 就全是填充。下面的序列 1 先有 3 个填充位，后面是 3 个真实 token，它的 Query 0、1、2 什么都看不见。

# %%
left_pad = ac.padding_mask([6, 3])[..., ::-1]                 # [en] (B=2, 1, Tk): real tokens at the END of each row [zh] (B=2, 1, Tk)：真实 token 在每行的末尾
left_both = ac.combine_masks(ac.causal_mask(6), left_pad)    # (B, Tq, Tk)
print("[en]sequence 1, left-padded + causal (1 = may attend):[zh]序列 1，在左侧填充 + 因果（1 = 可以关注）：")
print(left_both[1].astype(int))
print("[en]keys visible to each query:[zh]每个 Query 可见的 Key 数：", left_both[1].sum(axis=1))

# %% [markdown] lang="en"
# The hand-written masked softmax takes the row maximum of $[-\infty, \dots, -\infty]$, which is $-\infty$, then
# computes $-\infty - (-\infty)$ = NaN, and everything after it is NaN. `attention_core` gives such a query all-zero
# weights and output: it may see nothing, so it takes nothing.

# %% [markdown] lang="zh"
# 照公式手写一个带掩码的 softmax，它会对 $[-\infty, \dots, -\infty]$ 取行最大值得到 $-\infty$，再算 $-\infty - (-\infty)$，
# 得到 NaN。从这里开始，之后的一切都是 NaN。`attention_core` 则让这样的 Query 得到全零的权重和输出，什么都不能看，就什么也不取。

# %%
m1 = left_both[1]                                                                 # (Tq, Tk)
naive_out, naive_w = masking_lab.naive_masked_attention(x, x, x, m1)             # [en] the hand-written formula [zh] 手写的公式
lib_out, lib_w = ac.scaled_dot_product_attention(x, x, x, mask=m1)               # attention_core
print("[en]naive weights, rows 0-3:[zh]朴素实现的权重，第 0–3 行：")
print(naive_w[:4])
print("[en]attention_core weights, rows 0-3:[zh]attention_core 的权重，第 0–3 行：")
print(lib_w[:4])
print(f"[en]attention_core output rows 0-2 all zero: {bool((lib_out[:3] == 0).all())}   NaN anywhere: {bool(np.isnan(lib_out).any())}[zh]attention_core 输出的第 0–2 行全为 0：{bool((lib_out[:3] == 0).all())}   有没有 NaN：{bool(np.isnan(lib_out).any())}")

# %% [markdown] lang="en"
# Why not ignore the NaN rows, since they are padding? Because NaN spreads: in the next layer the real tokens give
# those positions a weight of exactly 0, but $0 \times \text{NaN} = \text{NaN}$, so every real token becomes NaN too.
# The $-10^9$ fill avoids the NaN but quietly spreads the empty rows over keys they must not see, the future included:

# %% [markdown] lang="zh"
# 这些 NaN 行反正是填充，为什么不干脆忽略？因为 NaN 会扩散。下一层里真实 token 给这些位置的权重严格为 0，可
# $0 \times \text{NaN} = \text{NaN}$，于是每个真实 token 也都成了 NaN。填 $-10^9$ 能避开 NaN，却会悄悄把空行的权重摊到它们不该看的
# Key 上，包括未来的 Key：

# %%
naive_2, _ = masking_lab.naive_masked_attention(naive_out, naive_out, naive_out, m1)   # [en] layer 1: a second layer (numbered from 0) [zh] 第 1 层（从 0 编号，即第二层）
lib_2, _ = ac.scaled_dot_product_attention(lib_out, lib_out, lib_out, mask=m1)
for n_layer, (a, b) in ((0, (naive_out, lib_out)), (1, (naive_2, lib_2))):
    print(f"[en]rows with NaN after layer {n_layer}:  naive {int(np.isnan(a).any(axis=1).sum())}   attention_core {int(np.isnan(b).any(axis=1).sum())}[zh]第 {n_layer} 层之后含 NaN 的行：朴素实现 {int(np.isnan(a).any(axis=1).sum())}   attention_core {int(np.isnan(b).any(axis=1).sum())}")
print("[en]fill -1e9, row 0:[zh]填入 -1e9，第 0 行：", masking_lab.naive_masked_softmax(ac.attention_scores(x, x), m1, fill=-1e9)[0])

# %% [markdown] lang="en"
# The library's rule is in its readable softmax, `ac.reference_softmax`, printed below. The `softmax_rows` that
# notebook 01's `reference_attention` calls is this same body without the entry checks: inside attention, hidden keys
# arrive as $-\infty$, and a fully hidden row is shifted by 0 instead of $-\infty$ and divided by 1 instead of 0, so it
# comes out as zeros. Called directly, `ac.reference_softmax` refuses $-\infty$ at its entry and asks for `mask=`
# instead; from outside, a fully hidden row is written `ac.softmax(x, mask=...)`, as the last line shows.

# %% [markdown] lang="zh"
# 库里的规则写在它的可读版 softmax，即下面打印的 `ac.reference_softmax` 里。01 节的 `reference_attention` 调用的 `softmax_rows`
# 就是它去掉入口检查后的版本：在注意力内部，被屏蔽的 Key 以 $-\infty$ 的形式传进来；整行都被屏蔽时，减去 0 而不是 $-\infty$，
# 除以 1 而不是 0，所以结果是全零。直接调用 `ac.reference_softmax` 时，入口会拒绝 $-\infty$，并提示改用 `mask=`。
# 在外面要表示整行被屏蔽，就写 `ac.softmax(x, mask=...)`，见最后一行输出。

# %%
print(formula.source(ac.reference_softmax))
print("[en]every position hidden:[zh]整行都被屏蔽：", ac.softmax(np.array([1.0, 2.0]), mask=np.array([False, False])))

# %% [markdown] lang="en"
# ## Try it: choose the mask
#
# The same scores under every kind of mask; grey cells are hidden. Try:
# - **causal**: the first query sees 1 key, the last sees all 6;
# - **padding** with length 4: the last two columns turn grey for every query;
# - **sliding window** 3: each query sees 3 keys, itself and the 2 tokens before it, a band (notebook 10 returns to it);
# - **causal + padding** with length 1: every query sees only *The*.

# %% [markdown] lang="zh"
# ## 动手试试：选择掩码
#
# 同一组分数换上各种掩码，灰色格子表示被屏蔽。试试：
# - **因果**：第一个 Query 只看到 1 个 Key，最后一个看到全部 6 个；
# - **填充**：长度设为 4，最后两列对每个 Query 都变灰；
# - **滑动窗口**：窗口设为 3，每个 Query 看到 3 个 Key，即自己和前面 2 个 token，形成一条斜带（10 节还会讲到）；
# - **因果 + 填充**：长度设为 1，每个 Query 都只能看到“小猫”。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
widgets.mask_widget(labels=tokens, scores=scores)

# %% [markdown] lang="en"
# ## Inference still needs the mask
#
# A common belief: "the mask is a training trick; at inference the future does not exist yet." Run inference as a
# real model does: the prompt (the first 4 tokens) **in one pass**, then each new token alone. The keys and values of
# earlier tokens are kept in a **KV cache**; a step with $T_q$ new tokens and $T_k$ keys in all (cache and new) uses
# `ac.causal_mask(Tq, Tk, offset=Tk - Tq)`. The whole loop (`params` is one layer, as below, or a list of layers;
# the entry turns it into a list):

# %% [markdown] lang="zh"
# ## 推理时仍然需要掩码
#
# 一种常见的看法是：掩码只是训练时的技巧，因为推理时未来的 token 还不存在。我们按真实模型的方式跑一遍推理：提示词（前 4 个 token）
# **一次**处理完，之后每个新 token 单独处理。之前所有 token 的 Key 和 Value 存在 **KV 缓存**里；如果一步里有 $T_q$ 个新 token、
# 缓存加上新 token 共有 $T_k$ 个 Key，这一步的掩码就是 `ac.causal_mask(Tq, Tk, offset=Tk - Tq)`。完整的循环如下
# （`params` 可以是一层，比如下面的 `layer`，也可以是多层组成的列表，入口会把它统一成列表）：

# %%
print(formula.source(masking_lab.decode_with_kv_cache))

# %%
full = masking_lab.stacked_attention(x, layer, mask=ac.causal_mask(6))          # [en] all six tokens, one pass, masked [zh] 全部六个 token，一次算完，加掩码
cached, steps = masking_lab.decode_with_kv_cache(x, layer, chunks=[4, 1, 1])      # [en] prompt of 4, then 1 + 1 [zh] 4 个 token 的提示词，再 1 + 1
for n, step in enumerate(steps, 1):
    print(f"[en]step {n}: queries {step['start']}..{step['stop'] - 1}, mask {step['mask'].shape}:[zh]第 {n} 步：Query {step['start']}..{step['stop'] - 1}，掩码 {step['mask'].shape}：",
          step["mask"].astype(int).tolist())
print("[en]max |cached - full| =[zh]max |缓存 - 完整| =", np.round(np.abs(cached - full).max(), 12))
for chunks in ([1, 1, 1, 1, 1, 1], [3, 3], [2, 3, 1]):
    other, _ = masking_lab.decode_with_kv_cache(x, layer, chunks=chunks)
    print(f"[en]chunks {chunks}: max |cached - full| =[zh]分组 {chunks}：max |缓存 - 完整| =", np.round(np.abs(other - full).max(), 12))

# %%
ax = masking_lab.plot_cache_steps(steps, tokens)

# %% [markdown] lang="en"
# Decoding with a cache gives **exactly** the full masked outputs (0.0 to 12 decimals), however the tokens are
# grouped. While generating one token at a time the mask is a row of ones: the later keys (hatched) are not in the
# cache yet, so the cache *is* the mask, which is where the belief comes from. But the prompt step (blue) needs the
# $-\infty$ cells, four queries at once, exactly like training. Take the mask away:

# %% [markdown] lang="zh"
# 用缓存逐步解码，不管 token 怎么分组，输出都与完整的带掩码计算**完全相同**（保留 12 位小数后差为 0.0）。
# 一次只生成一个 token 时，掩码只是一行全 1：后面的 Key（图中画斜线的格子）还没进入缓存，缓存本身就起到了掩码的作用。
# “推理时不需要掩码”的说法正是由此而来。可是提示词那一步（蓝色）要让四个 Query 一起处理，离不开掩码里的 $-\infty$，
# 和训练时一模一样。把掩码拿掉看看：

# %%
no_mask_run, _ = masking_lab.decode_with_kv_cache(x, layer, chunks=[4, 1, 1], causal=False)
print("[en]one layer,  |difference| per position:[zh]一层，每个位置的 |差|：", np.abs(no_mask_run - full).max(axis=1))
layers = [ac.init_multihead(d_model=8, n_heads=2, seed=s) for s in (0, 1)]       # [en] a stack of two layers [zh] 两层叠在一起
full_2 = masking_lab.stacked_attention(x, layers, mask=ac.causal_mask(6))
cached_2, _ = masking_lab.decode_with_kv_cache(x, layers, chunks=[4, 1, 1])
no_mask_2, _ = masking_lab.decode_with_kv_cache(x, layers, chunks=[4, 1, 1], causal=False)
print("[en]two layers, with the mask: max |cached - full| =[zh]两层，加掩码：max |缓存 - 完整| =", np.round(np.abs(cached_2 - full_2).max(), 12))
print("[en]two layers, |difference| per position:[zh]两层，每个位置的 |差|：", np.abs(no_mask_2 - full_2).max(axis=1))

# %% [markdown] lang="en"
# Without the mask the prompt's positions 0, 1, 2 see the tokens after them, and their outputs are off (by up to
# 3.093). With one layer the damage stops there; with two, each layer caches keys and values computed from corrupted
# states below it, and **every** position is off, the two generated tokens included (0.370 and 0.637). The mask is part
# of the autoregressive structure, at training and at inference alike. (Notebook 09 measures what the cache costs.)
#
# ### Self-test (Q4)

# %% [markdown] lang="zh"
# 不加掩码，提示词里的位置 0、1、2 就能看到后面的 token，输出随之偏离（最多 3.093）。只有一层时损害到此为止；有两层时，
# 每一层缓存的 Key 和 Value 都由下面一层被污染的状态算出，**每个**位置都偏了，新生成的两个 token 也不例外（0.370 和 0.637）。
# 掩码是自回归结构的一部分，训练和推理都离不开它。（09 节会测量缓存的代价。）
#
# ### 自测题（Q4）

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
quiz.quiz_widget("q4")

# %% [markdown] lang="en"
# ## Exercise 1 · ★☆☆ · about 5 min: write the causal mask
#
# Write `causal_mask(T)`, your own `ac.causal_mask`: a boolean $(T, T)$ array, `True` where query $i$ may attend to
# key $j$, that is $j \le i$. A first attempt often reaches for the wrong triangle; the checker says so in
# plain words:

# %% [markdown] lang="zh"
# ## 练习 1 · ★☆☆ · 约 5 分钟：写出因果掩码
#
# 写出 `causal_mask(T)`，让它和 `ac.causal_mask` 做同一件事：返回一个 $(T, T)$ 的布尔数组，Query $i$ 可以关注 Key $j$
# （即 $j \le i$）的地方为 `True`。第一次写时常常取错三角，检查器会直接指出来：

# %%
def causal_mask_first_try(T):
    return np.triu(np.ones((T, T), dtype=bool))    # [en] the upper triangle: j >= i [zh] 上三角：j >= i

checks.check_causal_mask(causal_mask_first_try)


# %% [markdown] lang="en"
# **Your turn.** Write `causal_mask` below and run the cell. Once it passes, break it on purpose (leave out the
# diagonal with `j < i`, or return integers) and read what the checker says.

# %% [markdown] lang="zh"
# **轮到你了**。写出下面的 `causal_mask` 并运行。通过之后再故意改错，比如用 `j < i` 去掉对角线，或者返回整数，看看检查器怎么说。

# %%
def causal_mask(T):
    """[en] T -> (T, T) boolean mask: True where query i may attend to key j, that is j <= i.
    [zh] T -> (T, T) 布尔掩码：Query i 可以关注 Key j（即 j <= i）处为 True。"""
    # [en] a lower triangle of True, diagonal included [zh] 由 True 组成的下三角，包括对角线
    raise NotImplementedError("[en]build the (T, T) boolean lower triangle[zh]构造 (T, T) 的布尔下三角")

checks.check_causal_mask(causal_mask)

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def causal_mask(T):
#     i = np.arange(T)[:, None]          # (T, 1): query positions
#     j = np.arange(T)[None, :]          # (1, T): key positions
#     return j <= i                      # (T, T) bool; or np.tril(np.ones((T, T), dtype=bool))
# ```
# </details>
#
# A pass looks like this (the library's own function):

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def causal_mask(T):
#     i = np.arange(T)[:, None]          # (T, 1)：Query 的位置
#     j = np.arange(T)[None, :]          # (1, T)：Key 的位置
#     return j <= i                      # (T, T) 布尔型；也可以写 np.tril(np.ones((T, T), dtype=bool))
# ```
# </details>
#
# 通过检查时是这样的（检查的是库里自带的函数）：

# %%
checks.check_causal_mask(ac.causal_mask)


# %% [markdown] lang="en"
# ## Exercise 2 · ★★☆ · about 10 min: write the padding mask
#
# `my_padding_mask(lengths, max_len)` gets the true lengths of a batch (a 1-D integer array) and the padded length,
# and returns what `ac.padding_mask` returns: a boolean $(B, 1, T_k)$ array, True on each sequence's real tokens, False
# on its pads (at the **end**, as `pad_batch` made them).

# %% [markdown] lang="zh"
# ## 练习 2 · ★★☆ · 约 10 分钟：写出填充掩码
#
# `my_padding_mask(lengths, max_len)` 接收一批序列的真实长度（一维整数数组）和填充后的长度，返回与 `ac.padding_mask` 相同的结果，
# 即一个 $(B, 1, T_k)$ 的布尔数组，每条序列真实 token 处为 `True`，填充处为 `False`。填充在序列**末尾**，和上面 `pad_batch` 的做法一样。

# %%
def my_padding_mask(lengths, max_len):
    """[en] lengths (B,) ints, max_len -> (B, 1, max_len) bool: True where key j of sequence b is real (j < lengths[b])
    [zh] lengths (B,) 整数，max_len -> (B, 1, max_len) 布尔型：序列 b 的 Key j 是真实 token（j < lengths[b]）处为 True"""
    raise NotImplementedError("[en]compare the key positions with each length[zh]把 Key 的位置与每条序列的长度比较")

checks.check_padding_mask(my_padding_mask)

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def my_padding_mask(lengths, max_len):
#     j = np.arange(max_len)[None, :]              # (1, Tk): key positions
#     real = j < np.asarray(lengths)[:, None]      # (B, Tk): True on the real tokens
#     return real[:, None, :]                      # (B, 1, Tk): broadcasts over the queries
# ```
# </details>

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def my_padding_mask(lengths, max_len):
#     j = np.arange(max_len)[None, :]              # (1, Tk)：Key 的位置
#     real = j < np.asarray(lengths)[:, None]      # (B, Tk)：真实 token 处为 True
#     return real[:, None, :]                      # (B, 1, Tk)：沿所有 Query 广播
# ```
# </details>

# %% [markdown] lang="en"
# ## Summary
#
# - Position $t$ of a decoder must not see later tokens: the causal mask adds $-\infty$ to those scores, and
#   $e^{-\infty} = 0$ makes their weights exactly 0 (15 of 36 for six tokens); each row still sums to 1.
# - Without the mask a later token moves earlier outputs (by up to 1.499 here); with it the change is exactly 0.
# - Padding masks, shape $(B, 1, T_k)$, give each sequence its own outputs (0.000 instead of 0.865);
#   `ac.combine_masks` ANDs masks.
# - A query that may see nothing gets zeros from `attention_core`; the naive formula gives NaN, which spreads.
# - Inference still needs the mask (Q4): the prompt is processed in one pass, and a KV cache with
#   `ac.causal_mask(Tq, Tk, offset=Tk - Tq)` reproduces the full masked computation exactly.
#
# **Next:** [05 · Self-attention and cross-attention](05_self_and_cross_attention.ipynb).

# %% [markdown] lang="zh"
# ## 小结
#
# - 解码器的位置 $t$ 不能看到后面的 token。因果掩码给这些分数加上 $-\infty$，$e^{-\infty} = 0$ 让它们的权重严格为 0
#   （六个 token 时 36 个里有 15 个），每行之和仍然是 1。
# - 不加掩码时，后面的 token 会改变前面的输出（这里最多 1.499）；加了掩码，变化严格为 0。
# - 形状为 $(B, 1, T_k)$ 的填充掩码让一批中的每条序列得到自己的输出（差为 0.000，不加时为 0.865）；`ac.combine_masks` 对掩码做逻辑与。
# - 什么都看不见的 Query 在 `attention_core` 里得到全零；朴素实现得到 NaN，而且会扩散。
# - 推理时仍然需要掩码（Q4）。提示词一次处理完，带 `ac.causal_mask(Tq, Tk, offset=Tk - Tq)` 的 KV 缓存与完整的带掩码计算结果完全相同。
#
# **下一节**：[05 · 自注意力与交叉注意力](05_self_and_cross_attention.ipynb)。
