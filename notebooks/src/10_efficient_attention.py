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
# # 10 · Efficient attention
#
# **After this notebook you will be able to**
# - compute attention a block of keys at a time with an **online softmax** (the idea behind FlashAttention), show its output equals the naive formula's, and measure its memory: $T$ instead of $T^2$;
# - explain why fused kernels do not return the weights;
# - show what sliding windows, sparse patterns, linear attention and Linformer save and what they change;
# - run the verification method of the tutorial "Attention mechanism" (注意力机制) on a task with a known answer (a "needle in a haystack": one matching token among distractors): accuracy by needle position, peak memory, throughput and p95 latency at 1K, 4K and 16K tokens;
# - say what to check first when speed rises and long-range accuracy falls.
#
# **What you should know first:** the numerically stable softmax ([03 · Softmax](03_softmax.ipynb)); masks and sliding
# windows ([04 · Masking](04_masking.ipynb)); why attention costs $n^2$ pairs
# ([09 · Cost and the context window](09_cost_and_context_window.ipynb)). *About 90 minutes, exercises included.*

# %% [markdown] lang="zh"
# # 10 · 高效注意力
#
# **学完本节，你将能够**
# - 用**在线 softmax** 逐块处理 Key 来计算注意力（这正是 FlashAttention 的思路），验证结果与朴素公式相同，并实测内存随 $T$ 而非 $T^2$ 增长；
# - 解释融合内核为什么不返回权重；
# - 说明滑动窗口、稀疏模式、线性注意力和 Linformer 省下了什么、改变了什么；
# - 在答案已知的“大海捞针”任务上执行《注意力机制》一文的验证方法：在 1K、4K、16K 个 token 上按针的位置统计正确率，并测量峰值内存、吞吐量和 p95 延迟；
# - 说出速度提高而长距离正确率下降时先查什么。
#
# **需要的基础**：数值稳定的 softmax，见 [03 节](03_softmax.ipynb)；掩码与滑动窗口，见 [04 节](04_masking.ipynb)；
# 注意力为什么要算 $n^2$ 个位置对，见 [09 节](09_cost_and_context_window.ipynb)。*约 90 分钟，含练习。*

# %%
LANG = "[en]en[zh]zh"  # [en] language of this edition: "en" or "zh" [zh] 本版的语言："en" 或 "zh"
# %matplotlib inline
import numpy as np

import attention_core as ac
from attention_core.labs.nb04_masking import masking_lab
from attention_core.labs.nb10_efficient_attention import checks, efficient_lab, linear_lab, linformer_lab, widgets
from attention_core.teaching import formula, i18n
from attention_core.teaching.measure import best_time
from attention_core.teaching.tables import pad

i18n.set_language(LANG)
rng = np.random.default_rng(0)  # [en] every random number in this notebook comes from this seed [zh] 本节的所有随机数都来自这个种子
np.set_printoptions(precision=3, suppress=True)  # [en] arrays print with 3 decimals [zh] 数组打印时保留 3 位小数
MiB = 2 ** 20
SIZES = efficient_lab.sizes()  # [en] the lengths swept below (shorter in the browser) [zh] 下面各实验的长度（浏览器里更短）

# %% [markdown] lang="en"
# ## Where the memory goes
#
# The naive formula $\text{softmax}(QK^\top/\sqrt{d_k})\,V$ builds a $(T, T)$ matrix of scores and weights, one number
# per pair of tokens, to produce an output of only $(T, D)$. With $D = 32$ and float32 (4 bytes a number):

# %% [markdown] lang="zh"
# ## 内存花在了哪里
#
# 朴素公式 $\text{softmax}(QK^\top/\sqrt{d_k})\,V$ 要先造出一个 $(T, T)$ 的分数和权重矩阵，每对 token 一个数，而输出只有 $(T, D)$。
# 取 $D = 32$，float32 每个数占 4 字节：

# %%
D = 32                                                  # [en] width of queries, keys and values in this notebook [zh] 本节中 Query、Key 和 Value 的维度
print("[en]     T    weights (T, T)    output (T, D)   weights / output[zh]     T      权重 (T, T)      输出 (T, D)        权重 / 输出")
for T in (1024, 4096, 16384):
    weights_bytes, output_bytes = T * T * 4, T * D * 4
    print(f"{T:>6}   {weights_bytes / MiB:10.1f} MiB   {output_bytes / MiB:10.3f} MiB   {weights_bytes // output_bytes:>10,}")

# %% [markdown] lang="en"
# At 16K tokens the weights take 1 GiB per head and layer, for an output of 2 MiB. Yet one output row needs only its own
# row of scores. If that row could be processed a block of keys at a time, the $(T, T)$ matrix would never exist. The
# obstacle is the softmax: its denominator needs the whole row, and the numerically stable version subtracts the row's maximum,
# known only at the end.
#
# ## The online softmax
#
# For one query with scores $s_1 \dots s_T$ and values $v_1 \dots v_T$,
#
# $$o = \frac{\sum_j e^{s_j - m}\, v_j}{\sum_j e^{s_j - m}}$$
#
# for **any** constant $m$: it cancels (notebook 03); $m = \max_j s_j$ only keeps the exponents $\le 0$. So split the
# keys into blocks and carry three numbers:
#
# 1. after the first block: $m$ = its largest score, $\ell = \sum_j e^{s_j - m}$, $a = \sum_j e^{s_j - m} v_j$;
# 2. when a block raises the maximum to $m' = \max(m, \max_{\text{block}} s_j)$, multiply what was summed by $e^{m - m'} \le 1$, since $e^{s_j - m} e^{m - m'} = e^{s_j - m'}$:
#    $$\ell' = e^{m - m'}\,\ell + \sum_{\text{block}} e^{s_j - m'}, \qquad a' = e^{m - m'}\,a + \sum_{\text{block}} e^{s_j - m'}\, v_j ;$$
# 3. after the last block, $o = a / \ell$.
#
# Every step is exact: the same sums, grouped differently. Ten keys in blocks of four:

# %% [markdown] lang="zh"
# 16K 个 token 时，每个头、每一层的权重就要 1 GiB，而输出只有 2 MiB。可一行输出只需要它自己那一行分数的 softmax，再对 Value 加权求和。
# 如果这一行能每次只处理一块 Key，$(T, T)$ 矩阵就根本不必存在。障碍在 softmax：分母要用到这一行的全部分数，数值稳定的写法还要减去这一行的最大值，
# 而最大值要到最后才知道。
#
# ## 在线 softmax
#
# 设一个 Query 的分数为 $s_1 \dots s_T$，对应的 Value 为 $v_1 \dots v_T$，则
#
# $$o = \frac{\sum_j e^{s_j - m}\, v_j}{\sum_j e^{s_j - m}}$$
#
# 对**任意**常数 $m$ 都成立，因为它在分子分母中相互抵消，这就是 03 节讲的平移不变性；取 $m = \max_j s_j$ 只是为了让指数都不大于 0。
# 于是可以把 Key 分块，一路只带着三个量：
#
# 1. 第一块处理完后，$m$ 是块内最大分数，$\ell = \sum_j e^{s_j - m}$，$a = \sum_j e^{s_j - m} v_j$；
# 2. 新的一块把最大值抬高到 $m' = \max(m, \max_{\text{块内}} s_j)$ 时，把已有的和乘以 $e^{m - m'} \le 1$，因为 $e^{s_j - m} e^{m - m'} = e^{s_j - m'}$：
#    $$\ell' = e^{m - m'}\,\ell + \sum_{\text{块内}} e^{s_j - m'}, \qquad a' = e^{m - m'}\,a + \sum_{\text{块内}} e^{s_j - m'}\, v_j$$
# 3. 最后一块处理完后，$o = a / \ell$。
#
# 每一步都是精确的，只是把同样的和换了一种分组。下面是十个 Key、每块四个的例子：

# %%
scores = np.array([0.5, 1.0, -0.3, 0.2, 2.5, 0.1, 1.7, -1.0, 3.1, 0.4])    # [en] one query against 10 keys [zh] 一个 Query 对 10 个 Key 的分数
values = np.array([[1, 0], [0, 1], [1, 1], [2, 0], [0, 2], [1, -1], [-1, 1], [0, 0], [3, 1], [1, 3]], dtype=float)
trace = efficient_lab.online_softmax_trace(scores, values, block_size=4)
print("[en]block  keys  block max   running max m   rescale e^(m_old - m)   running sum l   output so far a / l[zh]   块  Key   块内最大值   当前最大值 m   重新缩放 e^(m_old - m)   当前累计和 l   目前的输出 a / l")
for b, step in enumerate(trace):
    keys = f"{step['start']}-{step['start'] + len(step['scores']) - 1}"
    print(f"{b + 1:>5}  {keys:<5} {step['block_max']:8.2f}   {step['max']:13.2f}   {step['rescale']:21.3f}"
          f"   {step['sum']:13.3f}   {step['output']}")
print("[en]softmax(scores) @ values =[zh]直接计算 softmax 再乘 Value：", ac.softmax(scores) @ values,
      "  " + "[en]equal:[zh]相等：", np.allclose(trace[-1]["output"], ac.softmax(scores) @ values))

# %% [markdown] lang="en"
# Block 1's rescale is 0 because nothing has been summed yet ($m$ starts at $-\infty$). The maximum rises twice
# (1.0 → 2.5 → 3.1), and each time the old sum is scaled down (by 0.223, then 0.549) before the
# new block is added. "Output so far" is what the query would get if the sequence ended there; after the last block it equals
# `softmax(scores) @ values`.
#
# ### Tiled attention in the library
#
# `online_attention` runs this recurrence for all queries at once, one block of `block_size` keys per step. The fast
# path, `ac.tiled_attention`, computes the same numbers and also takes the queries a block at a time, so that each tile
# of scores stays in the processor's cache. The formula:

# %% [markdown] lang="zh"
# 第 1 块的重新缩放是 0，因为此前还什么都没加（$m$ 从 $-\infty$ 开始）。最大值上升了两次（1.0 → 2.5 → 3.1），每次都先把旧的和缩小，先乘 0.223，再乘 0.549，然后加上新一块。“目前的输出”是假设序列到此为止时，
# 这个 Query 会得到的结果；最后一块处理完后，它与 `softmax(scores) @ values` 完全相等。
#
# ### 库里的分块注意力
#
# `online_attention` 对所有 Query 同时做这个递推，每一步处理 `block_size` 个 Key。快速版本 `ac.tiled_attention` 算出的数完全相同，
# 只是把 Query 也分块，让每一块分数都能留在 CPU 的高速缓存里。源码如下：

# %%
from attention_core.core.tiled import online_attention

print(formula.source(online_attention))

# %% [markdown] lang="en"
# Is the output really identical? Random inputs at $T = 1024$, float64 and float32, with and without a mask, and a block
# size (100) that does not divide $T$:

# %% [markdown] lang="zh"
# 输出真的相同吗？在 $T = 1024$ 时取随机输入，分别用 float64 和 float32，加或不加掩码，块大小取不能整除 $T$ 的 100：

# %%
T = 1024
q, k, v = rng.standard_normal((3, T, D))                       # [en] (T, D) each, float64 [zh] 各为 (T, D)，float64
for dtype, digits in ((np.float64, 12), (np.float32, 6)):
    qd, kd, vd = q.astype(dtype), k.astype(dtype), v.astype(dtype)
    for name, mask in (("[en]no mask[zh]不加掩码", None), ("[en]causal mask[zh]因果掩码", ac.causal_mask(T))):
        naive, weights = ac.scaled_dot_product_attention(qd, kd, vd, mask=mask)      # [en] holds the (T, T) weights [zh] 会存下 (T, T) 的权重
        tiled = ac.tiled_attention(qd, kd, vd, mask=mask, block_size=100)            # [en] never does [zh] 从不存下
        diff = np.abs(tiled - naive).max()
        print(f"{np.dtype(dtype).name:<8}", pad(name, 12), f"[en]max |tiled - naive| = {diff:.{digits}f}   ({digits} decimals)   dtype {tiled.dtype}[zh]max |分块 - 朴素| = {diff:.{digits}f}   （{digits} 位小数）   dtype {tiled.dtype}")

# %% [markdown] lang="en"
# Zero to 12 decimals in float64 and to 6 in float32: only rounding differs. Tiled attention is **not an approximation**.
#
# ## Peak memory: $T^2$ against $T$
#
# `efficient_lab.traced_peak` runs a function under Python's `tracemalloc` and returns the most memory alive at once
# during the call (the inputs made before are not counted). The naive formula runs where its weights fit in 256 MiB; at
# 16K tokens the analytic count stands in. One BLAS thread (`efficient_lab.blas_threads(1)`) fixes the hardware, as a
# fair measurement should. In the browser edition, where NumPy runs many times slower, the sweeps of this notebook
# stop at 2,048 tokens.

# %% [markdown] lang="zh"
# float64 下 12 位小数、float32 下 6 位小数内差都是 0，不同的只是舍入。分块注意力**不是近似**。
#
# ## 峰值内存：$T^2$ 对 $T$
#
# `efficient_lab.traced_peak` 在 Python 的 `tracemalloc` 下运行一个函数，返回调用期间同时占用的最大内存，事先建好的输入不计在内。
# 朴素公式只在权重不超过 256 MiB 时实际运行，16K 个 token 时改用理论值。测量只用一个 BLAS 线程（`efficient_lab.blas_threads(1)`），
# 公平的测量本来就要固定硬件。浏览器里 NumPy 要慢好多倍，所以在浏览器版里，本节的各项实验只做到 2,048 个 token。

# %%
# MEASUREMENT
# (peak memory: tracemalloc also counts the kilobytes the kernel's own threads allocate meanwhile)
with efficient_lab.blas_threads(1):
    rows = efficient_lab.memory_rows(SIZES["memory"], d=D, naive_limit_bytes=256 * MiB)
print("[en]     T   naive, analytic   naive, measured   tiled, measured   tiled per token[zh]     T      朴素，理论值       朴素，实测        分块，实测     分块，每个 token")
for r in rows:
    measured = "[en](not run)[zh]（未运行）" if r["naive_peak"] is None else f"{r['naive_peak'] / MiB:.1f} MiB"
    print(f"{r['T']:>6}   {r['naive_analytic'] / MiB:11.1f} MiB   {pad(measured, 15, 'right')}   {r['tiled_peak'] / MiB:11.1f} MiB"
          f"   {r['tiled_per_token'] / 1024:9.2f} KiB")
ax = efficient_lab.plot_memory(rows)

# %% [markdown] lang="en"
# The measured naive peaks sit on the analytic line, about ×4 per doubling: the weights are the memory. The tiled peak
# is a few MiB at 16K tokens where the naive formula needs 1 GiB, and per token it even falls: a tile of scores (at most
# 1 MiB) does not grow with $T$, and the rest ($Q$ scaled and the output) is linear. Peak memory is $O(T)$; the
# **compute** is still $O(T^2)$, every pair scored once.
#
# Tiling over the keys lets a GPU kernel keep a tile in its small on-chip memory for any $T$: that is FlashAttention,
# and the saved memory traffic is its speed (cited, not measured here: Dao et al. 2022 report up to 3× faster GPT-2
# training at 1K tokens on A100 GPUs; in the repository, `make gpu-check` times a fused kernel on a machine with a GPU).
#
# ### Why fused kernels do not return the weights
#
# In the trace above, the weight of key 0 could be read after the first block as $e^{s_0 - m}/\ell$. Compare it with
# its final value:

# %% [markdown] lang="zh"
# 实测的朴素实现峰值落在理论线上，$T$ 每翻一倍大约乘以 4：内存就花在权重上。分块实现在 16K 个 token 时只要几 MiB，朴素公式却要 1 GiB。
# 按每个 token 平均，分块的开销甚至在下降，因为其中一部分（最多 1 MiB 的分数块及其缓冲区）不随 $T$ 增长，
# 其余部分（缩放后的 $Q$ 和输出，各 $T \times D$ 个数）随 $T$ 线性增长。峰值内存从 $O(T^2)$ 变成了 $O(T)$。
#
# **计算量**仍是 $O(T^2)$，每一对照样打一次分，省掉的只是存储。对 Key 分块，才能让 GPU 内核无论 $T$ 多大都把一个分数块放在又小又快的片上内存里，
# 这就是 FlashAttention，它的速度正来自省下的内存读写。这里的速度是引用而非实测的：Dao 等人 2022 年报告，在 A100 GPU 上训练 1K 长度的 GPT-2 最多快 3 倍；
# 在有 GPU 的机器上，可以在仓库里运行 `make gpu-check`，测量融合内核的耗时。
#
# ### 融合内核为什么不返回权重
#
# 在上面的追踪里，第一块处理完后就能读出 Key 0 的权重 $e^{s_0 - m}/\ell$。把它和最终值比一比：

# %%
first, last = trace[0], trace[-1]
early = np.exp(first["scores"] - first["max"]) / first["sum"]          # [en] weights of keys 0-3 after block 1 [zh] 第 1 块之后 Key 0–3 的权重
final = ac.softmax(scores)[:4]                                         # [en] their true weights [zh] 它们真正的权重
print(pad("[en]weights of keys 0-3 known after block 1:[zh]第 1 块之后就能读出的 Key 0–3 的权重：", 40), early, " " + "[en]sum[zh]总和", f"{early.sum():.3f}")
print(pad("[en]their final weights:[zh]它们的最终权重：", 40), final, " " + "[en]sum[zh]总和", f"{final.sum():.3f}")
lse = last["max"] + np.log(last["sum"])                                # [en] log-sum-exp of the whole row: the one number kept per row [zh] 整行的 log-sum-exp：每行只需保存这一个数
print(f"[en]recomputed from the saved log-sum-exp L = m + log l = {lse:.3f}:[zh]由保存下来的 log-sum-exp L = m + log l = {lse:.3f} 重新算出：", np.exp(scores[:4] - lse))
out, w = ac.scaled_dot_product_attention(q, k, v, need_weights=False)
print("[en]scaled_dot_product_attention(..., need_weights=False) returns weights:[zh]scaled_dot_product_attention(..., need_weights=False) 返回的权重：", w)
print(f"[en]the weights at T = 16384 in float32 would take {16384 ** 2 * 4 / MiB:,.0f} MiB per head[zh]T = 16384 时，float32 的权重每个头要占 {16384 ** 2 * 4 / MiB:,.0f} MiB")

# %% [markdown] lang="en"
# The early weights sum to 1 over the first four keys and are all wrong: a weight is final only after the last block.
# Returning the weights would mean keeping all $T \times T$ of them, the memory the kernel exists to avoid, so fused
# kernels return the output only (`need_weights=False` gives `None`). When weights are needed, as in FlashAttention's
# backward pass, they are **recomputed** tile by tile from the log-sum-exp $L = m + \log \ell$ saved per row: the last
# line above matches the final weights.
#
# ## Sliding windows and sparse patterns: fewer pairs, another view
#
# Tiling keeps every pair. The other family of speed-ups **computes fewer pairs**: a sliding window lets token $i$ see
# only its neighbours; sparse patterns (Longformer, BigBird) add a few global tokens that see and are seen by all.
# A decoder uses the causal window of notebooks 04 and 07: **a window of $w$** is the $w$ keys a query sees, itself
# and the $w - 1$ before it. An encoder, reading the whole text at once, can look both ways: the **symmetric** window
# of reach $W$, $|i - j| < W$, holds $2W - 1$ keys, the query and $W - 1$ on each side
# (`ac.sliding_window_mask(T, W, causal=False)`: with `causal=False` the argument is the reach, not the key count).
# Like the causal one it is named by its keys: "a symmetric window of 5 keys (reach $W = 3$)". This section uses the
# symmetric one. Sixteen tokens under full attention, the symmetric window of 5 keys ($W = 3$), and that window plus one
# global token:

# %% [markdown] lang="zh"
# 提前读出的权重在前四个 Key 上加起来等于 1，却全都是错的：$m$ 和 $\ell$ 一直在变，看完最后一块权重才是最终值。要返回权重，内核就得存下全部 $T \times T$ 个，
# 而这正是它要省掉的内存，所以融合内核只返回输出，这里 `need_weights=False` 返回 `None`。确实需要权重时，比如 FlashAttention 的反向传播，
# 就由每行保存的 log-sum-exp，即一个数 $L = m + \log \ell$ 逐块**重新计算**，上面最后一行与最终权重完全一致。
#
# ## 滑动窗口与稀疏模式：计算的位置对更少，看到的范围也变了
#
# 分块计算保留了每一对。另一类加速方法则**少算一些对**：滑动窗口只让 token $i$ 看到附近的 token；稀疏模式（Longformer、BigBird）
# 再加上几个全局 token，它们看得到所有位置，所有位置也看得到它们。
#
# 解码器用的是 04、07 节的因果窗口：**宽度为 $w$ 的窗口**指 Query 能看到的 $w$ 个 Key，即它自己和前面的 $w - 1$ 个。
# 编码器一次读入全文，可以两边都看：半径为 $W$ 的**对称窗口**（$|i - j| < W$）含 $2W - 1$ 个 Key，即 Query 自己加上两边各 $W - 1$ 个，
# 对应 `ac.sliding_window_mask(T, W, causal=False)`，加了 `causal=False` 时，参数是半径而不是 Key 的个数。
# 和因果窗口一样，对称窗口也按 Key 的个数称呼，比如“5 个 Key 的对称窗口（半径 $W = 3$）”。本小节用的是对称窗口。
# 下面是 16 个 token 的全局注意力、5 个 Key 的对称窗口（$W = 3$），以及这个窗口再加一个全局 token：

# %%
T_small, W_small = 16, 3
patterns = [np.ones((T_small, T_small), dtype=bool),
            ac.sliding_window_mask(T_small, W_small, causal=False),         # [en] causal=False: reach 3, |i - j| < 3, 5 keys [zh] causal=False：半径 3，|i - j| < 3，5 个 Key
            efficient_lab.local_global_mask(T_small, W_small, n_global=1)]  # [en] + token 0 sees and is seen by all [zh] + token 0 能看到所有位置，也被所有位置看到
counts = [int(p.sum()) for p in patterns]
titles = [f"[en]full: {counts[0]} pairs[zh]全局：{counts[0]} 对",
          f"[en]symmetric window, {2 * W_small - 1} keys: {counts[1]} pairs[zh]对称窗口，{2 * W_small - 1} 个 Key：{counts[1]} 对",
          f"[en]window + global token: {counts[2]} pairs[zh]窗口 + 全局 token：{counts[2]} 对"]
print(f"[en]pairs: {counts}   window pairs by formula: {efficient_lab.window_pairs(T_small, W_small)}[zh]位置对数：{counts}   按公式算的窗口位置对数：{efficient_lab.window_pairs(T_small, W_small)}")
print(f"[en]keys a middle query sees: {patterns[1][8].sum()} = 2W - 1[zh]中间一个 Query 看到的 Key：{patterns[1][8].sum()} 个 = 2W - 1")
fig = masking_lab.plot_mask_grid(patterns, titles=titles)

# %% [markdown] lang="en"
# With the symmetric window of 511 keys (reach $W = 256$) each token sees at most $2W - 1 = 511$ keys, so the count grows like $T$, not $T^2$:

# %% [markdown] lang="zh"
# 取 511 个 Key 的对称窗口（半径 $W = 256$）时，每个 token 最多看到 $2W - 1 = 511$ 个 Key，位置对数随 $T$ 而不是 $T^2$ 增长：

# %%
W = 256                                                          # [en] reach of the symmetric window of the rest of the notebook: |i - j| < W, 511 keys [zh] 本节后面都用这个对称窗口的半径：|i - j| < W，511 个 Key
print("[en]       T          full pairs     window pairs (511 keys)  share[zh]       T          全局位置对数      窗口位置对数（511 个 Key） 占比")
for T in (1024, 4096, 16384, 131072):
    full_pairs, window_pairs = T * T, efficient_lab.window_pairs(T, W)
    print(f"{T:>8,}   {full_pairs:>17,}   {window_pairs:>22,}   {100 * window_pairs / full_pairs:5.1f}%")

# %% [markdown] lang="en"
# But fewer pairs is a **different computation**: a window is a mask. Give the key at position 2 by far the best score
# for the query at position 12: with full attention it wins; with the window it is out of sight and gets weight exactly 0.

# %% [markdown] lang="zh"
# 但少算位置对就是**换了一种计算**，因为窗口就是掩码。让位置 12 的 Query 对位置 2 的 Key 打出遥遥领先的高分：全局注意力下它胜出，
# 加了窗口后它不在可见范围内，权重恰好为 0。

# %%
row = rng.normal(size=T_small)                                   # [en] one query's scores, position 12 [zh] 一个 Query 的分数，位置 12
row[2] = 6.0                                                     # [en] key 2 matches best, by far [zh] Key 2 的匹配度遥遥领先
query = 12
window_row = ac.sliding_window_mask(T_small, W_small, causal=False)[query]
print("[en]visible keys in the window:[zh]窗口中可见的 Key：", np.flatnonzero(window_row))
print(f"[en]full attention:   weight of key 2 = {ac.softmax(row)[2]:.3f}[zh]全局注意力：   Key 2 的权重 = {ac.softmax(row)[2]:.3f}")
print(f"[en]sliding window:   weight of key 2 = {ac.softmax(row, mask=window_row)[2]:.3f}[zh]滑动窗口：     Key 2 的权重 = {ac.softmax(row, mask=window_row)[2]:.3f}")

# %% [markdown] lang="en"
# ### A window kernel that computes only its band
#
# Masking the full $(T, T)$ scores would save nothing. `efficient_lab.sliding_window_attention` takes the queries a
# block at a time and fetches only the keys their symmetric window reaches, about $T(2W - 1)$ scores. It must equal the
# full computation with the library's window mask:

# %% [markdown] lang="zh"
# ### 只算带状区域的窗口内核
#
# 先算完整的 $(T, T)$ 分数再套窗口掩码，什么也省不下。`efficient_lab.sliding_window_attention` 每次处理一块 Query，只取它们的对称窗口够得到的 Key，
# 一共约 $T(2W - 1)$ 个分数。它的结果必须与“完整计算加库里的窗口掩码”一致：

# %%
T = 1024
q, k, v = rng.standard_normal((3, T, D))
banded = efficient_lab.sliding_window_attention(q, k, v, W)                                   # [en] only the band [zh] 只算带状区域
reference, _ = ac.scaled_dot_product_attention(q, k, v, mask=ac.sliding_window_mask(T, W, causal=False))
print(f"[en]max |banded - full with window mask| = {np.abs(banded - reference).max():.12f}[zh]max |带状计算 - 完整计算加窗口掩码| = {np.abs(banded - reference).max():.12f}")

# %% [markdown] lang="en"
# ### Linear attention: a feature map instead of the softmax
#
# A third way out of $n^2$ is **linear attention** (Katharopoulos et al., 2020): replace $e^{q \cdot k/\sqrt{d}}$ by
# $\phi(q) \cdot \phi(k)$ with $\phi(x) = \text{elu}(x) + 1 > 0$. Then the sums over the keys come **first**, once for all
# queries:
#
# $$\text{out}_i = \frac{\phi(q_i)\,\sum_j \phi(k_j)^\top v_j}{\phi(q_i) \cdot \sum_j \phi(k_j)},$$
#
# a $(d_k, d_v)$ matrix and a $(d_k,)$ vector: no $(T, T)$ matrix, cost $O(T d_k d_v)$. We check that the regrouped form
# equals its explicit weights times $V$, measure its memory against softmax attention's, then its weights:

# %% [markdown] lang="zh"
# ### 线性注意力：用特征映射代替 softmax
#
# 摆脱 $n^2$ 的第三条路是**线性注意力**（Katharopoulos 等，2020）：把 $e^{q \cdot k/\sqrt{d}}$ 换成 $\phi(q) \cdot \phi(k)$，
# 其中 $\phi(x) = \text{elu}(x) + 1 > 0$。这样对 Key 的求和可以**先**做，所有 Query 共用一次：
#
# $$\text{out}_i = \frac{\phi(q_i)\,\sum_j \phi(k_j)^\top v_j}{\phi(q_i) \cdot \sum_j \phi(k_j)}$$
#
# 只需一个 $(d_k, d_v)$ 矩阵和一个 $(d_k,)$ 向量，没有 $(T, T)$ 矩阵，计算量是 $O(T d_k d_v)$。下面先验证重新组合的算法等于显式权重乘 $V$，
# 再比较它与 softmax 注意力的内存，最后看它的权重：

# %%
print(formula.source(linear_lab.linear_attention))
q_l, k_l, v_l = np.random.default_rng(1).standard_normal((3, 512, D))          # [en] its own seed [zh] 单独的种子
same = np.allclose(linear_lab.linear_attention(q_l, k_l, v_l), linear_lab.linear_weights(q_l, k_l) @ v_l)
print("[en]regrouped == explicit weights @ V:[zh]重新组合的算法 == 显式权重 @ V：", same)

# %%
# MEASUREMENT
# (peak memory and wall-clock time: the kernel's own threads allocate a few kilobytes meanwhile, and times vary)
with efficient_lab.blas_threads(1):
    for T_l in SIZES["linear_memory"]:
        q_l, k_l, v_l = np.random.default_rng(T_l).standard_normal((3, T_l, D)).astype(np.float32)
        _, soft_peak = efficient_lab.traced_peak(ac.scaled_dot_product_attention, q_l, k_l, v_l)
        _, lin_peak = efficient_lab.traced_peak(linear_lab.linear_attention, q_l, k_l, v_l)
        print(f"[en]T = {T_l:>5,}: peak memory  softmax {soft_peak / MiB:>7.1f} MiB   linear {lin_peak / MiB:>5.2f} MiB[zh]T = {T_l:>5,}：峰值内存  softmax {soft_peak / MiB:>7.1f} MiB   线性 {lin_peak / MiB:>5.2f} MiB")
with efficient_lab.blas_threads(1):
    for T_l in SIZES["linear_time"]:
        q_l, k_l, v_l = np.random.default_rng(T_l).standard_normal((3, T_l, D)).astype(np.float32)
        t_soft = best_time(ac.scaled_dot_product_attention, q_l, k_l, v_l)
        t_lin = best_time(linear_lab.linear_attention, q_l, k_l, v_l)
        print(f"[en]T = {T_l:>5,}: softmax {1e3 * t_soft:7.2f} ms   linear {1e3 * t_lin:6.2f} ms[zh]T = {T_l:>5,}：softmax {1e3 * t_soft:7.2f} ms   线性 {1e3 * t_lin:6.2f} ms")

# %% [markdown] lang="en"
# Softmax attention's peak grows four-fold per doubling; linear attention's doubles and stays a few MiB. The timings show
# the same slopes (your numbers will differ). Now the price:

# %% [markdown] lang="zh"
# $T$ 每翻一倍，softmax 注意力的峰值内存涨四倍，线性注意力只翻一倍，始终只有几 MiB。耗时也呈现同样的斜率，具体数字因机器而异。下面看代价：

# %%
q_l, k_l = np.random.default_rng(2).standard_normal((2, 256, D))
dist = linear_lab.weight_distance(q_l, k_l)
print(f"[en]T = {256}: distance from softmax's weights (total variation) {dist['tv']:.2f}; largest weight per row: softmax {dist['max_softmax']:.3f}, linear {dist['max_linear']:.3f} (uniform {1 / 256:.4f})[zh]T = {256}：与 softmax 权重的距离（总变差）{dist['tv']:.2f}；每行最大权重：softmax {dist['max_softmax']:.3f}，线性 {dist['max_linear']:.3f}（均匀分布 {1 / 256:.4f}）")
q_n, k_n = linear_lab.planted_key(t=1024, d=D, strength=10.0, position=300)   # [en] the needle of the haystack task later in this notebook [zh] 本节后面“大海捞针”任务里的那根针
soft_w = ac.scaled_dot_product_attention(q_n, k_n, k_n)[1][0]
lin_w = linear_lab.linear_weights(q_n, k_n)[0]
print(f"[en]the needle's weight: softmax {soft_w[300]:.4f}, linear {lin_w[300]:.4f}; uniform would be {1 / 1024:.4f}[zh]针的权重：softmax {soft_w[300]:.4f}，线性 {lin_w[300]:.4f}；均匀分布时是 {1 / 1024:.4f}")

# %% [markdown] lang="en"
# On random vectors the two sets of weights differ by about a third of their mass (0.35), and linear attention's
# largest weight is close to uniform. On a planted match, the needle of the final section, softmax gives it 0.9999 of the
# weight, linear attention 0.0022, about twice the uniform share: the feature map cannot make one key win the way
# $e^{17.7}$ does. Linear attention is a different function, not a faster softmax: every pair stays in view at linear
# cost, but the sharp lookup is lost.

# %% [markdown] lang="zh"
# 在随机向量上，两组权重的总变差约为三分之一（0.35），线性注意力每行最大的权重已接近均匀分布。换成一个植入的匹配，也就是本节后面“大海捞针”任务里的那根针，
# softmax 给了它 0.9999 的权重，线性注意力只给了 0.0022，约为均匀分布的两倍：特征映射没法像 $e^{17.7}$ 那样让一个 Key 独占鳌头。
# 线性注意力是另一个函数，不是更快的 softmax：它以线性代价让所有位置对都保持可见，却丢掉了精确查找。

# %% [markdown] lang="en"
# ### Linformer: keys and values projected from $T$ rows to $k$
#
# The tutorial "An introduction to the Transformer attention mechanism: from intuition to formulas" (Transformer
# Attention 机制入门：从直觉到公式) names Linformer (Wang et al., 2020) beside Longformer, FlashAttention and linear
# attention. Two matrices $E, F$ of shape $(k, T)$ shorten the **sequence axis**: $EK$ is $(k, d_k)$, $FV$ is $(k, d_v)$,
# and every query attends over those $k$ rows:
#
# $$\text{out} = \text{softmax}\!\left(\frac{Q\,(EK)^\top}{\sqrt{d_k}}\right) FV, \qquad \text{scores } (T, k) \text{ instead of } (T, T).$$
#
# With $k$ fixed (256 in the paper) the cost is linear in $T$. Linformer **learns** $E$ and $F$; here they are fixed, which
# is enough to see the idea and its price: `random_projection` (Gaussian entries of variance $1/k$) and
# `segment_projection` (row $r$ is the mean of the $r$-th of $k$ contiguous segments), both with $F = E$.

# %% [markdown] lang="zh"
# ### Linformer：把 Key 和 Value 从 $T$ 行投影成 $k$ 行
#
# 《Transformer Attention 机制入门：从直觉到公式》把 Linformer（Wang 等，2020）和 Longformer、FlashAttention、线性注意力放在一起讲。
# 它用两个形状为 $(k, T)$ 的矩阵 $E$、$F$ 缩短**序列轴**：$EK$ 是 $(k, d_k)$，$FV$ 是 $(k, d_v)$，每个 Query 只在这 $k$ 行上做注意力（这里的 $k$ 是行数，沿用论文记号，与 Key 无关）：
#
# $$\text{out} = \text{softmax}\!\left(\frac{Q\,(EK)^\top}{\sqrt{d_k}}\right) FV, \qquad \text{分数是 } (T, k) \text{ 而不是 } (T, T)$$
#
# $k$ 固定时（论文取 256），代价随 $T$ 线性增长。Linformer 的 $E$ 和 $F$ 是**学出来的**，这里先把它们固定，足以看清思路和代价：
# `random_projection` 是元素方差为 $1/k$ 的高斯矩阵，`segment_projection` 的第 $r$ 行是序列 $k$ 个连续分段中第 $r$ 段的均值，两者都取 $F = E$。

# %%
print(formula.source(linformer_lab.linformer_attention))
T_f, k_f = 1024, 64
q_f, k_f_keys, v_f = np.random.default_rng(3).standard_normal((3, T_f, D))      # [en] its own seed [zh] 单独的种子
E = linformer_lab.segment_projection(T_f, k_f)                                   # (k, T)
out_f, w_f = linformer_lab.linformer_attention(q_f, k_f_keys, v_f, E, need_weights=True)
print(f"[en]E {E.shape}, E K {(E @ k_f_keys).shape}, weights {w_f.shape} instead of {(T_f, T_f)}, output {out_f.shape}[zh]E {E.shape}，E K {(E @ k_f_keys).shape}，权重 {w_f.shape} 而不是 {(T_f, T_f)}，输出 {out_f.shape}")
exact = linformer_lab.linformer_attention(q_f, k_f_keys, v_f, linformer_lab.segment_projection(T_f, T_f))
print("[en]segments with k = T (E = identity) equal full attention:[zh]k = T 的分段投影（E 是单位矩阵）等于全局注意力：",
      np.allclose(exact, ac.scaled_dot_product_attention(q_f, k_f_keys, v_f)[0]))

# %% [markdown] lang="en"
# #### Distance from full attention as $k$ grows
#
# The error is $\lVert \text{out}_{\text{Linformer}} - \text{out}_{\text{full}} \rVert / \lVert \text{out}_{\text{full}} \rVert$
# (1 = as far as outputting zeros), on $T = 1024$ random tokens and on `smooth_inputs`, where each token is a moving
# average of 32 neighbours (a stand-in for text, whose nearby tokens share a topic). `weight_rank` counts the singular
# values holding 90% of the weights' energy: the rank $k$ rows must capture.

# %% [markdown] lang="zh"
# #### $k$ 增大时离全局注意力有多远
#
# 误差取 $\lVert \text{out}_{\text{Linformer}} - \text{out}_{\text{全局}} \rVert / \lVert \text{out}_{\text{全局}} \rVert$，为 1 就相当于输出全 0。
# 输入有两类，都是 $T = 1024$ 个 token：随机向量，以及 `smooth_inputs` 生成的平滑输入，每个 token 是附近 32 个向量的滑动平均，
# 用来模拟相邻 token 往往谈同一件事的文本。`weight_rank` 数出占权重 90% 能量的奇异值个数，也就是 $k$ 行需要抓住的秩。

# %%
ks = (16, 32, 64, 128, 256, 512, 1024)
inputs = {"[en]random[zh]随机": (q_f, k_f_keys, v_f), "[en]smooth[zh]平滑": linformer_lab.smooth_inputs(T_f, D, seed=4)}
errors = {name: linformer_lab.error_vs_k(*qkv, ks) for name, qkv in inputs.items()}
for name, (q_i, k_i, _) in inputs.items():
    print(pad(name, 8), "[en]rank holding 90% of the weights:[zh]占权重 90% 的秩：", linformer_lab.weight_rank(q_i, k_i))
print("     k  " + "".join(pad(f"{name}, {kind}", 18, "right") for name in inputs for kind in ("[en]Gauss[zh]高斯", "[en]segments[zh]分段")))
for n_k, k_rows in enumerate(ks):
    print(f"{k_rows:>6,}  " + "".join(f"{errors[name][n_k][kind]:>18.3f}" for name in inputs for kind in linformer_lab.PROJECTIONS))
ax = linformer_lab.plot_error_vs_k(errors)

# %% [markdown] lang="en"
# The random projection is **no** approximation at any $k < T$: its error is above 1 at every $k < T$ in the table (137 at
# $k = 16$ on random inputs), because each projected row has the variance of a sum of about $T/k$ values. That is why Linformer learns $E$ and $F$. Segment
# means are a proper average and equal full attention at $k = T$. Random inputs are far from low rank (140 singular
# values for 90%), so the error stays large (0.734 at $k = 256$); smooth inputs have rank 22, and 64 rows bring the
# error to 0.101, 256 rows to 0.015. Linformer bets on the second case: trained attention matrices are close to low
# rank.
#
# #### Peak memory beside the other methods
#
# Every method on the same float32 inputs, traced as above (Linformer with $k = 256$, the symmetric window of 511 keys,
# $W = 256$):

# %% [markdown] lang="zh"
# 随机投影在任何 $k < T$ 下都**不是**近似：表中 $k < T$ 的各行，它的误差都大于 1，因为投影后每一行的方差相当于大约 $T/k$ 个 Value 之和。
# 这正是 Linformer 要学习 $E$ 和 $F$ 的原因。分段均值是真正的平均，$k = T$ 时与全局注意力相等，误差大小则取决于输入的秩：
# 随机输入要 140 个奇异值才占到 90% 的能量，$k = 256$ 时误差仍有 0.734；平滑输入的秩只有 22，256 行就把误差降到 0.015。
# Linformer 押注的是后一种情况：训练好的注意力矩阵接近低秩。
#
# #### 峰值内存：与其他方法对比
#
# 所有方法用同样的 float32 输入，测量方式同上，Linformer 取 $k = 256$，窗口取 511 个 Key 的对称窗口（$W = 256$）：

# %%
# MEASUREMENT
# (peak memory: tracemalloc also counts the kilobytes the kernel's own threads allocate meanwhile)
with efficient_lab.blas_threads(1):
    compared = linformer_lab.memory_comparison(SIZES["memory"], d=D, k=256, window=256)
names = ["[en]naive (weights kept)[zh]朴素实现（保存权重）", "[en]tiled (online softmax)[zh]分块（在线 softmax）",
         "[en]window, 511 keys[zh]窗口，511 个 Key", "[en]linear attention[zh]线性注意力", "Linformer k = 256"]
print("     T  " + "".join(pad(name, 24, "right") for name in names) + "[en]   (MiB)[zh]   （MiB）")
for r in compared:
    cells = ["[en](not run)[zh]（未运行）" if r[m] is None else f"{r[m] / MiB:.2f}" for m in linformer_lab.MEMORY_METHODS]
    print(f"{r['T']:>6,}  " + "".join(pad(c, 24, "right") for c in cells))
lin_peaks = [r["linformer"] / MiB for r in compared]                # [en] Linformer's column, in MiB [zh] Linformer 那一列，单位 MiB
doubling = " → ".join(f"{x:.2f}" for x in lin_peaks[:-1])
print(f"[en]Linformer, T doubling: {doubling} MiB; {lin_peaks[-1]:.1f} MiB at T = {compared[-1]['T']:,}[zh]Linformer，T 逐次翻倍：{doubling} MiB；T = {compared[-1]['T']:,} 时 {lin_peaks[-1]:.1f} MiB")
ax = linformer_lab.plot_memory_comparison(compared)

# %% [markdown] lang="en"
# Linformer's peak is the $(T, k)$ scores and weights: it doubles with $T$, linear like the tiled, window and linear
# methods, and far below the naive 1 GiB. From 4,096 tokens on it is the largest of the linear methods, because every
# query keeps $k = 256$ columns (at 1K and 2K the others' fixed costs are as large). Unlike
# tiling it computes fewer pairs ($T k$); unlike the window, each query still reaches the whole sequence through the
# $k$ mixed rows.
#
# #### Where it breaks: the causal mask
#
# A decoder needs the causal mask of notebook 04: query $i$ may use key $j$ only when $j \le i$. After the projection
# there is no key $j$. Try to pass the mask anyway, and look at what a projected row is made of:

# %% [markdown] lang="zh"
# Linformer 的峰值就是 $(T, k)$ 的分数和权重，$T$ 翻倍它也翻倍，和分块、窗口、线性注意力一样是线性的，远低于朴素实现的 1 GiB。
# 从 4,096 个 token 起，它在这几种线性方法里最大，因为每个 Query 都保留 $k = 256$ 列（1K、2K 时，其他方法的固定开销与它相当）。与分块不同，它确实少算了位置对，只算 $T k$ 对；与窗口不同，每个 Query 仍能通过这 $k$ 个混合行够到整个序列。
#
# #### 它在哪里失效：因果掩码
#
# 解码器需要 04 节的因果掩码，只有 $j \le i$ 时 Query $i$ 才能用 Key $j$。可投影之后已经没有 Key $j$ 了。硬把掩码传进去试试，再看投影后的一行由什么组成：

# %%
try:
    ac.scaled_dot_product_attention(q_f, E @ k_f_keys, E @ v_f, mask=ac.causal_mask(T_f))
except ValueError as error:
    print(f"[en]ValueError: {error}[zh]ValueError：形状为 {(T_f, T_f)} 的掩码无法广播到形状为 {(T_f, k_f)} 的分数上")
gauss_rows = linformer_lab.mixed_positions(linformer_lab.random_projection(T_f, k_f))
segment_rows = linformer_lab.mixed_positions(E)
reach = [int(segment_rows[int(np.flatnonzero(ac.causal_mask(T_f, k_f)[i])[-1])][-1]) for i in (0, 5, 63)]    # [en] the latest token each query reaches [zh] 每个 Query 能够到的最后一个 token
print(f"[en]random projection: rows that mix all {T_f} positions: {sum(r.size == T_f for r in gauss_rows)} of {k_f}[zh]随机投影：混合了全部 {T_f} 个位置的行：{k_f} 行中有 {sum(r.size == T_f for r in gauss_rows)} 行")
print(f"[en]segment means: row 0 mixes positions {segment_rows[0][0]}..{segment_rows[0][-1]}, row 1 positions {segment_rows[1][0]}..{segment_rows[1][-1]}[zh]分段均值：第 0 行混合了位置 {segment_rows[0][0]}..{segment_rows[0][-1]}，第 1 行混合了位置 {segment_rows[1][0]}..{segment_rows[1][-1]}")
print(f"[en]ac.causal_mask(T, k) on the segment rows: queries 0, 5, 63 reach tokens up to {reach}[zh]在分段行上用 ac.causal_mask(T, k)：Query 0、5、63 能够到的 token 最远到 {reach}")

# %% [markdown] lang="en"
# The $(T, T)$ mask does not fit the $(T, k)$ scores, and no reshaping helps: each random-projection row mixes all 1,024
# positions, so every row contains the future. Segment means at least give each row a range of positions, which allows
# two masks: query $i$ sees the rows whose segment **starts** at or before $i$, or only those that **end** at or before
# $i$. The leak test of notebook 04 measures both on 8 tokens and $k = 4$ segments: replace token $s$ and see how far
# output $t$ moves; a non-zero cell above the diagonal is the future leaking in.

# %% [markdown] lang="zh"
# $(T, T)$ 的掩码放不进 $(T, k)$ 的分数，怎么变形也不行：随机投影的每一行都混合了全部 1,024 个位置，每一行里都含有未来。
# 分段均值至少让每一行对应一段位置，于是可以有两种掩码：让 Query $i$ 看段**起点**不晚于 $i$ 的行，或者只看段**终点**不晚于 $i$ 的行。
# 用 04 节的泄露测试在 8 个 token、$k = 4$ 段上测量两者：替换 token $s$，看输出 $t$ 变了多少，对角线以上的格子只要不是 0，就是未来漏了进来。

# %%
x_c = np.random.default_rng(5).standard_normal((8, 4))                   # (T = 8, D = 4)
attempts = linformer_lab.causal_attempts(x_c, 4)
print(f"[en]largest change of an output when a later token is replaced: causal full attention {attempts['leak_causal']:.3f}, segments that start by i {attempts['leak_starts']:.3f}, segments that end by i {attempts['leak_ends']:.3f}[zh]替换后面的 token 时，输出的最大变化：带因果掩码的全局注意力 {attempts['leak_causal']:.3f}，起点不晚于 i 的段 {attempts['leak_starts']:.3f}，终点不晚于 i 的段 {attempts['leak_ends']:.3f}")
print("[en]queries that see no row at all with 'ends by i':[zh]用“终点不晚于 i”时一行也看不到的 Query：", attempts["blind_ends"].tolist())
future = np.triu(attempts["starts"], 1)                                   # [en] [t, s] with s > t: a later token moved output t [zh] [t, s] 中 s > t 的格子：后面的 token 推动了输出 t
t_max, s_max = np.unravel_index(future.argmax(), future.shape)
print(f"[en]'starts by i': output 0 moves by {attempts['starts'][0, 1]:.3f} when token 1 is replaced; the largest leak, {future.max():.3f}, is output {t_max} when token {s_max} is replaced[zh]“起点不晚于 i”：替换 token 1 时输出 0 变化 {attempts['starts'][0, 1]:.3f}；最大的泄露 {future.max():.3f} 出现在替换 token {s_max} 时的输出 {t_max}")
fig = masking_lab.plot_influence([attempts["causal"], attempts["starts"], attempts["ends"]],
                                 titles=["[en]full, causal mask[zh]全局，因果掩码", "[en]segments starting by i[zh]起点不晚于 i 的段",
                                         "[en]segments ending by i[zh]终点不晚于 i 的段"])

# %% [markdown] lang="en"
# Causal full attention has exact zeros above the diagonal. "Starts by $i$" leaks: query 0 sees the mean of tokens 0
# and 1, so its output moves by 0.928 when token 1 is replaced, and the largest leak, 1.061, is output 2 when token 3
# (the other half of its segment) is replaced. "Ends by $i$" does not leak, but query 0 sees nothing
# and every query at an even position loses its own token. So Linformer is an encoder method (the paper evaluates
# bidirectional pre-training and classification); causal models use tiled kernels or windows.
#
# **Self-test.** A colleague proposes "causal Linformer": compute $EK$, then mask the $(T, k)$ scores with
# `ac.causal_mask(T, k)`. What does query $i$ see?
#
# <details><summary>Answer</summary>
#
# Projected rows $0 \dots \min(i, k - 1)$, and each is a mix of positions: with segments, query 5 already reaches token
# 95 and query 63 the last token (the cell before the figure). The mask must act on the keys' positions, which the
# projection has removed.
# </details>

# %% [markdown] lang="zh"
# 带因果掩码的全局注意力在对角线以上都是严格的 0。“起点不晚于 $i$”会泄露：Query 0 看到的是 token 0 和 1 的均值，替换 token 1 时它的输出变了 0.928；
# 最大的泄露是 1.061，出现在替换 token 3 时的输出 2 上，token 3 正是它所在分段的另一半。
# “终点不晚于 $i$”不泄露，但 Query 0 什么也看不到，偶数位置上的 Query 都看不到自己的 token。所以 Linformer 是编码器方法，论文在双向预训练和分类任务上评估它；
# 因果模型用的是分块内核或窗口。
#
# **自测题**。一位同事提议做“因果 Linformer”：先算出 $EK$，再用 `ac.causal_mask(T, k)` 屏蔽 $(T, k)$ 的分数。Query $i$ 能看到什么？
#
# <details><summary>答案</summary>
#
# 投影后的第 $0 \dots \min(i, k - 1)$ 行，而每一行都是许多位置的混合：用分段投影时，Query 5 已经能够到 token 95，Query 63 能够到最后一个 token，
# 见图前那个单元格。掩码必须作用在 Key 的位置上，而投影恰恰把位置抹掉了。
# </details>

# %% [markdown] lang="en"
# ## The verification method of the tutorial "Attention mechanism"
#
# The tutorial says how to check an optimisation: *fix the model weights, the numeric precision, the batch and the
# hardware; at input lengths such as 1K, 4K and 16K, record task accuracy, peak memory, throughput and p95 latency; put
# the key evidence at different positions in the sequence.* We run it on a task with a known answer, comparing full
# attention (tiled) with the symmetric window of 511 keys ($W = 256$). The question stands last, with no token after it,
# so it sees the last 256 keys, itself and the 255 before it: for the question this is the decoder's window of 256.
#
# ### The task: a needle in a haystack
#
# A document of $T$ tokens, each with a random key and a value naming one of 16 answers. The question is the **last**
# token's query. One token, the **needle**, has a key that matches it: its score ($10^2/\sqrt{32} \approx 17.7$) stands
# far above the distractors' (standard deviation about 1.8), and its value is the answer; guessing gives
# $1/16 \approx 0.06$. Keys and values (the "weights" here), float32, one document a request and one BLAS thread are fixed.

# %% [markdown] lang="zh"
# ## 《注意力机制》一文的验证方法
#
# 原教程讲了怎样检验一项优化是否真的有效：固定模型权重、数值精度、批大小（batch）和硬件；在 1K、4K、16K 等输入长度下，记录任务正确率、峰值显存、吞吐量和 p95 延迟；
# 还要把关键证据放到序列的不同位置。下面在答案已知的任务上执行这套方法，比较全局注意力（分块实现）与 511 个 Key 的对称窗口（$W = 256$）。
# 问题是最后一个 token，后面再没有 token，所以它看到的是最后 256 个 Key，即它自己和前面的 255 个；对问题来说，这就是解码器里宽度为 256 的窗口。
#
# ### 任务：大海捞针
#
# 这类任务叫“大海捞针”（needle in a haystack）。一篇文档有 $T$ 个 token，每个 token 有一个随机的 Key 和一个 Value，Value 指明 16 个答案之一。问题是**最后一个** token 的 Query。
# 其中一个 token 就是**针**，它的 Key 与问题匹配，分数 $10^2/\sqrt{32} \approx 17.7$ 远高于干扰项（标准差约 1.8），它的 Value 就是答案。
# 问题输出中最大的一项指向针的答案就算答对，瞎猜的正确率是 $1/16 \approx 0.06$。权重（这里就是 Key 和 Value）、精度（float32）、
# 批大小（每个请求一篇文档）和硬件（一个 BLAS 线程）都固定不变。

# %%
doc = efficient_lab.needle_document(1024, n_trials=20, d=D, seed=0)    # [en] 20 documents of 1,024 tokens [zh] 20 篇文档，每篇 1,024 个 token
k_doc, v_doc = efficient_lab.plant_needle(doc, 300)                     # [en] needle at position 300 [zh] 针在位置 300
scores_last = (doc["q"] @ np.swapaxes(k_doc, -1, -2))[:, 0] / np.sqrt(D)   # [en] (20, T): the question's scores [zh] (20, T)：问题的分数
others = np.delete(scores_last, 300, axis=1)
print(f"[en]needle score {scores_last[0, 300]:.2f};  distractors: mean {others.mean():.2f}, std {others.std():.2f}, largest {others.max():.2f}[zh]针的分数 {scores_last[0, 300]:.2f}；干扰项：均值 {others.mean():.2f}，标准差 {others.std():.2f}，最大 {others.max():.2f}")
print(f"[en]keys (N, T, d): {k_doc.shape}   values (N, T, C): {v_doc.shape}   answers of the 20 documents:[zh]Key (N, T, d)：{k_doc.shape}   Value (N, T, C)：{v_doc.shape}   20 篇文档的答案：", doc["answer"])

# %% [markdown] lang="en"
# ### Try it: window size and needle distance
#
# The question sits last, so with a window of $W$ it sees the last $W$ keys: itself and the $W - 1$ before it. Move the needle away and
# shrink the window: once the distance reaches $W$, the needle's weight drops to exactly 0 and the answer becomes a
# guess. The grey line is full attention. The last line counts the pairs each method computes for all 512 queries.

# %% [markdown] lang="zh"
# ### 动手试试：窗口大小与针的距离
#
# 问题在最后一个位置，窗口宽度为 $W$ 时，它只能看到最后 $W$ 个 Key，即它自己和前面的 $W - 1$ 个。把针移远、把窗口缩小：距离一旦达到 $W$，针的权重就恰好为 0，答案只能靠猜。
# 灰线是全局注意力。最后一行数出每种方法为全部 512 个 Query 算了多少对。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
widgets.window_retrieval_widget(512, window=128, distance=200)

# %% [markdown] lang="en"
# ### Accuracy by needle position at 1K, 4K and 16K
#
# The needle at seven depths (0% = the first token, 99% = close to the question), 20 documents per cell. In one
# layer the answer depends only on the last token's query and all keys and values, so we compute that one row (the
# last section of this notebook checks that it equals the last row of a full pass).

# %% [markdown] lang="zh"
# ### 不同长度、不同位置上的正确率
#
# 把针放在七个深度上，0% 是第一个 token，99% 离问题很近，每格 20 篇文档。一层注意力里，答案只取决于最后一个 token 的 Query 和全部 Key、Value，
# 所以只算这一行，本节最后一个小节会验证它等于完整前向计算的最后一行。

# %%
depths = np.array([0.0, 0.2, 0.4, 0.6, 0.8, 0.9, 0.99])
lengths = SIZES["needle"]
docs, accuracy = {}, {}
method_names = {"full": "[en]full[zh]全局", "window": "[en]window[zh]窗口"}
with efficient_lab.blas_threads(1):
    for T in lengths:
        docs[T] = efficient_lab.needle_document(T, n_trials=20, d=D, seed=T)
        result = efficient_lab.needle_accuracy(docs[T], efficient_lab.depth_positions(T, depths), window=W)
        for method in efficient_lab.METHODS:
            accuracy[method, T] = result[method]
print(pad("[en]depth of the needle:[zh]针的深度：", 28) + "".join(f"{100 * x:>7g}%" for x in depths))
for T in lengths:
    print(f"T = {T:>6,}  " + pad("[en]needle distance:[zh]针的距离：", 16) + "".join(f"{T - 1 - p:>8,}" for p in efficient_lab.depth_positions(T, depths)))
    for method in efficient_lab.METHODS:
        print(f"           {pad(method_names[method], 6)} " + pad("[en]accuracy:[zh]正确率：", 9) + "".join(f"{a:8.2f}" for a in accuracy[method, T]))
ax = efficient_lab.plot_accuracy_by_position(depths, accuracy, chance=1 / 16)

# %% [markdown] lang="en"
# Full attention answers every question at every position and length. The window answers only when the needle is
# within 256 tokens of the question: at 1K the last quarter of the document, at 4K and 16K only the 99% column.
# Elsewhere it guesses (0.05 or 0.15 with 20 documents, around chance), with the same number across a row: beyond the
# window the needle's position changes nothing the question sees. Accuracy does not fade with distance; it falls off a
# cliff at the edge of the window.
#
# ### Peak memory, throughput and p95 latency
#
# One request: the whole document through the layer, all $T$ queries, as when a prompt is read. One run is traced for
# peak memory, then timed runs fill about 0.6 s (at least 3); throughput is tokens per second of the median run, p95 the
# 95th percentile. Your timings will differ; the memory will not.

# %% [markdown] lang="zh"
# 全局注意力在每个位置、每种长度下都答对了。窗口只有在针离问题不到 256 个 token 时才答得对：1K 时是文档的最后四分之一，即深度 80% 到 99%，
# 4K 和 16K 时只剩 99% 这一列。其余各处都在瞎猜：20 篇文档的正确率只有 0.05 或 0.15，在随机水平 $1/16 \approx 0.06$ 附近。
# 同一行里这些数都一样，因为针一旦出了窗口，放在哪里，问题都看不出区别。正确率不是随距离慢慢衰减，而是在窗口边缘断崖式下跌。
#
# ### 峰值内存、吞吐量与 p95 延迟
#
# 一次请求就是让整篇文档通过这一层，全部 $T$ 个 Query 一起算，就像读入提示词时那样。先跟踪一次运行测峰值内存，再在约 0.6 秒内尽量多跑几次计时，至少 3 次。
# 吞吐量取中位数那次的每秒 token 数，p95 延迟是运行时间的第 95 百分位数。你测出的时间会与这里不同，内存则不会。

# %%
# MEASUREMENT
# (wall-clock timings)
costs, answers_prefill = {}, {}
with efficient_lab.blas_threads(1):
    for T in lengths:
        Q, K, V = efficient_lab.prefill_inputs(docs[T], int(efficient_lab.depth_positions(T, [0.5])[0]))
        for method in efficient_lab.METHODS:
            run = efficient_lab.measure_prefill(method, Q, K, V, window=W)
            costs[method, T] = {**efficient_lab.cost_summary(T, run["seconds"]), "peak_bytes": run["peak_bytes"]}
            answers_prefill[method, T] = run["output"][-1]                  # [en] the question's output (C,) [zh] 问题的输出 (C,)
print("[en]     T  method   runs   throughput (tokens/s)   median latency   p95 latency[zh]     T  方法     次数     吞吐量（token/秒）       延迟中位数      p95 延迟")
for T in lengths:
    for method in efficient_lab.METHODS:
        c = costs[method, T]
        print(f"{T:>6,}  {pad(method_names[method], 6)}  {c['runs']:>4}   {c['tokens_per_s']:>21,.0f}   {c['median_ms']:11.1f} ms"
              f"   {c['p95_ms']:8.1f} ms")

# %%
print("[en]     T  method   peak memory   full pass: answer right (needle at 50%)[zh]     T  方法       峰值内存    完整前向：答对了吗（针在 50%）")
for T in lengths:
    for method in efficient_lab.METHODS:
        right = int(answers_prefill[method, T].argmax()) == int(docs[T]["answer"][0])
        print(f"{T:>6,}  {pad(method_names[method], 6)}  {costs[method, T]['peak_bytes'] / MiB:7.1f} MiB   {right}")

# %% [markdown] lang="en"
# Both methods need little memory. The difference is time: full attention scores all $T^2$ pairs, so a 4× longer
# document takes roughly 16× longer; the window scores about $T(2W - 1)$ pairs, its throughput stays roughly flat, and at
# 16K it is many times faster. And in the full pass with the needle at 50%, full attention answers right and the window
# does not, as in the accuracy table.
#
# ### When speed rises and accuracy falls: check the visible range first
#
# This is the situation the tutorial warns about. Before suspecting the kernels, check what each query can **see**: in
# each cell of the table, is the needle within the question's window (distance $< W$)?

# %% [markdown] lang="zh"
# 两种方法需要的内存都不多：分块注意力从不保存 $(T, T)$ 矩阵，窗口内核只保存一个带状分块。差别在时间上。全局注意力要给全部 $T^2$ 对打分，
# 文档每长 4 倍，耗时大约长 16 倍；窗口只给约 $T(2W - 1)$ 对打分，吞吐量大致持平，16K 时要快好多倍。针放在 50% 处做完整前向时，
# 全局注意力答对了，窗口没有，与正确率表一致。
#
# ### 速度提高、正确率下降时，先查可见范围
#
# 这正是原教程提醒的情形。怀疑内核之前，先查每个 Query 能**看到**什么：正确率表的每一格里，针是否在问题的窗口之内，即距离小于 $W$？

# %%
for T in lengths:
    distance = T - 1 - efficient_lab.depth_positions(T, depths)
    visible = distance < W
    window_acc = accuracy["window", T]
    print(f"T = {T:>6,}  " + f"[en]needle visible: {visible.astype(int)}   window accuracy 1.00 exactly where visible:[zh]针是否可见：{visible.astype(int)}   窗口正确率恰好在可见处为 1.00：",
          bool(((window_acc == 1.0) == visible).all()))
q1, k1, v1 = (x[None] for x in efficient_lab.prefill_inputs(docs[1024], 300))                 # (1, T, ...)
last_row = efficient_lab.prefill("full", q1[0], k1[0], v1[0])[-1]
single = efficient_lab.answer_last_query({**docs[1024], "q": q1[:, -1:]}, k1, v1, "full")[0]
print(f"[en]last row of the full pass vs the question alone: max difference {np.abs(last_row - single).max():.6f}[zh]完整前向的最后一行与单独计算问题：最大差 {np.abs(last_row - single).max():.6f}")


# %% [markdown] lang="en"
# The visible range explains every number: accuracy is 1.00 exactly where the needle is inside the window, chance
# elsewhere. The kernels are not to blame: the banded kernel equals full attention with the window mask, tiled attention
# equals the naive formula, the question's row alone equals the last row of the full pass. So: **first the visible range
# and the mask, then the kernels.** A wrong visible range (a window too short, a mask built for the wrong length, a
# causal mask where a bidirectional one was meant) gives fast, confident, wrong answers that no kernel test catches, and
# no heatmap either: the window's weights still sum to 1 and look plausible. Only accuracy on a task with a known
# answer, at several lengths and positions, shows the needle is out of reach.
#
# ## Misconceptions
#
# - **"FlashAttention is an approximation."** No: the online softmax regroups the same sums (0 to 12 decimals above).
#   Windows and sparse patterns change the result, because they change the mask.
# - **"FlashAttention makes attention linear."** It makes the **memory** linear; the time still grows like $T^2$.
# - **"A window is free speed."** It trades reach for speed: a key $W$ or more positions away gets weight exactly 0, and
#   our needle at distance 3,276 is out of reach of one layer.

# %% [markdown] lang="zh"
# 可见范围解释了表中的每一个数：针在窗口之内时正确率恰好是 1.00，其余都是随机水平。内核没有问题：带状内核等于全局注意力加窗口掩码，
# 分块注意力等于朴素公式，只算问题那一行也等于完整前向的最后一行。所以检查的顺序是：**先查可见范围和掩码，再查内核**。
# 可见范围一旦错了（窗口太短、掩码按错误的长度构造、该用双向掩码却用了因果掩码），得到的就是又快又自信却错误的答案。
# 任何内核测试都发现不了，注意力热图也发现不了：窗口内的权重照样加起来等于 1，看上去合情合理。只有在答案已知的任务上，在多种长度和位置测出的正确率，才能说明针根本够不着。
#
# ## 常见误区
#
# - “**FlashAttention 是一种近似。**”不是。在线 softmax 只是把同样的和重新分组，上面的差在 12 位小数内为 0。改变结果的是窗口和稀疏模式，因为它们改变了掩码。
# - “**FlashAttention 让注意力变成线性复杂度。**”它让**内存**变成线性，耗时仍随 $T^2$ 增长。
# - “**窗口是白捡的速度。**”它用可达范围换速度：距离达到 $W$ 的 Key 权重恰好为 0，我们放在距离 3,276 处的针，一层注意力就够不着。

# %% [markdown] lang="en"
# ## Exercise 1 · ★☆☆ · about 10 min: the causal window
#
# Write `my_sliding_window_mask(T, window)`, the causal window of Mistral and of `ac.sliding_window_mask(T, window)`:
# query $i$ sees keys $i - \text{window} + 1, \dots, i$, that is `window` keys, itself included (the course's "window
# of $w$"). The checker names a
# window one key too wide, a window that also looks ahead, a missing diagonal and an inverted mask.

# %% [markdown] lang="zh"
# ## 练习 1 · ★☆☆ · 约 10 分钟：因果窗口
#
# 写出 `my_sliding_window_mask(T, window)`，也就是 Mistral 和 `ac.sliding_window_mask(T, window)` 所用的因果窗口：Query $i$ 能看到第
# $i - \text{window} + 1$ 到 $i$ 个 Key，共 `window` 个，包括它自己，这也是本课程“宽度为 $w$ 的窗口”的含义。
# 窗口宽了一个 Key、看到了未来的 Key、漏了对角线、掩码取反，检查器都能指出来。

# %%
def my_sliding_window_mask(T, window):
    """[en] -> (T, T) bool: True where query i may attend to key j, that is 0 <= i - j < window
    [zh] -> (T, T) 布尔型：Query i 可以关注 Key j（即 0 <= i - j < window）处为 True"""
    raise NotImplementedError("[en]compare i - j with 0 and with window[zh]把 i - j 与 0 和窗口宽度比较")

checks.check_sliding_window_mask(my_sliding_window_mask)


# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def my_sliding_window_mask(T, window):
#     gap = np.arange(T)[:, None] - np.arange(T)[None, :]     # i - j, (T, T)
#     return (gap >= 0) & (gap < window)                      # the past, window keys deep
# ```
# </details>

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def my_sliding_window_mask(T, window):
#     gap = np.arange(T)[:, None] - np.arange(T)[None, :]     # i - j, (T, T)
#     return (gap >= 0) & (gap < window)                      # 过去的 window 个 Key
# ```
# </details>

# %% [markdown] lang="en"
# ## Stretch exercise 2 · ★★★ · about 30 min: attention with an online softmax
#
# Write `my_online_attention(q, k, v, block_size)`: $\text{softmax}(QK^\top/\sqrt{d_k})V$ for `q` $(T_q, d_k)$, `k`
# $(T_k, d_k)$, `v` $(T_k, d_v)$, taking the keys `block_size` at a time and keeping only $m$, $\ell$ and an accumulator
# per query row. The checker compares with the library, feeds keys whose maximum rises block after block, an uneven last
# block and scores near 1000, then **measures your peak memory** at $T = 1024$: it must stay below half of the
# $(T_q, T_k)$ score matrix (8 MiB in float64), so the full matrix may not exist even for a moment.

# %% [markdown] lang="zh"
# ## 挑战练习 2 · ★★★ · 约 30 分钟：用在线 softmax 做注意力
#
# 写出 `my_online_attention(q, k, v, block_size)`：对 `q` $(T_q, d_k)$、`k` $(T_k, d_k)$、`v` $(T_k, d_v)$ 返回
# $\text{softmax}(QK^\top/\sqrt{d_k})V$，每次只取 `block_size` 个 Key，每个 Query 行只保留 $m$、$\ell$ 和一个累加器。
# 检查器会与库的结果比较，喂给它最大值逐块上升的 Key、不满一块的最后一块和接近 1000 的分数，然后在 $T = 1024$ 时**测量你的峰值内存**：
# 必须低于 4 MiB，即 float64 下 $(T_q, T_k)$ 分数矩阵（8 MiB）的一半，所以完整的矩阵一刻也不许出现。

# %%
def my_online_attention(q, k, v, block_size):
    """[en] q (Tq, Dk), k (Tk, Dk), v (Tk, Dv) -> (Tq, Dv), one block of keys at a time, never the (Tq, Tk) scores
    [zh] q (Tq, Dk)，k (Tk, Dk)，v (Tk, Dv) -> (Tq, Dv)，每次处理一块 Key，从不存下 (Tq, Tk) 的分数"""
    raise NotImplementedError("[en]m, l, acc per row; for each block: new max, rescale, add, ...; finally acc / l[zh]每行一组 m、l、acc；对每一块：新的最大值、重新缩放、累加……；最后 acc / l")

checks.check_online_attention(my_online_attention)

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def my_online_attention(q, k, v, block_size):
#     q = q / np.sqrt(q.shape[-1])                             # fold the scale into q
#     m = np.full((len(q), 1), -np.inf)                        # running maximum   (Tq, 1)
#     l = np.zeros((len(q), 1))                                # running sum       (Tq, 1)
#     acc = np.zeros((len(q), v.shape[-1]))                    # accumulator       (Tq, Dv)
#     for start in range(0, len(k), block_size):
#         s = q @ k[start:start + block_size].T                # one block of scores (Tq, B)
#         m_new = np.maximum(m, s.max(axis=1, keepdims=True))
#         rescale = np.exp(m - m_new)                          # <= 1: old sums to the new maximum
#         p = np.exp(s - m_new)
#         l = l * rescale + p.sum(axis=1, keepdims=True)
#         acc = acc * rescale + p @ v[start:start + block_size]
#         m = m_new
#     return acc / l
# ```
# </details>

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def my_online_attention(q, k, v, block_size):
#     q = q / np.sqrt(q.shape[-1])                             # 把缩放并入 q
#     m = np.full((len(q), 1), -np.inf)                        # 当前最大值   (Tq, 1)
#     l = np.zeros((len(q), 1))                                # 当前累计和   (Tq, 1)
#     acc = np.zeros((len(q), v.shape[-1]))                    # 累加器       (Tq, Dv)
#     for start in range(0, len(k), block_size):
#         s = q @ k[start:start + block_size].T                # 一块分数 (Tq, B)
#         m_new = np.maximum(m, s.max(axis=1, keepdims=True))
#         rescale = np.exp(m - m_new)                          # <= 1：把旧的和换算到新的最大值下
#         p = np.exp(s - m_new)
#         l = l * rescale + p.sum(axis=1, keepdims=True)
#         acc = acc * rescale + p @ v[start:start + block_size]
#         m = m_new
#     return acc / l
# ```
# </details>

# %% [markdown] lang="en"
# ## Summary
#
# - The **online softmax** carries $m$, $\ell$ and $a$ through blocks of keys, rescaling by $e^{m - m'}$ when the maximum
#   rises; $a / \ell$ is the exact softmax output. `ac.tiled_attention` equals the naive formula and holds one tile of
#   scores: memory $O(T)$, compute still $O(T^2)$.
# - Fused kernels do not return weights: none is final before the last block.
# - Windows and sparse patterns compute fewer pairs (3.1% at 16K with the symmetric window of 511 keys) but hide what lies outside the window.
#   Linear attention and Linformer are linear in memory but different functions: linear attention cannot make one key
#   win, Linformer approaches full attention only where the weights are close to low rank (0.015 at $k = 256$ on smooth
#   inputs, 0.734 on random ones) and takes no causal mask.
# - On the needle task full attention is right everywhere, the window only within 256 tokens, while many times faster.
#   When speed rises and long-range accuracy falls, check the visible range and the mask first, then the kernels.
#
# The measured peaks:

# %% [markdown] lang="zh"
# ## 小结
#
# - **在线 softmax** 在各块 Key 之间带着 $m$、$\ell$ 和 $a$ 前进，最大值上升时乘以 $e^{m - m'}$ 重新缩放，$a / \ell$ 就是精确的 softmax 输出。
#   `ac.tiled_attention` 等于朴素公式，只保存一个分数块：内存是 $O(T)$，计算量仍是 $O(T^2)$。
# - 融合内核不返回权重，因为最后一块之前没有哪个权重是最终值。
# - 窗口和稀疏模式少算了许多对，16K、511 个 Key 的对称窗口只算 3.1%，却把窗口之外的东西藏了起来。线性注意力和 Linformer 的内存都是线性的，但它们是另外的函数：
#   线性注意力没法让一个 Key 胜出；Linformer 只在权重接近低秩时才接近全局注意力（与全局注意力的相对误差：平滑输入、$k = 256$ 时 0.015，随机输入 0.734），而且放不进因果掩码。
# - 在大海捞针任务上，全局注意力处处答对，窗口只在 256 个 token 以内答对，却快了好多倍。速度提高而长距离正确率下降时，先查可见范围和掩码，再查内核。
#
# 实测的峰值：

# %%
# NBVAL_IGNORE_OUTPUT
# (peaks measured by the MEASUREMENT cells above: they vary a little between machines)
tiled_last, lin_last = rows[-1], compared[-1]                       # [en] the longest T of each table [zh] 两张表里最长的 T
tiled_mib, naive_mib = tiled_last["tiled_peak"] / MiB, tiled_last["naive_analytic"] / MiB
lin_mib = [r["linformer"] / MiB for r in compared]
steps = " → ".join(f"{x:.2f}" for x in lin_mib[:-1])
print(f"[en]- Measured at T = {tiled_last['T']:,}: the tiled peak is {tiled_mib:.1f} MiB, where the naive formula needs {naive_mib:,.0f} MiB in theory.[zh]- 实测：T = {tiled_last['T']:,} 时，分块实现的峰值是 {tiled_mib:.1f} MiB，而朴素实现理论上要 {naive_mib:,.0f} MiB。")
print(f"[en]- Linformer (k = 256): {steps} MiB as T doubles, {lin_mib[-1]:.1f} MiB at T = {lin_last['T']:,}.[zh]- Linformer（k = 256）：T 逐次翻倍时 {steps} MiB，T = {lin_last['T']:,} 时 {lin_mib[-1]:.1f} MiB。")

# %% [markdown] lang="en"
# **Next:** [11 · Review](11_review.ipynb) puts the mechanism in one place with the eight self-test questions, before the trained models of 12 and 13.

# %% [markdown] lang="zh"
# **下一节**：[11 · 总复习](11_review.ipynb)，把注意力机制整体回顾一遍，做八道自测题，然后在 12、13 节研究训练好的模型。
