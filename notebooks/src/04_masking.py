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
# - explain why a decoder must not see the future, and build the causal (look-ahead) mask that stops it;
# - show that a score of $-\infty$ before softmax becomes a weight of **exactly** 0 after it;
# - batch sequences of different lengths with a padding mask, and combine several masks into one;
# - say what happens to a query that may see no key at all, and why the naive formula turns it into NaN;
# - prove by experiment that without the mask a position's output depends on later tokens, and with it, not at all;
# - answer the self-test question "is the mask still needed at inference?" with a KV cache you ran yourself.
#
# **What you should know first:** softmax and why it never gives an exact zero on its own
# ([03 · Softmax](03_softmax.ipynb)); one attention step ([01 · Query, Key, Value](01_query_key_value.ipynb)).

# %% [markdown] lang="zh"
# # 04 · 掩码
#
# **学完本节，你将能够**
# - 解释解码器为什么不能看到未来，并构造阻止它“偷看”的因果掩码（look-ahead mask）；
# - 说明为什么 softmax 之前的 $-\infty$ 分数，在 softmax 之后会变成**严格等于** 0 的权重；
# - 用填充掩码把长度不同的序列放进同一批，并把几个掩码合成一个；
# - 说清一个“什么都不能看”的 Query 会发生什么，以及朴素写法为什么会把它变成 NaN；
# - 用实验证明：不加掩码时，一个位置的输出会随后面的 token 变化；加了掩码，完全不变；
# - 亲手跑一遍 KV 缓存，回答自测题“推理时还需要掩码吗？”。
#
# **需要的基础**：softmax，以及它自己为什么永远不会给出严格的 0（见 [03 · Softmax](03_softmax.ipynb)）；
# 一步注意力的流程（见 [01 · Query、Key、Value](01_query_key_value.ipynb)）。

# %%
LANG = "[en]en[zh]zh"  # [en] language of this edition: "en" or "zh" [zh] 本版的语言："en" 或 "zh"
# %matplotlib inline
import inspect

import numpy as np

import attention_core as ac
from attention_core.labs.nb04_masking import checks, decision, masking_lab, widgets
from attention_core.teaching import i18n, plots, quiz
from attention_core.teaching.tables import pad as pad_text

i18n.set_language(LANG)
rng = np.random.default_rng(0)  # [en] every random number in this notebook comes from this seed [zh] 本 notebook 的所有随机数都来自这个种子
np.set_printoptions(precision=3, suppress=True)  # [en] arrays print with 3 decimals [zh] 数组打印时保留 3 位小数

# %% [markdown] lang="en"
# ## Why hide the future
#
# A decoder (the part of a Transformer that generates text) is trained to **predict the next token**. Training does
# not feed the sentence one word at a time: it feeds the whole sentence in one pass, and every position
# predicts its successor at the same time. That makes training fast, and it creates a problem: the answer each
# position must predict is sitting in the input, a few columns to the right.

# %% [markdown] lang="zh"
# ## 为什么要屏蔽未来
#
# 解码器（Transformer 里负责生成文本的部分）的训练目标是**预测下一个 token**。训练时并不是一个词一个词地喂，
# 而是把整句话一次性送进去，让每个位置同时预测它的下一个 token。这样训练很快，但也带来一个问题：
# 每个位置要预测的答案，就摆在输入里，往右数几格就是。

# %%
tokens = ["The", "cat", "sat", "on", "the", "mat"]
for t in range(len(tokens) - 1):
    print(f"[en]position {t}: sees {tokens[:t + 1]!s:<34} must predict {repr(tokens[t + 1])}[zh]位置 {t}：能看到 {tokens[:t + 1]!s:<34} 要预测 {repr(tokens[t + 1])}")

# %% [markdown] lang="en"
# If position 2 ("sat") could attend to position 3 ("on"), it would learn to copy the answer instead of learning
# language, and at generation time, when "on" does not exist yet, it would have nothing to copy. So position $t$
# must only see positions $\le t$. We need scores to work with: six tokens with random (seeded) embeddings of
# width 8, and one attention layer that projects them into queries and keys.
#
# The layer comes from the package: `ac.init_multihead(d_model=8, n_heads=1)` holds seeded matrices $W^Q, W^K, W^V$
# and an output projection $W^O$, and `ac.multi_head_attention` runs the attention of notebooks 01–02 with them.
# With **one** head that is all it is, and the cell checks it: the layer's output equals
# $\text{softmax}(QK^\top/\sqrt{d_k})V$ followed by $W^O$. (What several heads add is notebook 06's subject; the two
# layers at the end of this notebook use two heads each, and nothing here depends on it.)

# %% [markdown] lang="zh"
# 如果位置 2（“sat”）能关注位置 3（“on”），它学会的就是照抄答案，而不是语言本身；等到真正生成时，“on”还不存在，
# 它就无从抄起。所以位置 $t$ 只能看到 $\le t$ 的位置。我们先准备一组分数：六个 token，各用一个宽度为 8 的随机嵌入向量
# （固定随机种子）代表，再用一层注意力把它们投影成 Query 和 Key。
#
# 这一层注意力直接取自库：`ac.init_multihead(d_model=8, n_heads=1)` 存着固定随机种子生成的矩阵 $W^Q$、$W^K$、$W^V$
# 和一个输出投影 $W^O$，`ac.multi_head_attention` 用它们执行 01–02 节讲过的注意力。只有**一个**头时，它做的就只是这些，
# 下面的单元格会验证：这一层的输出等于 $\text{softmax}(QK^\top/\sqrt{d_k})V$ 再乘 $W^O$。（多个头会带来什么，是 06 节的内容；
# 本节最后那两层各用了两个头，但这里的结论与头数无关。）

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
# The tutorial “Transformer Attention 机制入门：从直觉到公式” writes the rule as one case distinction on the scores, before softmax:
#
# $$\text{masked}_{ij} = \begin{cases} \dfrac{q_i \cdot k_j}{\sqrt{d_k}}, & j \le i \\[4pt] -\infty, & j > i \end{cases}$$
#
# In `attention_core` a mask is a boolean array, `True` where query $i$ **may** attend to key $j$ (the convention of
# PyTorch's `scaled_dot_product_attention`). `ac.causal_mask(T)` builds the lower triangle, diagonal included (each
# token sees itself); `ac.additive_mask` turns it into the numbers that are added to the scores.

# %% [markdown] lang="zh"
# ## 因果掩码：一步一步来
#
# 《Transformer Attention 机制入门：从直觉到公式》把规则写成对 softmax 之前的分数做的一次分情况处理：
#
# $$\text{masked}_{ij} = \begin{cases} \dfrac{q_i \cdot k_j}{\sqrt{d_k}}, & j \le i \\[4pt] -\infty, & j > i \end{cases}$$
#
# 在 `attention_core` 里，掩码是一个布尔数组：Query $i$ **可以**关注 Key $j$ 的位置为 `True`（与 PyTorch 的
# `scaled_dot_product_attention` 约定相同）。`ac.causal_mask(T)` 构造包含对角线的下三角（每个 token 都能看到自己）；
# `ac.additive_mask` 把它变成要加到分数上的数。

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
# The same tutorial draws the rule as a second flowchart, next to the pipeline flowchart of notebook 02: the query at
# position $i$ asks one question of every key $j$. In this JupyterLab it renders as a diagram; a viewer without Mermaid
# shows its text, which reads the same way.
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
# `decision.causal_decision(scores, i, j)` follows one pair through it and returns the branch taken and the row of
# weights that comes out. Two pairs of the six tokens, one on each branch:

# %% [markdown] lang="zh"
# ### 把掩码看成一次判断，一对一对地来
#
# 同一篇教程在 02 节那张流程图旁边，还把这条规则画成了第二张流程图：位置 $i$ 的 Query 对每个 Key $j$ 只问一个问题。
# 在这个 JupyterLab 里它会显示成图；不支持 Mermaid 的查看器会显示它的文字，按同样的顺序读就行。
#
# ```mermaid
# flowchart TD
#     A["位置 i 的 Query"] --> B{"Key 的位置 j ≤ i？"}
#     B -- 是 --> C["正常打分：q_i · k_j / √d_k"]
#     B -- 否 --> D["填 -∞"]
#     C --> E["对第 i 行做 Softmax"]
#     D --> E
#     E --> F["权重仅来自过去"]
# ```
#
# `decision.causal_decision(scores, i, j)` 带着一对位置走一遍这张图，返回它走的分支，以及最后得到的那一行权重。
# 六个 token 中的两对，各走一条分支：

# %%
for i, j in ((4, 2), (2, 4)):
    pair = decision.causal_decision(scores, i, j)                # [en] one (query, key) pair through the flowchart [zh] 一对 (Query, Key) 走一遍流程图
    branch = "[en]j <= i: score normally[zh]j <= i：正常打分" if pair["branch"] == "score" else "[en]j > i: fill -inf[zh]j > i：填 -inf"
    print(f"i = {i}, j = {j}: {branch};", f"[en]score {pair['score']:.3f} -> softmax sees {pair['masked_score']:.3f}[zh]分数 {pair['score']:.3f} -> softmax 看到的是 {pair['masked_score']:.3f}")
    print("[en]   row of weights:[zh]   这一行的权重：", pair["weights"], f"[en] weight of key {j} = {pair['weight']:.3f}, sum {pair['weights'].sum():.3f}[zh] Key {j} 的权重 = {pair['weight']:.3f}，和为 {pair['weights'].sum():.3f}")
ax = decision.plot_decision_flowchart(decision.causal_decision(scores, 2, 4), tokens)

# %% [markdown] lang="en"
# Both branches meet in the softmax of row $i$: the pair $(4, 2)$ keeps its score and gets a positive weight, the pair
# $(2, 4)$ gets $-\infty$ and a weight of exactly 0, and either way the row sums to 1 over the keys $0 \dots i$.
#
# **Try it.** Choose $i$ and $j$. The highlighted path is the branch the pair takes; the bars are the whole row $i$
# after softmax, key $j$ in orange. Before you move a slider, predict: for $i = 0$, how many bars are not $-\infty$?
# Which $j$ can never be filled with $-\infty$, whatever $i$ is?

# %% [markdown] lang="zh"
# 两条分支在第 $i$ 行的 softmax 处汇合：$(4, 2)$ 这一对保留分数，得到一个正的权重；$(2, 4)$ 这一对得到 $-\infty$，权重严格为 0；
# 无论哪种情况，这一行在 Key $0 \dots i$ 上的权重之和都是 1。
#
# **动手试试**。选择 $i$ 和 $j$。高亮的路径就是这一对走的分支；柱状图是第 $i$ 行经过 softmax 之后的整行权重，Key $j$ 标成橙色。
# 拖动滑块之前先预测一下：$i = 0$ 时，有几根柱子不是 $-\infty$？哪个 $j$ 不管 $i$ 取多少，都永远不会被填成 $-\infty$？

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
decision.causal_decision_widget(scores, tokens, i=2, j=4)

# %% [markdown] lang="en"
# <details><summary>Check your predictions</summary>
#
# For $i = 0$ only key 0 is visible: one bar, with weight exactly 1. Key $j = 0$ is never filled, since $0 \le i$ for
# every $i$: the first token is visible to every query, and the diagonal ($j = i$) is always kept too.
# </details>

# %% [markdown] lang="zh"
# <details><summary>核对你的预测</summary>
#
# $i = 0$ 时只有 Key 0 可见：只有一根柱子，权重严格为 1。Key $j = 0$ 永远不会被填：对每个 $i$ 都有 $0 \le i$，
# 所以第一个 token 对每个 Query 都可见；对角线（$j = i$）也总是保留的。
# </details>

# %% [markdown] lang="en"
# Now follow one query, "sat" (row 2), through softmax. Its three hidden scores become $-\infty$; after subtracting the
# row maximum they stay $-\infty$, and $e^{-\infty} = 0$ exactly. The zeros are not small numbers that happen to round
# to 0: they are zeros by construction, and the visible weights still sum to 1.

# %% [markdown] lang="zh"
# 现在跟着一个 Query，“sat”（行 2，从 0 编号），走一遍 softmax。它被屏蔽的三个分数变成 $-\infty$；减去行最大值之后仍然是 $-\infty$，
# 而 $e^{-\infty} = 0$ 严格成立。这些 0 不是碰巧舍入成 0 的小数，而是构造上就是 0；可见位置的权重之和依然是 1。

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
# Why $-\infty$ and not just "a very negative number"? A moderately negative fill leaks: with $-10$ a future key
# still gets a weight of up to $7.2 \times 10^{-5}$, small but not 0. A huge one ($-10^9$) underflows to exactly 0 here, and many implementations use it; $-\infty$
# says what is meant. (The one place where the two differ, a row with nothing visible, comes below.)

# %% [markdown] lang="zh"
# 为什么用 $-\infty$，而不是“一个很大的负数”？不够大的负数会漏：填 $-10$ 时，未来的 Key 仍能分到最多 $7.2 \times 10^{-5}$ 的权重，很小，但不是 0。
# 极大的负数（$-10^9$）在这里会下溢成严格的 0，很多实现就是这么做的；而 $-\infty$ 把意图直接写了出来。
# （两者唯一不同的地方，是一整行都不可见的情况，下面会讲到。）

# %%
for name, fill in (("-10", -10.0), ("-1e9", -1e9), ("-inf", -np.inf)):
    w = masking_lab.naive_masked_softmax(scores, mask, fill=fill)        # [en] hidden scores set to `fill` [zh] 被屏蔽的分数设为 `fill`
    print(f"[en]fill {name:>5}: largest weight on a future key = {w[~mask].max():.1e}[zh]填入 {name:>5}：未来 Key 上的最大权重 = {w[~mask].max():.1e}")


# %% [markdown] lang="en"
# ## Proof by experiment: without the mask, the future leaks
#
# Claim: with the causal mask, the output at position $t$ does not depend on any token after $t$. Test it directly:
# replace one token by a different (random) one, run the layer again, and measure how far each position's output
# moves. Doing this for every token gives a table: row $t$, column $s$ holds the largest change of output $t$ when
# token $s$ is replaced. A cell is **exactly 0** only when output $t$ cannot see token $s$ at all.

# %% [markdown] lang="zh"
# ## 用实验证明：不加掩码，未来就会泄露
#
# 要验证的说法是：加了因果掩码，位置 $t$ 的输出不依赖 $t$ 之后的任何 token。直接动手检验：
# 把某一个 token 换成另一个（随机的）token，再跑一遍这层注意力，测量每个位置的输出变了多少。
# 对每个 token 都这样做一遍，就得到一张表：第 $t$ 行、第 $s$ 列记录替换 token $s$ 之后输出 $t$ 的最大变化。
# 只有当输出 $t$ 完全看不到 token $s$ 时，这一格才**严格为 0**。

# %%
def run_layer(x, mask=None):
    return ac.multi_head_attention(x, x, x, layer, mask=mask)[0]    # (T, D)

no_mask = masking_lab.influence_matrix(lambda z: run_layer(z), x, seed=1)              # (T, T)
causal = masking_lab.influence_matrix(lambda z: run_layer(z, mask), x, seed=1)         # (T, T)
s = 4                                                         # [en] replace token 4 ("the") [zh] 替换 token 4（"the"）
print(f"[en]replace token {s} ({repr(tokens[s])}): change of each output t = 0..5[zh]替换 token {s}（{repr(tokens[s])}）：每个输出 t = 0..5 的变化")
print("  " + pad_text("[en]no mask[zh]不加掩码", 12), no_mask[:, s])
print("  " + pad_text("[en]causal mask[zh]因果掩码", 12), causal[:, s])
print(f"[en]largest change of an output by a LATER token:  no mask {no_mask[~mask].max():.3f}   causal mask {causal[~mask].max():.3f}[zh]某个输出因它后面的 token 而产生的最大变化：不加掩码 {no_mask[~mask].max():.3f}   因果掩码 {causal[~mask].max():.3f}")
print("[en]non-zero pattern of the causal table == the causal mask:[zh]因果表中非零的位置 == 因果掩码：", np.array_equal(causal > 0, mask))

# %%
fig = masking_lab.plot_influence([no_mask, causal], tokens,
                                 titles=["[en]no mask[zh]不加掩码", "[en]causal mask[zh]因果掩码"])

# %% [markdown] lang="en"
# Without a mask every cell is non-zero: replacing "the" (token 4) moves the output of "The" (position 0) by 0.144.
# With the causal mask the whole upper triangle is exactly 0, not merely small, and the non-zero cells form exactly
# the lower triangle of the mask. The mask is not a hint to the model; it is a hard wall. (The last row is the same
# in both tables: the last position may see everything anyway.)

# %% [markdown] lang="zh"
# 不加掩码时，每一格都不为 0：把“the”（token 4）换掉，“The”（位置 0）的输出就变了 0.144。
# 加了因果掩码，整个上三角严格为 0（不只是很小），非零的格子恰好组成掩码的下三角。
# 掩码不是给模型的提示，而是一堵实打实的墙。（两张表的最后一行相同：最后一个位置本来就能看到全部。）

# %% [markdown] lang="en"
# ## Padding: batches of sequences of different lengths
#
# Hardware wants rectangles: a batch is one $(B, T, D)$ array, so shorter sequences are **padded** to the longest
# length. The padded rows are ordinary numbers (zeros here), and attention would happily mix them in. A **padding
# mask** hides them: `ac.padding_mask(lengths)` has shape $(B, 1, T_k)$, one row per sequence, which broadcasts over
# all the queries of that sequence.

# %% [markdown] lang="zh"
# ## 填充：长度不同的一批序列
#
# 硬件喜欢规整的矩形：一批数据是一个 $(B, T, D)$ 数组，所以较短的序列要**填充**（padding）到最长的长度。
# 填充出来的行也是普通的数（这里是 0），注意力会毫不犹豫地把它们混进来。**填充掩码**负责把它们屏蔽：
# `ac.padding_mask(lengths)` 的形状是 $(B, 1, T_k)$，每条序列一行，并沿该序列的所有 Query 广播。

# %%
sequences = [rng.normal(size=(n, 8)) for n in (6, 4, 2)]     # [en] three sequences of lengths 6, 4, 2 [zh] 三条序列，长度为 6、4、2
batch, lengths = masking_lab.pad_batch(sequences)             # [en] (B=3, T=6, D=8), zeros appended [zh] (B=3, T=6, D=8)，末尾补 0
pad = ac.padding_mask(lengths)                               # (B, 1, Tk)
print(f"[en]lengths {lengths}   batch {batch.shape}   padding mask {pad.shape}[zh]长度 {lengths}   批次 {batch.shape}   填充掩码 {pad.shape}")
print(pad.astype(int))

# %% [markdown] lang="en"
# The test of a padding mask: a sequence's output inside the padded batch must equal its output computed alone,
# without any padding.

# %% [markdown] lang="zh"
# 检验填充掩码的标准是：一条序列在填充后的批次里算出的输出，必须和它单独计算（没有任何填充）时完全一样。

# %%
with_pad, _ = ac.multi_head_attention(batch, batch, batch, layer, mask=pad)     # (B, T, D)
without, w_without = ac.multi_head_attention(batch, batch, batch, layer)        # [en] pads visible; (B, H, T, T) [zh] 填充可见；(B, H, T, T)
for b, seq in enumerate(sequences):
    alone = run_layer(seq)                                                       # [en] (T_b, D), no padding at all [zh] (T_b, D)，完全没有填充
    n = len(seq)
    print(f"[en]sequence {b} (length {n}): max |batch - alone| with padding mask {np.abs(with_pad[b, :n] - alone).max():.3f},  without {np.abs(without[b, :n] - alone).max():.3f}  (weight on the pads without: up to {w_without[b, 0, :n, n:].sum(axis=-1).max():.2f})[zh]序列 {b}（长度 {n}）：max |批次 - 单独| 加填充掩码时 {np.abs(with_pad[b, :n] - alone).max():.3f}，不加时 {np.abs(without[b, :n] - alone).max():.3f}（不加时落在填充上的权重最多 {w_without[b, 0, :n, n:].sum(axis=-1).max():.2f}）")

# %% [markdown] lang="en"
# With the padding mask the batched outputs are the sequences' own outputs (difference 0.000); without it, the
# two-token sequence's outputs are off by 0.865, because its queries spent most of their attention (up to 0.74) on
# four rows of zeros. (The outputs at the padded positions themselves are computed too, and simply ignored: the loss skips them.)

# %% [markdown] lang="zh"
# 加了填充掩码，批次里的输出就是各序列自己的输出（差为 0.000）；不加的话，长度为 2 的序列输出偏差达到 0.865，
# 因为它的 Query 把大部分注意力（最多 0.74）花在了四行零上。（填充位置本身也会算出输出，只是被直接忽略：损失函数跳过它们。）

# %% [markdown] lang="en"
# ### Combining masks
#
# A decoder batch needs both masks: no future, no padding. A key is visible only if **every** mask allows it, so
# combining is a logical AND, with broadcasting: `ac.combine_masks` turns the causal $(T_q, T_k)$ and the padding
# $(B, 1, T_k)$ into one $(B, T_q, T_k)$ mask. The same AND builds other patterns: causal AND a symmetric window
# of 3 is exactly the causal sliding window `ac.sliding_window_mask(6, 3)`.

# %% [markdown] lang="zh"
# ### 组合掩码
#
# 解码器的一批数据两种掩码都需要：不能看未来，也不能看填充。只有**每个**掩码都允许时，一个 Key 才可见，
# 所以组合就是逻辑与（AND），并且支持广播：`ac.combine_masks` 把因果掩码 $(T_q, T_k)$ 和填充掩码 $(B, 1, T_k)$
# 合成一个 $(B, T_q, T_k)$ 的掩码。同样的“与”还能拼出别的模式：因果掩码与宽度为 3 的对称窗口相与，
# 恰好就是因果滑动窗口 `ac.sliding_window_mask(6, 3)`。

# %%
both = ac.combine_masks(ac.causal_mask(6), pad)                                  # (B, Tq, Tk)
print(f"[en]causal {ac.causal_mask(6).shape} AND padding {pad.shape} -> {both.shape}[zh]因果掩码 {ac.causal_mask(6).shape} 与填充掩码 {pad.shape} 相与 -> {both.shape}")
print("[en]keys visible to each query of sequence 1 (length 4):[zh]序列 1（长度 4）中每个 Query 可见的 Key 数：", both[1].sum(axis=1))
window = ac.combine_masks(ac.causal_mask(6), ac.sliding_window_mask(6, 3, causal=False))
print("[en]causal AND symmetric window 3 == causal sliding window 3:[zh]因果掩码与对称窗口 3 相与 == 因果滑动窗口 3：", np.array_equal(window, ac.sliding_window_mask(6, 3)))
words = [tokens, ["A", "dog", "ran", "home"], ["Hi", "there"]]                  # [en] each sequence's own words [zh] 每条序列自己的词
padded_words = [w + ["<pad>"] * (len(tokens) - len(w)) for w in words]            # [en] ... and its pads [zh] ……以及它的填充
fig = masking_lab.plot_mask_grid(list(both), padded_words,
                                 titles=[f"[en]sequence {b}, length {n}[zh]序列 {b}，长度 {n}" for b, n in enumerate(lengths)])

# %% [markdown] lang="en"
# ## A row with nothing to see
#
# Combining masks can hide **every** key from a query. It happens in practice: for batched generation, prompts are
# usually padded on the **left**, so that they all end in the last column. With a causal mask on top, a padding
# position near the start may only look at keys that are themselves padding. Below, sequence 1 has 3 real tokens
# after 3 pads; its queries 0, 1, 2 can see nothing.

# %% [markdown] lang="zh"
# ## 什么都看不见的一行
#
# 组合掩码可能把某个 Query 的**所有** Key 都屏蔽。这在实践中确实会发生：批量生成时，提示词通常在**左侧**填充，
# 好让它们都在最后一列结束。再叠加因果掩码，靠前的填充位置能看的 Key 本身也全是填充。下面的序列 1 有 3 个填充位，
# 后面是 3 个真实 token；它的 Query 0、1、2 什么都看不见。

# %%
left_pad = ac.padding_mask([6, 3])[..., ::-1]                 # [en] (B=2, 1, Tk): real tokens at the END of each row [zh] (B=2, 1, Tk)：真实 token 在每行的末尾
left_both = ac.combine_masks(ac.causal_mask(6), left_pad)    # (B, Tq, Tk)
print("[en]sequence 1, left-padded + causal (1 = may attend):[zh]序列 1，在左侧填充 + 因果（1 = 可以关注）：")
print(left_both[1].astype(int))
print("[en]keys visible to each query:[zh]每个 Query 可见的 Key 数：", left_both[1].sum(axis=1))

# %% [markdown] lang="en"
# The hand-written masked softmax takes the row maximum of $[-\infty, \dots, -\infty]$, which is $-\infty$, and then
# computes $-\infty - (-\infty)$: that is NaN (not a number), and so is everything after it. `attention_core` gives
# such a query all-zero weights and an all-zero output: it takes nothing, because it may see nothing.

# %% [markdown] lang="zh"
# 手写的 masked softmax 会对 $[-\infty, \dots, -\infty]$ 取行最大值，得到 $-\infty$，然后计算 $-\infty - (-\infty)$：
# 结果是 NaN（不是一个数），之后的一切也都成了 NaN。`attention_core` 则让这样的 Query 得到全零的权重和全零的输出：
# 它什么都不能看，所以什么也不取。

# %%
m1 = left_both[1]                                                                 # (Tq, Tk)
naive_out, naive_w = masking_lab.naive_masked_attention(x, x, x, m1)             # [en] the hand-written formula [zh] 手写的公式
lib_out, lib_w = ac.scaled_dot_product_attention(x, x, x, mask=m1)               # attention_core
print("[en]naive weights, rows 0-3:[zh]朴素写法的权重，行 0–3（从 0 编号）：")
print(naive_w[:4])
print("[en]attention_core weights, rows 0-3:[zh]attention_core 的权重，行 0–3：")
print(lib_w[:4])
print(f"[en]attention_core output rows 0-2 all zero: {bool((lib_out[:3] == 0).all())}   NaN anywhere: {bool(np.isnan(lib_out).any())}[zh]attention_core 输出的行 0–2 全为 0：{bool((lib_out[:3] == 0).all())}   任何地方出现 NaN：{bool(np.isnan(lib_out).any())}")

# %% [markdown] lang="en"
# Why not just ignore the NaN rows, since they are padding? Because NaN spreads. In the next layer the real tokens
# give those positions a weight of exactly 0, but $0 \times \text{NaN} = \text{NaN}$, so the weighted sum of every
# real token becomes NaN too. After two layers the whole sequence is lost. The $-10^9$ fill avoids the NaN but
# quietly spreads the empty rows over keys they were told not to see (including the future):

# %% [markdown] lang="zh"
# 既然这些 NaN 行都是填充位，直接忽略不就行了？不行，因为 NaN 会扩散。到了下一层，真实 token 给这些位置的权重严格为 0，
# 可是 $0 \times \text{NaN} = \text{NaN}$，所以每个真实 token 的加权和也变成了 NaN。两层之后，整条序列全军覆没。
# 把分数填成 $-10^9$ 能避开 NaN，却会悄悄地把空行平均分给那些明明不许看的 Key（包括未来的 token）：

# %%
naive_2, _ = masking_lab.naive_masked_attention(naive_out, naive_out, naive_out, m1)   # [en] layer 1: a second layer (numbered from 0) [zh] 第 1 层：第二层（从 0 编号）
lib_2, _ = ac.scaled_dot_product_attention(lib_out, lib_out, lib_out, mask=m1)
for n_layer, (a, b) in ((0, (naive_out, lib_out)), (1, (naive_2, lib_2))):
    print(f"[en]rows with NaN after layer {n_layer}:  naive {int(np.isnan(a).any(axis=1).sum())}   attention_core {int(np.isnan(b).any(axis=1).sum())}[zh]第 {n_layer} 层之后含 NaN 的行：朴素写法 {int(np.isnan(a).any(axis=1).sum())}   attention_core {int(np.isnan(b).any(axis=1).sum())}")
print("[en]fill -1e9, row 0:[zh]填入 -1e9，行 0：", masking_lab.naive_masked_softmax(ac.attention_scores(x, x), m1, fill=-1e9)[0])

# %% [markdown] lang="en"
# The library's rule is written in its readable reference, `ac.reference_attention`, printed below (the fast path
# follows the same rule and is tested equal to it): a fully hidden row gets the maximum 0 instead of $-\infty$ and
# the sum 1 instead of 0, so it comes out as zeros. It is documented in the docstrings and tested in
# `tests/core/test_attention.py`.

# %% [markdown] lang="zh"
# 库里的规则写在它的可读参考实现 `ac.reference_attention` 里，打印在下面（快速路径遵守同一条规则，测试保证两者结果相同）：一整行都被屏蔽时，行最大值取 0 而不是 $-\infty$，
# 总和取 1 而不是 0，于是结果就是全零。这条规则写在文档字符串里，并由 `tests/core/test_attention.py` 测试。

# %%
print(inspect.getsource(ac.reference_attention))

# %% [markdown] lang="en"
# ## Try it: choose the mask
#
# The same six-token scores under every kind of mask. Grey cells are hidden (their score is $-\infty$, their weight 0);
# the readout counts the keys each query may see. Try:
# - **causal**: the first query sees 1 key, the last sees all 6;
# - **padding** with length 4: the last two columns turn grey for every query (the rows of the pads still get weights: they are ignored later);
# - **sliding window** 3: each query sees itself and the 2 tokens before it, a band instead of a triangle
#   (notebook 10 returns to it);
# - **causal + padding**: the AND of the two; with length 1, every query sees only "The".

# %% [markdown] lang="zh"
# ## 动手试试：选择掩码
#
# 同一组六个 token 的分数，换上各种掩码。灰色格子被屏蔽（分数为 $-\infty$，权重为 0）；读数显示每个 Query 能看到几个 Key。试试：
# - **因果**：第一个 Query 只看到 1 个 Key，最后一个看到全部 6 个；
# - **填充**，长度设为 4：最后两列对每个 Query 都变灰（填充位自己那几行照样有权重：之后会被忽略）；
# - **滑动窗口** 3：每个 Query 看到自己和前面 2 个 token，得到一条带状区域而不是三角形（10 节还会讲到它）；
# - **因果 + 填充**：两者的“与”；把长度设为 1，每个 Query 都只能看到“The”。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
widgets.mask_widget(labels=tokens, scores=scores)

# %% [markdown] lang="en"
# ## Inference still needs the mask
#
# A common belief: "the mask is a training trick; at inference the future tokens do not exist yet, so there is
# nothing to hide." Let's run inference the way a real model does. The prompt (here the first 4 tokens) is processed
# **in one pass**, then each new token is processed alone. To avoid recomputing the past, the keys and values of all
# earlier tokens are kept in a **KV cache**; a step with $T_q$ new tokens and $T_k$ cached keys uses
# `ac.causal_mask(Tq, Tk, offset=Tk - Tq)`. Here is the whole loop:

# %% [markdown] lang="zh"
# ## 推理时仍然需要掩码
#
# 一种常见的看法是：“掩码是训练时的技巧；推理时未来的 token 还不存在，没什么可屏蔽的。”我们按真实模型的方式跑一遍推理：
# 提示词（这里是前 4 个 token）**一次性**处理完，之后每个新 token 单独处理。为了不重复计算过去，之前所有 token 的
# Key 和 Value 都存在 **KV 缓存**里；一步里有 $T_q$ 个新 token、缓存中有 $T_k$ 个 Key 时，使用
# `ac.causal_mask(Tq, Tk, offset=Tk - Tq)`。完整的循环如下：

# %%
print(inspect.getsource(masking_lab.decode_with_kv_cache))

# %%
full = masking_lab.stacked_attention(x, layer, mask=ac.causal_mask(6))          # [en] all six tokens, one pass, masked [zh] 全部六个 token，一次算完，加掩码
cached, steps = masking_lab.decode_with_kv_cache(x, layer, chunks=[4, 1, 1])      # [en] prompt of 4, then 1 + 1 [zh] 4 个 token 的提示，再 1 + 1
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
# Decoding with a cache gives **exactly** the outputs of the full masked computation (difference 0.0 after rounding to
# 12 decimals), however the tokens are grouped. The figure puts the three steps into one grid: together they fill
# exactly the causal triangle. While generating one token at a time, the mask is a single row of ones: the later keys
# are hatched, not grey, because they are not in the cache yet. The cache *is* the causal mask there, and that is where
# the belief comes from. But the prompt step (blue) needs the mask's $-\infty$ cells: four queries processed together,
# exactly like training.
# Take the mask away and see what breaks:

# %% [markdown] lang="zh"
# 用缓存逐步解码，得到的输出与完整的带掩码计算**完全相同**（四舍五入到 12 位小数后差为 0.0），不管 token 怎么分组。
# 上图把三步画进同一张网格：它们拼在一起，恰好就是因果三角。一次生成一个 token 时，掩码只是一行全 1：
# 后面的 Key 画的是斜线而不是灰色，因为它们还没进入缓存。这时缓存本身就是因果掩码，那种看法正是由此而来。
# 可是提示词那一步（蓝色）需要掩码的 $-\infty$ 格子：四个 Query 一起处理，和训练时一模一样。
# 把掩码拿掉，看看哪里会出问题：

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
# Without the mask, the prompt's positions 0, 1, 2 see the tokens after them: their outputs are not the ones the model
# was trained to produce (off by up to 3.093). With one layer the damage stops there; a real model has many layers,
# and each layer caches keys and values computed from the corrupted states below it. With two layers, **every**
# position is off, including the two generated tokens (0.370 and 0.637): what the model generates next is built on
# states it never saw in training. The mask is not a training trick: it is part of the autoregressive structure,
# at training and at inference alike.
#
# ### Self-test (Q4)

# %% [markdown] lang="zh"
# 不加掩码，提示词里的位置 0、1、2 就能看到它们后面的 token：它们的输出不再是模型训练时学会产生的那个（偏差最大 3.093）。
# 只有一层时，损害到此为止；可真实模型有很多层，每一层缓存的 Key 和 Value 都是由它下面那一层被污染的状态算出来的。
# 有两层时，**每个**位置都偏了，包括新生成的两个 token（0.370 和 0.637）：模型接下来生成的内容，建立在它训练时从没见过的状态之上。
# 掩码不是训练专属的技巧，而是自回归结构的一部分，训练和推理都一样。
#
# ### 自测题（Q4）

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
quiz.quiz_widget("q4")

# %% [markdown] lang="en"
# ## Exercise 1: write the causal mask
#
# The question below asks you to write the mask yourself, as a boolean $(T, T)$ array, and a checker judges it.

# %% [markdown] lang="zh"
# ## 练习 1：亲手写因果掩码
#
# 下面这道题请你自己写出这个掩码：一个布尔型的 $(T, T)$ 数组，由检查器来评判。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
quiz.quiz_widget("q4b")


# %% [markdown] lang="en"
# A first attempt often reaches for the wrong triangle. The checker says what is wrong in plain words:

# %% [markdown] lang="zh"
# 第一次尝试时，常常会选错三角。检查器会用直白的话指出错在哪里：

# %%
def causal_mask_first_try(T):
    return np.triu(np.ones((T, T), dtype=bool))    # [en] the upper triangle: j >= i [zh] 上三角：j >= i

checks.check_causal_mask(causal_mask_first_try)


# %% [markdown] lang="en"
# **Your turn.** Write `causal_mask` below, run the cell, and read the verdict (until you write it, the checker says
# the function is not implemented; that is expected). Once it passes, break it on purpose: leave out the diagonal
# (`j < i`), or return integers instead of booleans, and read what the checker says.

# %% [markdown] lang="zh"
# **轮到你了**。在下面写出 `causal_mask`，运行单元格，看检查结果（还没写之前，检查器会提示函数尚未实现，这是正常的）。
# 通过之后，再故意改错试试：去掉对角线（`j < i`），或者返回整数而不是布尔值，看看检查器怎么说。

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
# This is what a pass looks like: the library's own function, judged by the same checker.

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
# 通过检查时是这个样子：用同一个检查器来评判库里自带的函数。

# %%
checks.check_causal_mask(ac.causal_mask)


# %% [markdown] lang="en"
# ## Exercise 2: write the padding mask
#
# Now the other mask of this notebook. `my_padding_mask(lengths, max_len)` gets the true lengths of a batch (a 1-D
# integer array) and the padded length, and returns what `ac.padding_mask` returns: a boolean $(B, 1, T_k)$ array,
# True on each sequence's real tokens, False on its pads. The sequences are padded at the **end**, as `pad_batch` did above.

# %% [markdown] lang="zh"
# ## 练习 2：亲手写填充掩码
#
# 再来写本节的另一种掩码。`my_padding_mask(lengths, max_len)` 接收一批序列的真实长度（一维整数数组）和填充后的长度，
# 返回与 `ac.padding_mask` 相同的结果：一个布尔型 $(B, 1, T_k)$ 数组，每条序列的真实 token 处为 True，填充处为 False。
# 和上面的 `pad_batch` 一样，填充加在序列的**末尾**。

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
# - A decoder trained on whole sentences must not let position $t$ see tokens after $t$. The causal mask
#   (`ac.causal_mask`) adds $-\infty$ to those scores before softmax (`ac.additive_mask`), and
#   $e^{-\infty} = 0$ makes their weights exactly 0 (15 zeros out of 36 for six tokens), while each row still sums to 1.
# - Proof by experiment: without the mask, replacing a later token moves earlier outputs (by up to 1.499 here); with it,
#   the change is exactly 0, and the pattern of non-zero changes is the mask itself.
# - Padding masks (`ac.padding_mask`, shape $(B, 1, T_k)$) make a padded batch give each sequence its own outputs
#   (0.000 instead of 0.865); `ac.combine_masks` ANDs masks with broadcasting.
# - A query that may see nothing gets all-zero weights and output from `attention_core`; the naive formula gives NaN,
#   which spreads to every position in the next layer ($0 \times \text{NaN} = \text{NaN}$).
# - Inference still needs the mask (Q4): a KV cache with `ac.causal_mask(Tq, Tk, offset=Tk - Tq)` reproduces the full
#   masked computation exactly; the prompt is processed in one pass, and without the mask it sees its own future,
#   which in a deeper model corrupts every generated token.
#
# **Next:** [05 · Self-attention and cross-attention](05_self_and_cross_attention.ipynb): where Q, K and V come from decides the kind of attention.

# %% [markdown] lang="zh"
# ## 小结
#
# - 用整句训练的解码器，不能让位置 $t$ 看到 $t$ 之后的 token。因果掩码（`ac.causal_mask`）在 softmax 之前给这些分数加上
#   $-\infty$（`ac.additive_mask`），$e^{-\infty} = 0$ 使它们的权重严格为 0（六个 token 时，36 个权重里有 15 个 0），而每行之和仍为 1。
# - 实验证明：不加掩码，替换后面的 token 会改变前面的输出（这里最多 1.499）；加了掩码，变化严格为 0，非零变化的分布恰好就是掩码本身。
# - 填充掩码（`ac.padding_mask`，形状 $(B, 1, T_k)$）让填充后的批次给每条序列算出它自己的输出（差 0.000，而不是 0.865）；
#   `ac.combine_masks` 对多个掩码按广播规则取“与”。
# - 一个什么都不能看的 Query，在 `attention_core` 里得到全零的权重和输出；朴素写法则得到 NaN，并在下一层扩散到每个位置（$0 \times \text{NaN} = \text{NaN}$）。
# - 推理时仍然需要掩码（Q4）：使用 `ac.causal_mask(Tq, Tk, offset=Tk - Tq)` 的 KV 缓存与完整的带掩码计算结果完全相同；
#   提示词是一次性处理的，不加掩码它就会看到自己的未来，在更深的模型里这会污染每一个生成的 token。
#
# **下一节**：[05 · 自注意力与交叉注意力](05_self_and_cross_attention.ipynb)——Q、K、V 从哪里来，决定了注意力的类型。
