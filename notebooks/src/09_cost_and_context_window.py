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
# # 09 · Cost and the context window
#
# **After this notebook you will be able to**
# - count the query–key pairs of a context of $n$ tokens, and say what doubling $n$ does to them;
# - turn the pairs into FLOPs ($4n^2D$) and bytes ($H n^2 \times 4$ in float32), and compare them with the linear parts of a layer ($24nD^2$);
# - measure the time and peak memory of real attention calls as $n$ grows;
# - explain why context windows are limited, and what a kernel such as FlashAttention does and does not change;
# - measure the KV cache growing linearly with the context at inference, and size it for real models;
# - tell "lost in the middle" apart from "diluted weights".
#
# **What you should know first:** the shapes of attention, $(n, d_k) \to (n, n)$
# ([02 · Scaled dot-product attention](02_scaled_dot_product.ipynb)); heads ([06 · Multi-head attention](06_multi_head_attention.ipynb));
# position biases before softmax ([07 · Position](07_position.ipynb)). *About 60 minutes.*

# %% [markdown] lang="zh"
# # 09 · 计算代价与上下文窗口
#
# **学完本节，你将能够**
# - 数出 $n$ 个 token 的上下文里有多少个 Query–Key 对，说清 $n$ 翻倍时它们怎样变化；
# - 把位置对换算成浮点运算次数 $4n^2D$ 和字节数（float32 下为 $H n^2 \times 4$），并与一层里线性部分的 $24nD^2$ 比较；
# - 实测 $n$ 增大时真实注意力调用的时间和峰值内存；
# - 解释上下文窗口为什么有上限，以及 FlashAttention 这类内核改变了什么、没改变什么；
# - 测量推理时随上下文线性增长的 KV 缓存，算出真实模型的缓存有多大；
# - 分清“中间迷失”和“权重被摊薄”。
#
# **需要的基础**：注意力的形状变化 $(n, d_k) \to (n, n)$，见 [02 节](02_scaled_dot_product.ipynb)；多头注意力，见 [06 节](06_multi_head_attention.ipynb)；
# softmax 之前的位置偏置，见 [07 节](07_position.ipynb)。*约 60 分钟。*

# %%
LANG = "[en]en[zh]zh"  # [en] language of this edition: "en" or "zh" [zh] 本版的语言："en" 或 "zh"
# %matplotlib inline
import matplotlib.pyplot as plt
import numpy as np

import attention_core as ac
from attention_core.labs.nb09_cost_and_context_window import checks, cost_lab, kv_cache, long_context, widgets
from attention_core.teaching import i18n, quiz, tables
from attention_core.teaching.tables import pad

i18n.set_language(LANG)
rng = np.random.default_rng(0)  # [en] every random number in this notebook comes from this seed [zh] 本节的所有随机数都来自这个种子
np.set_printoptions(precision=3, suppress=True)  # [en] arrays print with 3 decimals [zh] 数组打印时保留 3 位小数

# %% [markdown] lang="en"
# ## Counting the pairs
#
# Attention's strength is that every token looks at every other token directly, in one step (notebook 08:
# path length 1). That is also its bill. **Predict first**, before anything is counted: for a context of 4,096 tokens,
# how many query–key pairs does one head score in one layer?

# %% [markdown] lang="zh"
# ## 数一数位置对
#
# 注意力的长处在于：每个 token 都能一步直接看到其他所有 token（08 节：路径长度为 1）。这也正是它的代价所在。
# 在数之前，**先预测一下**：上下文有 4,096 个 token 时，一个头在一层里要给多少个 Query–Key 对打分？

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
quiz.quiz_widget("p9")

# %% [markdown] lang="en"
# Now count. Each of the $n$ queries is compared with each of the $n$ keys, so one head of one layer fills an
# $n \times n$ matrix of scores: $n^2$ query–key pairs. The library's own weights show it:

# %% [markdown] lang="zh"
# 现在来数。$n$ 个 Query 中的每一个都要和 $n$ 个 Key 逐一比较，所以一层里的一个头要填满一个 $n \times n$ 的分数矩阵：$n^2$ 个 Query–Key 对。
# 库里算出的权重矩阵本身就能说明这一点：

# %%
for n in (6, 12, 24):
    x = rng.normal(size=(n, 8))                                     # [en] (T, D): n tokens [zh] (T, D)：n 个 token
    _, w = ac.scaled_dot_product_attention(x, x, x)                 # w: (Tq, Tk) = (n, n)
    print(f"[en]n = {n:2d}: weights {w.shape}, {w.size:4d} pairs = n² = {cost_lab.pair_count(n)}[zh]n = {n:2d}：权重 {w.shape}，{w.size:4d} 个位置对 = n² = {cost_lab.pair_count(n)}")

# %% [markdown] lang="en"
# Twice the tokens, four times the pairs. The tutorial "Attention mechanism" (注意力机制) puts numbers on it: 1,000
# tokens need about 1 million pairs, 100,000 tokens about 10 billion. The table gives those, your prediction's 4,096
# tokens, and the context windows of today's models (128K, 200K, 1M tokens; 128K means 131,072 here), per head and
# per layer:

# %% [markdown] lang="zh"
# token 数翻倍，位置对变成四倍。《注意力机制》一文给出了具体数字：1 千个 token 约需 100 万个位置对，10 万个 token 约需 100 亿个。
# 下表列出这两个数、你刚才预测的 4,096 个 token，以及当今模型的上下文窗口 128K、200K 和 1M 个 token 对应的位置对数
# （本节的 128K 指 131,072），都按每个头、每一层计：

# %%
print(pad("[en]n tokens[zh]token 数 n", 11, "right") + "  " + pad("[en]pairs n²[zh]位置对 n²", 19, "right") + f"  {'≈':>10}  "
      + "[en]vs 1,000 tokens[zh]与 1,000 个 token 相比")
for n in (1_000, 1_024, 4_096, 100_000, 131_072, 200_000, 1_000_000):   # 128K = 128 · 1,024 = 131,072
    pairs = cost_lab.pair_count(n)
    times = pairs / cost_lab.pair_count(1_000)
    print(f"{n:>11,}  {pairs:>19,}  {pad(cost_lab.format_count(pairs), 10, 'right')}  × {times:,.0f}" if times >= 100 else
          f"{n:>11,}  {pairs:>19,}  {pad(cost_lab.format_count(pairs), 10, 'right')}  × {times:.2f}")
n = 4_096
print(f"[en]n = {n:,} → 2n = {2 * n:,}: pairs × {cost_lab.pair_count(2 * n) / cost_lab.pair_count(n):.0f};  → 10n = {10 * n:,}: pairs × {cost_lab.pair_count(10 * n) / cost_lab.pair_count(n):.0f}[zh]n = {n:,} → 2n = {2 * n:,}：位置对 × {cost_lab.pair_count(2 * n) / cost_lab.pair_count(n):.0f}；→ 10n = {10 * n:,}：位置对 × {cost_lab.pair_count(10 * n) / cost_lab.pair_count(n):.0f}")

# %% [markdown] lang="en"
# The row of 4,096 tokens answers the prediction: $4{,}096^2 = 16{,}777{,}216$ pairs, 16 times the 1,024-token row.
# A context 100 times longer costs $100^2 = 10{,}000$ times the pairs. The tutorial "Transformer self-attention: the
# intuition, no maths needed" (Transformer 自注意力机制：直觉理解，不需要数学) calls this "a physical limit, not
# engineering laziness". Read it with its scope: $n^2$ is a property of exact attention over **all** pairs, and no
# clever code avoids it while computing that. Compute something else (a window, a sparse pattern, linear attention in
# notebook 10) and the count changes, at the price of what the model can see.

# %% [markdown] lang="zh"
# 4,096 个 token 那一行就是预测题的答案：$4{,}096^2 = 16{,}777{,}216$ 个位置对，是 1,024 个 token 时的 16 倍。
# 上下文长 100 倍，位置对就要多 $100^2 = 10{,}000$ 倍。《Transformer 自注意力机制：直觉理解，不需要数学》说这“是物理限制，不是工程偷懒”。
# 这句话要连同适用范围一起读：$n^2$ 是对**所有**位置对做精确注意力这种计算本身的性质，只要算的是它，再巧妙的代码也绕不开。
# 换一种算法，比如窗口、稀疏模式或 10 节的线性注意力，这个数就会变，代价是模型能看到的关系变少了。

# %% [markdown] lang="en"
# ## From pairs to FLOPs and bytes
#
# Follow one head through attention with its shapes (a multiply-add is 2 FLOPs):
#
# 1. **Scores** $QK^\top$: $(n, d_k) \cdot (d_k, n) \to (n, n)$, each a dot product of $d_k$ multiply-adds: $2n^2 d_k$ FLOPs.
# 2. **Softmax** over each row: about $n^2$ exponentials, small next to the products when $d_k \ge 64$.
# 3. **Mixing** weights $\cdot V$: $(n, n) \cdot (n, d_v) \to (n, d_v)$: another $2n^2 d_v$ FLOPs.
#
# With $H$ heads of width $d_k = d_v = D / H$, the heads together do $4n^2 D$ FLOPs, whatever $H$ is. Memory is
# different: a **naive** implementation keeps the $(n, n)$ weights of every head, $H \cdot n^2$ numbers of 4 bytes in
# float32. The library's multi-head layer shows the bytes:

# %% [markdown] lang="zh"
# ## 从位置对到浮点运算次数和字节
#
# 跟着一个头把注意力逐步算一遍，并标出每一步的形状。计算量用浮点运算次数（FLOPs）衡量，一次乘加记作 2 次浮点运算：
#
# 1. **打分** $QK^\top$：$(n, d_k) \cdot (d_k, n) \to (n, n)$，每个分数是 $d_k$ 次乘加的点积，共 $2n^2 d_k$ 次浮点运算。
# 2. **softmax**：每行归一化，约 $n^2$ 次指数运算，$d_k$ 不小于 64 时比起矩阵乘法可以忽略。
# 3. **混合**权重 $\cdot V$：$(n, n) \cdot (n, d_v) \to (n, d_v)$，又是 $2n^2 d_v$ 次浮点运算。
#
# 有 $H$ 个维度为 $d_k = d_v = D / H$ 的头时，所有头加起来是 $4n^2 D$ 次浮点运算，与头数无关。内存则不同：**朴素**实现要存下每个头的 $(n, n)$ 权重，
# 共 $H \cdot n^2$ 个数，float32 下每个 4 字节。库里的多头注意力层可以直接给出字节数：

# %%
d_model, n_heads = 64, 4
params = ac.init_multihead(d_model, n_heads, seed=0, dtype=np.float32)
for n in (256, 512, 1024):
    x = rng.normal(size=(n, d_model)).astype(np.float32)                    # (T, D)
    _, w = ac.multi_head_attention(x, x, x, params)                         # w: (H, T, T)
    cost = cost_lab.attention_cost(n, d_model, n_heads, dtype="float32")
    print(f"[en]n = {n:4d}: weights {w.shape} = {w.nbytes:>10,} bytes;  H·n²·4 = {cost['score_bytes']:>10,} ({cost_lab.format_bytes(w.nbytes)})[zh]n = {n:4d}：权重 {w.shape} = {w.nbytes:>10,} 字节；H·n²·4 = {cost['score_bytes']:>10,}（{cost_lab.format_bytes(w.nbytes)}）")

# %% [markdown] lang="en"
# Attention is not the whole layer. The projections $W^Q, W^K, W^V, W^O$ cost $8nD^2$ FLOPs and the feed-forward
# network ($D \to 4D \to D$) $16nD^2$: together $24nD^2$, **linear** in $n$. The $n^2$ part overtakes them when
# $4n^2D > 24nD^2$, that is beyond $n = 6D$. Two model shapes, in float32:

# %% [markdown] lang="zh"
# 注意力并不是一层的全部。投影 $W^Q, W^K, W^V, W^O$ 需要 $8nD^2$ 次浮点运算，前馈网络 $D \to 4D \to D$ 需要 $16nD^2$，合计 $24nD^2$，
# 与 $n$ 成**线性**关系。当 $4n^2D > 24nD^2$，即 $n$ 超过 $6D$ 时，$n^2$ 部分就压过了它们。下面是两种模型形状，按 float32 计：

# %%
shapes = {"D = 768, H = 12": (768, 12), "D = 4096, H = 32": (4096, 32)}
for name, (d, h) in shapes.items():
    print(f"[en]{name}: the n² part equals the linear parts at n = 6·D = {cost_lab.attention_cost(1, d, h)['crossover']:,}[zh]{name}：n² 部分在 n = 6·D = {cost_lab.attention_cost(1, d, h)['crossover']:,} 时等于线性部分")
    print(f"  {'n':>9}  " + pad("[en]n² share of FLOPs[zh]n² 部分占 FLOPs", 18, "right") + "  " + pad("[en]score matrices of one layer[zh]一层的分数矩阵", 28, "right"))
    for n in (1_024, 8_192, 32_768, 131_072):
        c = cost_lab.attention_cost(n, d, h, dtype="float32")
        print(f"  {n:>9,}  {c['quadratic_share']:>17.0%}  {cost_lab.format_bytes(c['score_bytes']):>28}")

# %%
ax = cost_lab.plot_flops(4096, mark=131_072)

# %% [markdown] lang="en"
# On log-log axes $n^2$ is a line of slope 2 and $n$ one of slope 1, so the steeper one must win. For $D = 4096$ it wins
# from 24,576 tokens on; at 128K tokens (green line) it does about 84% of the work, and a naive layer would hold 2 TiB of
# weights. Short contexts are dominated by the linear parts, which is why the $n^2$ term surprises people only when
# they grow the window.

# %% [markdown] lang="zh"
# 在双对数坐标里，$n^2$ 是斜率为 2 的直线，$n$ 是斜率为 1 的直线，更陡的那条迟早胜出。$D = 4096$ 的模型从 24,576 个 token 起就由它占上风；
# 到 128K 个 token（绿线）时它约占 84% 的计算量，一层的朴素实现要存 2 TiB 的权重。上下文较短时线性部分占主导，所以人们往往要到扩大窗口时才被 $n^2$ 吓一跳。

# %% [markdown] lang="en"
# ## Measured: time and memory against n
#
# Does a real call behave like this? We run `scaled_dot_product_attention` on random $(n, 64)$ float32 inputs and ask
# for the weights, so it holds the whole $(n, n)$ matrix as a naive implementation does. `tracemalloc` records the peak
# of the memory NumPy allocates during the call, which does not depend on the machine. In the browser edition, where
# NumPy runs without threads or an optimised BLAS, the sweeps stop at 2,048 tokens.

# %% [markdown] lang="zh"
# ## 实测：时间和内存随 n 的变化
#
# 真实的调用也是这样吗？我们在随机的 $(n, 64)$ float32 输入上运行 `scaled_dot_product_attention`，并要它返回权重，于是它像朴素实现一样存下整个 $(n, n)$ 矩阵。
# `tracemalloc` 记录调用期间 NumPy 分配内存的峰值，这个数与机器无关。浏览器版里 NumPy 没有多线程，也没有优化过的 BLAS，所以实验只做到 2,048 个 token。

# %%
import sys

# [en] in the browser (Pyodide) the sweeps stop at 2,048 tokens
# [zh] 在浏览器里（Pyodide），实验只做到 2,048 个 token
sizes = (256, 512, 1024, 2048) if sys.platform == "emscripten" else (256, 512, 1024, 2048, 4096)
memory = cost_lab.measure_sweep(sizes, d_k=64, timing=False)                 # [en] peak memory only [zh] 只测峰值内存
print(f"{'n':>5}  " + pad("[en]peak MiB[zh]峰值 MiB", 9, "right") + f"  {'n²·4':>11}  " + pad("[en]peak / previous[zh]峰值 / 上一行", 15, "right"))
previous = None
for r in memory:
    ratio = "" if previous is None else f"× {r['peak_bytes'] / previous:.2f}"
    print(f"{r['n_tokens']:>5}  {r['peak_bytes'] / 2**20:>9.1f}  {r['weights_bytes'] / 2**20:>7.1f} MiB  {ratio:>15}")
    previous = r["peak_bytes"]

# %% [markdown] lang="en"
# The peak is the weight matrix ($n^2 \times 4$ bytes) plus two small $(n, 64)$ arrays, so it approaches ×4 per
# doubling. Time changes from run to run and machine to machine; the next cell takes the fastest of five rounds on one
# BLAS thread and prints coarse ratios. Your numbers will differ, the trend will not.

# %% [markdown] lang="zh"
# 峰值就是 $n^2 \times 4$ 字节的权重矩阵再加两个小的 $(n, 64)$ 数组，所以每翻倍一次就趋近 ×4。时间则每次运行、每台机器都不一样，
# 下一个单元格只用一个 BLAS 线程、五轮中取最快的一轮，只打印粗略的倍数。你的数字会不同，趋势不会变。

# %%
# MEASUREMENT
# (wall-clock time: different on every run, so nbval does not compare this cell)
timed = cost_lab.measure_sweep(sizes, d_k=64, repeats=5)
seconds = [r["seconds"] for r in timed]
print("[en]time ratio per doubling of n:[zh]n 每翻倍一次，时间之比：", " ".join(f"×{x:.1f}" for x in cost_lab.growth_ratios(seconds)))
print(f"[en]log-log slope from {sizes[2]:,} to {sizes[-1]:,} tokens: {cost_lab.loglog_slope(sizes[2:], seconds[2:]):.1f}  (n² has slope 2)[zh]从 {sizes[2]:,} 到 {sizes[-1]:,} 个 token 的双对数斜率：{cost_lab.loglog_slope(sizes[2:], seconds[2:]):.1f}（n² 的斜率是 2）")
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8), layout="compressed")
ax = cost_lab.plot_measured(timed, "seconds", ax=left)
ax = cost_lab.plot_measured(timed, "peak_bytes", ax=right)

# %% [markdown] lang="en"
# The memory line lies on the $n^2$ reference almost exactly. The time line is noisier: one shared CPU makes the
# ratios jump around ×4 and the slope printed above can fall short of 2, and small calls (well under a millisecond)
# show their fixed costs. The memory line shows the $n^2$ more cleanly. The wall is $n^2$.

# %% [markdown] lang="zh"
# 内存曲线几乎正好落在 $n^2$ 参考线上。时间曲线的噪声更大：一块与其他任务共用的 CPU 会让比值在 4 倍上下跳动，上面打印的斜率也可能不到 2；规模小时一次调用远不到一毫秒，固定开销也会显现出来。内存曲线更清楚地显示出 $n^2$。这堵墙就是 $n^2$。

# %% [markdown] lang="en"
# ## Where n² takes over
#
# Change the model yourself. The slider sets the context length on a log scale from 128 to about a million tokens; the
# other controls set the heads $H$, layers $L$, width $D$ and number format. Left: the FLOPs of a forward pass, the
# $n^2$ part against the linear parts, the crossover $n = 6D$ dashed. Right: the score matrices one naive layer would
# hold, against the 80 GiB of one large GPU.
#
# Try 1,000 and then 100,000 tokens; change $H$ and watch the memory move while the FLOPs stay put; halve $D$ and watch
# the crossover move left.

# %% [markdown] lang="zh"
# ## n² 从哪里开始占上风
#
# 自己动手改模型。滑块以对数刻度设置上下文长度，从 128 到约一百万个 token；其余控件设置头数 $H$、层数 $L$、模型维度 $D$ 和数值格式。
# 左图是一次前向计算的浮点运算次数，$n^2$ 部分对比线性部分，虚线是交点 $n = 6D$；右图是朴素实现下一层要存的分数矩阵，对比一块大显卡的 80 GiB。
#
# 试着先设 1,000 个 token，再设 100,000 个；改变 $H$，看内存变而计算量不动；把 $D$ 减半，看交点左移。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
widgets.context_cost_widget(n_tokens=4096, n_heads=32, n_layers=32, d_model=4096, dtype="bfloat16")

# %% [markdown] lang="en"
# The widget's numbers come from a pure function you can call, for example at the tutorial's 100,000 tokens:

# %% [markdown] lang="zh"
# 控件里的数字来自一个纯函数，可以直接调用，例如取原教程的 100,000 个 token：

# %%
s = widgets.context_cost_state(n_tokens=100_000, n_heads=32, n_layers=32, d_model=4096, dtype="bfloat16")
print(f"[en]pairs per head and layer: {s['pairs_per_head']:,}   all heads and layers: {cost_lab.format_count(s['pairs'])}[zh]每个头、每一层的位置对：{s['pairs_per_head']:,}   所有头和层合计：{cost_lab.format_count(s['pairs'])}")
print(f"[en]score matrices of one layer (bfloat16): {cost_lab.format_bytes(s['score_bytes'])} = {s['gpu_ratio']:.1f} × 80 GiB[zh]一层的分数矩阵（bfloat16）：{cost_lab.format_bytes(s['score_bytes'])} = {s['gpu_ratio']:.1f} × 80 GiB")
print(f"[en]FLOPs of one forward pass: n² part {cost_lab.format_count(s['attention_flops'])}, linear parts {cost_lab.format_count(s['linear_flops'])}, n² share {s['quadratic_share']:.0%}[zh]一次前向计算的浮点运算次数：n² 部分 {cost_lab.format_count(s['attention_flops'])}，线性部分 {cost_lab.format_count(s['linear_flops'])}，n² 部分占 {s['quadratic_share']:.0%}")

# %% [markdown] lang="en"
# ## Why the context window is limited
#
# Why not skip most of the pairs? Because scoring **all** pairs is where attention's power comes from: any token can find
# any other, wherever it is. Score only some (a sliding window, sparse attention, notebook 10) and you limit what the
# model can see. Long-context models (128K, 200K, 1M tokens) push the engineering boundary with such approximations and
# with better kernels; the $n^2$ in principle stays.
#
# FlashAttention computes exact attention without ever storing the $(n, n)$ matrix: it works through tiles and keeps
# one at a time. That changes **memory traffic and constants**, not the $n^2$ compute. The library has a small version
# of the idea: with `need_weights=False` it works through blocks of query rows and keeps one block of scores. Its peak memory:

# %% [markdown] lang="zh"
# ## 为什么上下文窗口有上限
#
# 为什么不干脆跳过大部分位置对？因为给**所有**位置对打分正是注意力强大的来源：任何 token 都能找到任何其他 token，不管它在哪里。
# 只给部分位置对打分，比如 10 节的滑动窗口和稀疏注意力，就限制了模型能看到的东西。128K、200K、1M 个 token 的长上下文模型靠这类近似和更好的内核推进工程边界，
# 但原理上 $n^2$ 依然存在。
#
# FlashAttention 精确地计算注意力，却从不存下整个 $(n, n)$ 矩阵：它分块计算，每次只保留一块。它改变的是**显存搬运和常数**，不是 $n^2$ 的计算量。
# 库里有这个思路的一个小版本：设 `need_weights=False` 时，它按 Query 行分块，只保留一块分数。它的峰值内存如下：

# %%
blocked = cost_lab.measure_sweep(sizes, d_k=64, need_weights=False, timing=False)
print(f"{'n':>5}  " + pad("[en]full weights: peak MiB[zh]完整权重：峰值 MiB", 23, "right") + "  " + pad("[en]blocks: peak MiB[zh]分块：峰值 MiB", 17, "right"))
for full, part in zip(memory, blocked):
    print(f"{full['n_tokens']:>5}  {full['peak_bytes'] / 2**20:>23.1f}  {part['peak_bytes'] / 2**20:>17.1f}")

# %% [markdown] lang="en"
# From 2,048 tokens on, the blocked call holds one block of at most 4 MiB plus arrays of $n \times 64$ numbers: its
# memory grows linearly. But every score is still computed, so its **time** still grows as $n^2$ (single-core timings are noisy: the printed slope may fall short of 2 and the ratios jump around 4):

# %% [markdown] lang="zh"
# 从 2,048 个 token 起，分块调用只保留一块最多 4 MiB 的分数，外加几个 $n \times 64$ 的数组，内存变成线性增长。但每个分数照样要算，所以**时间**仍按 $n^2$ 增长（和上面一样，单核计时有噪声，打印的斜率可能不到 2，比值会在 4 倍上下跳动）：

# %%
# MEASUREMENT
# (wall-clock time: different on every run, so nbval does not compare this cell)
timed_blocks = cost_lab.measure_sweep(sizes, d_k=64, need_weights=False, repeats=5)
block_seconds = [r["seconds"] for r in timed_blocks]
print("[en]blocks, time ratio per doubling of n:[zh]分块，n 每翻倍一次的时间之比：", " ".join(f"×{x:.1f}" for x in cost_lab.growth_ratios(block_seconds)))
print(f"[en]log-log slope from {sizes[2]:,} to {sizes[-1]:,} tokens: {cost_lab.loglog_slope(sizes[2:], block_seconds[2:]):.1f}[zh]从 {sizes[2]:,} 到 {sizes[-1]:,} 个 token 的双对数斜率：{cost_lab.loglog_slope(sizes[2:], block_seconds[2:]):.1f}")

# %% [markdown] lang="en"
# A fused kernel moves the wall (longer contexts fit in the same memory, and on a GPU it is faster too) but does not
# remove it: per layer the work is still $4n^2D$. Notebook 10 builds the tiled version with an online softmax.

# %% [markdown] lang="zh"
# 融合内核挪动了这堵墙，同样的显存能装下更长的上下文，在 GPU 上也更快，但没有拆掉它：每层的计算量仍是 $4n^2D$。10 节会亲手搭建带在线 softmax 的分块版本。

# %% [markdown] lang="en"
# ## At inference: the KV cache grows linearly with the context
#
# Generation adds a memory cost that training does not have. A decoder produces one token at a time, and each new token
# attends to all earlier ones, so every layer keeps the **key and value** of every token so far instead of recomputing
# them: the **KV cache**. Its size is
#
# $$2 \times \text{layers} \times \text{KV heads} \times d_{head} \times n \times \text{bytes per number},$$
#
# **linear** in $n$, and a new token costs $n$ scores per head, not $n^2$ (the $n^2$ is paid once, for the prompt).
# Measured on a small decoder (2 layers, 4 heads of width 16, float64), token by token:

# %% [markdown] lang="zh"
# ## 推理时：KV 缓存随上下文线性增长
#
# 生成文本时还有一项训练时没有的内存开销。解码器一次只产生一个 token，每个新 token 都要关注之前所有的 token，所以每一层都把到目前为止每个 token 的
# **Key 和 Value** 存下来，不再重新计算，这就是 **KV 缓存**。它的大小是
#
# $$2 \times \text{层数} \times \text{KV 头数} \times d_{head} \times n \times \text{每个数的字节数}$$
#
# 与 $n$ 成**线性**关系；每生成一个新 token，每个头只需算 $n$ 个分数而不是 $n^2$ 个，$n^2$ 只在处理提示词时付一次。
# 下面在一个小解码器上逐个 token 实测，它有 2 层、4 个 16 维的头，用 float64：

# %%
steps = kv_cache.decode_with_cache(1024)
for step in (steps[i - 1] for i in (128, 256, 512, 1024)):
    print(f"[en]tokens in the cache {step['t']:>4}: cache {step['cache_bytes']:>9,} bytes, scores this step (2 layers × 4 heads) {step['scores']:>5}[zh]缓存中的 token {step['t']:>4}：缓存 {step['cache_bytes']:>9,} 字节，这一步计算的分数（2 层 × 4 个头）{step['scores']:>5} 个")
growth = sorted({steps[i]["cache_bytes"] - steps[i - 1]["cache_bytes"] for i in range(1, len(steps))})  # [en] one value: every step adds the same [zh] 只有一个值：每一步增加的都一样
print("[en]bytes added per token, at every one of the 1,023 steps:[zh]每个 token 增加的字节数（1,023 步里每一步都是）：", *growth,
      "[en]= 2 · 2 layers · 4 heads · 16 · 8 bytes =[zh]= 2 · 2 层 · 4 个头 · 16 · 8 字节 =", 2 * 2 * 4 * 16 * 8)

# %% [markdown] lang="en"
# Each token adds the same 2,048 bytes: doubling the context doubles the cache, never quadruples it. For real models,
# with their published shapes in float16:

# %% [markdown] lang="zh"
# 每个 token 都增加同样的 2,048 字节：上下文翻倍，缓存也只翻倍，不会变成四倍。换成真实模型，用公开的形状按 float16 计算：

# %%
models = ["GPT-2 small", "Llama-2-7B", "Llama-2-70B", "Mistral-7B"]
print("[en]context each model was trained to (tokens):[zh]各模型训练时的上下文长度（token）：",
      "[en], [zh]、".join(f"{m} {kv_cache.TRAINED_CONTEXT[m]:,}" for m in models))
contexts = [4_096, 32_768, 131_072]
values = [[kv_cache.model_cache_bytes(m, 1) / 2**20] + [kv_cache.model_cache_bytes(m, n) / 2**30 for n in contexts]
          for m in models]
columns = ["[en]per token (MiB)[zh]每个 token（MiB）"] + [f"[en]{n:,} tokens (GiB)[zh]{n:,} 个 token（GiB）" for n in contexts]
tables.Table(values, models, columns, digits=3)


# %% [markdown] lang="en"
# None of these four was trained to 128K tokens (GPT-2 small to 1,024, the Llama-2 models to 4,096, Mistral-7B to
# 8,192 with a window of 4,096 keys), so the 131,072 column is hypothetical: it sizes each shape as if it were run that long, as a long-context
# model of the same shape would be. Llama-2-7B keeps half a mebibyte per token: 2 GiB at its 4K tokens, and 64 GiB
# at 128K if its shape were run that long, several times its own weights (about 12.6 GiB in float16), for one sequence. Grouped-query attention (8 KV heads shared by 32 or 64 query heads, notebook 06)
# is how Mistral-7B and Llama-2-70B cut it by 4 and 8. Mistral-7B's row stops growing after 4,096 tokens: its attention
# is a sliding window of 4,096 keys (notebook 10), so its cache is a rolling buffer (Jiang et al. 2023); with full attention
# it would need 16 GiB at 128K (`kv_cache.model_cache_bytes("Mistral-7B", 131_072, window=False)`). So at inference the
# window is limited twice: by the $n^2$ of the prompt pass, and by a cache that grows with every token and stays in
# memory for the whole generation.

# %% [markdown] lang="zh"
# 这四个模型没有一个是按 128K 个 token 训练的：GPT-2 small 训练到 1,024 个 token，两个 Llama-2 到 4,096 个，Mistral-7B 到 8,192 个，窗口宽 4,096 个 Key。
# 所以 131,072 那一列是假设的数：按各模型的形状，算它假如读这么长要多大的缓存；同样形状的长上下文模型，缓存就是这么大。
# Llama-2-7B 每个 token 要存半个 MiB：训练长度 4K 个 token 时是 2 GiB；假如按同样形状读 128K 个 token，就是 64 GiB，
# 是它自己 float16 权重（约 12.6 GiB）的好几倍，而这只是一个序列。
#
# 分组 Query 注意力让 32 或 64 个 Query 头共用 8 个 KV 头（06 节），Mistral-7B 和 Llama-2-70B 就是这样把缓存缩小 4 倍和 8 倍的。
# Mistral-7B 这一行过了 4,096 个 token 就不再增长：它的注意力是宽度为 4,096 个 Key 的滑动窗口（10 节），缓存只是一个滚动缓冲区（Jiang 等，2023）；
# 若用全局注意力，128K 时要 16 GiB（`kv_cache.model_cache_bytes("Mistral-7B", 131_072, window=False)`）。
#
# 所以推理时上下文窗口受两重限制：
# 处理提示词时的 $n^2$，以及每生成一个 token 就增长、整个生成过程都得留在内存里的缓存。

# %% [markdown] lang="en"
# ### The tutorial's examples: 200K and 1M tokens
#
# The tutorial on self-attention quoted above names two windows at the edge, Claude's 200K and Gemini's 1M tokens, as "results of pushing the
# engineering boundary in this direction". Those models' shapes are not published, so the table below uses a published
# one at those two lengths: **Llama-2-70B** (80 layers, 64 query heads sharing 8 KV heads of dimension 128) in
# bfloat16, trained to 4,096 tokens, so these two columns are hypothetical too.
# It gives the naive score matrices, the KV cache of one sequence, and what the tiled path of notebook 10
# (`ac.tiled_attention`, float32) holds instead, whose fixed part (one tile of scores, the running maximum and sum) is
# measured first on one head:

# %% [markdown] lang="zh"
# ### 原教程的例子：200K 和 1M 个 token
#
# 《Transformer 自注意力机制：直觉理解，不需要数学》还点名了两个站在边界上的窗口，Claude 的 200K 和 Gemini 的 1M 个 token，说它们“都是在这个方向上推进工程边界的结果”。
# 这两个模型的形状没有公开，所以下表在这两个长度上用一个公开的形状：**Llama-2-70B**，80 层，64 个 Query 头共用 8 个 KV 头，每个头的维度是 128，
# 按 bfloat16 计。它只训练到 4,096 个 token，所以这两列同样是假设。
# 表中给出朴素实现的分数矩阵、一个序列的 KV 缓存，以及 10 节的分块计算（`ac.tiled_attention`，float32）需要的内存。
# 分块计算的固定部分，即一块分数、当前最大值和当前累计和，先在一个头上实测：

# %%
overhead = long_context.tiled_overhead([2048, 4096], d_head=128)                 # [en] one head, float32 [zh] 一个头，float32
for r in overhead:
    print(f"n = {r['n']:>5,}: " + f"[en]peak {cost_lab.format_bytes(r['peak_bytes'])} = q copy and output {cost_lab.format_bytes(r['linear_bytes'])} + the rest {cost_lab.format_bytes(r['rest_bytes'])}[zh]峰值 {cost_lab.format_bytes(r['peak_bytes'])} = q 的副本和输出 {cost_lab.format_bytes(r['linear_bytes'])} + 其余 {cost_lab.format_bytes(r['rest_bytes'])}")
rows = long_context.long_context_rows([n for _, n in long_context.TUTORIAL_EXAMPLES], model="Llama-2-70B",
                                      dtype="bfloat16", tiled_rest_bytes=overhead[-1]["rest_bytes"])
labels = ["[en]pairs per head and layer[zh]每个头、每层的位置对", "[en]score matrix, one head (naive)[zh]一个头的分数矩阵（朴素）",
          "[en]score matrices, one layer, 64 heads (naive)[zh]一层 64 个头的分数矩阵（朴素）",
          "[en]KV cache, 80 layers, one sequence[zh]KV 缓存，80 层，一个序列",
          "[en]tiled path, one head[zh]分块计算，一个头", "[en]tiled path, one layer, 64 heads[zh]分块计算，一层 64 个头",
          "[en]FLOPs of the n² part, one forward pass[zh]一次前向计算中 n² 部分的浮点运算次数"]
keys = ["pairs", "score_head_bytes", "score_layer_bytes", "kv_cache_bytes", "tiled_head_bytes", "tiled_layer_bytes", "attention_flops"]
print(pad("[en]Llama-2-70B, bfloat16[zh]Llama-2-70B，bfloat16", 46) + "".join(pad(f"[en]{n:,} tokens[zh]{n:,} 个 token", 22, "right") for _, n in long_context.TUTORIAL_EXAMPLES))
for label, key in zip(labels, keys):
    cells = [f"{r[key]:.2e}" if key in ("pairs", "attention_flops") else cost_lab.format_bytes(r[key]) for r in rows]
    print(pad(label, 46) + "".join(pad(c, 22, "right") for c in cells))

# %% [markdown] lang="en"
# The tiled path's fixed part is the same 3.0 MiB at 2,048 and 4,096 tokens (a tile holds up to 2,048 query rows × 128
# keys); everything else on it grows like $n$. Three conclusions can be read off the table:
#
# - **The naive way cannot run.** At 200K tokens one head's weights alone would fill a large GPU, and one layer needs
#   terabytes; the tiled path needs tens of GiB for the same layer, mostly its float32 output.
# - **The KV cache is the other wall:** 61.0 GiB for one 200K-token sequence, over 300 GiB at 1M, held for the whole
#   generation, although this shape already shares each KV head among 8 query heads.
# - **The compute stays quadratic:** the $n^2$ part at 1M tokens is 25 times that at 200K.
#
# Such windows take all of it at once: kernels that never store the matrix, a smaller cache (grouped or compressed keys
# and values), and more and faster hardware.
#
# **Self-test.** With the same shape, at what context does the KV cache of one sequence reach 80 GiB, one large GPU?
# <details><summary>Answer</summary>
#
# $2 \times 80 \times 8 \times 128 \times 2 = 327{,}680$ bytes per token, so $80 \times 2^{30} / 327{,}680 = 262{,}144$
# tokens, a little beyond 200K. `kv_cache.kv_cache_bytes(80, 8, 128, 262_144)` gives exactly 80 GiB.
# </details>

# %% [markdown] lang="zh"
# 分块计算的固定部分在 2,048 和 4,096 个 token 时都是 3.0 MiB（一块最多 2,048 行 Query × 128 个 Key），其余部分随 $n$ 线性增长。
# 从表里可以读出三个结论：
#
# - **朴素实现根本放不下**。200K 个 token 时，光一个头的权重就能塞满一块大显卡，一层要以 TiB 计；分块计算同一层只要十几到几十 GiB，主要是它的 float32 输出。
# - **KV 缓存是另一堵墙**。一个序列在 200K 时要 61.0 GiB，1M 时超过 300 GiB，整个生成过程都得留着，尽管这个形状已经让 8 个 Query 头共用一个 KV 头。
# - **计算量仍是平方级的**。1M 个 token 的 $n^2$ 部分是 200K 时的 25 倍。
#
# 所以这么长的窗口几样缺一不可：从不存下整个矩阵的内核，分组或压缩 Key 和 Value 以缩小缓存，还有更多更快的硬件。
#
# **自测题**。还是这个形状，上下文多长时，一个序列的 KV 缓存会达到一块大显卡的 80 GiB？
# <details><summary>答案</summary>
#
# 每个 token 要 $2 \times 80 \times 8 \times 128 \times 2 = 327{,}680$ 字节，所以是 $80 \times 2^{30} / 327{,}680 = 262{,}144$ 个 token，比 200K 稍多。
# `kv_cache.kv_cache_bytes(80, 8, 128, 262_144)` 恰好给出 80 GiB。
# </details>

# %% [markdown] lang="en"
# ### Exercise 1 · ★★☆ · about 15 min: decode with a cache
#
# Write `my_kv_decode(q, k, v)`: the queries, keys and values $(T, d)$ of $T$ tokens arrive one at a time; at step $t$
# append `k[t]`, `v[t]` to your cache and attend with `q[t]` over it. Return the $T$ outputs $(T, d_v)$; they must equal
# the full causal computation of notebook 04. The checker names a future key seen, a cache that misses the current
# token, and a cache that forgets.

# %% [markdown] lang="zh"
# ### 练习 1 · ★★☆ · 约 15 分钟：带缓存的解码
#
# 写出 `my_kv_decode(q, k, v)`：$T$ 个 token 的 Query、Key、Value $(T, d)$ 一个一个到来，第 $t$ 步把 `k[t]`、`v[t]` 放进缓存，再用 `q[t]` 对整个缓存做注意力。
# 返回 $T$ 个输出 $(T, d_v)$，它们必须与 04 节完整的因果计算相同。看到了未来的 Key、缓存漏了当前 token、缓存丢了之前的内容，检查器都能指出来。

# %%
def my_kv_decode(q, k, v):
    """[en] q, k (T, Dk), v (T, Dv) -> outputs (T, Dv) of step-by-step decoding with a KV cache
    [zh] q、k (T, Dk)，v (T, Dv) -> 用 KV 缓存逐步解码得到的输出 (T, Dv)"""
    raise NotImplementedError("[en]for t in range(T): append k[t], v[t]; attend with q[t] over the cache[zh]for t in range(T)：追加 k[t]、v[t]；再用 q[t] 对缓存计算注意力")

checks.check_kv_cache_decode(my_kv_decode)


# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def my_kv_decode(q, k, v):
#     keys, values, outputs = [], [], []
#     for t in range(len(q)):
#         keys.append(k[t])                                  # the cache grows by one token ...
#         values.append(v[t])
#         out, _ = ac.scaled_dot_product_attention(q[t:t + 1], np.array(keys), np.array(values))
#         outputs.append(out[0])                             # ... and step t sees keys 0 .. t
#     return np.array(outputs)                               # (T, Dv)
# ```
# </details>

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def my_kv_decode(q, k, v):
#     keys, values, outputs = [], [], []
#     for t in range(len(q)):
#         keys.append(k[t])                                  # 缓存增加一个 token……
#         values.append(v[t])
#         out, _ = ac.scaled_dot_product_attention(q[t:t + 1], np.array(keys), np.array(values))
#         outputs.append(out[0])                             # ……第 t 步看到 Key 0 .. t
#     return np.array(outputs)                               # (T, Dv)
# ```
# </details>

# %% [markdown] lang="en"
# ### Exercise 2 · ★☆☆ · about 10 min: size a cache
#
# Write `my_kv_cache_bytes(n_layers, n_kv_heads, d_head, n_tokens, bytes_per_number)` for one sequence. The checker tries
# Llama-2-7B at 4,096 tokens and Mistral-7B at 32,768, and recognises a forgotten factor 2, a missing layer count, bits
# instead of bytes, and a cache that grows like $n^2$.

# %% [markdown] lang="zh"
# ### 练习 2 · ★☆☆ · 约 10 分钟：算一算缓存有多大
#
# 写出 `my_kv_cache_bytes(n_layers, n_kv_heads, d_head, n_tokens, bytes_per_number)`，计算一个序列的缓存字节数。检查器会试 4,096 个 token 的 Llama-2-7B
# 和 32,768 个 token 的 Mistral-7B，能认出忘了乘 2、漏了层数、把字节当成比特，以及按 $n^2$ 增长的缓存。

# %%
def my_kv_cache_bytes(n_layers, n_kv_heads, d_head, n_tokens, bytes_per_number):
    """[en] -> bytes of the KV cache of one sequence [zh] -> 一条序列的 KV 缓存的字节数"""
    raise NotImplementedError("[en]count the numbers the cache keeps, then the bytes[zh]先数缓存里存了多少个数，再算字节数")

checks.check_kv_cache_bytes(my_kv_cache_bytes)

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def my_kv_cache_bytes(n_layers, n_kv_heads, d_head, n_tokens, bytes_per_number):
#     return 2 * n_layers * n_kv_heads * d_head * n_tokens * bytes_per_number   # K and V: the 2
# ```
# </details>

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def my_kv_cache_bytes(n_layers, n_kv_heads, d_head, n_tokens, bytes_per_number):
#     return 2 * n_layers * n_kv_heads * d_head * n_tokens * bytes_per_number   # K 和 V：那个 2
# ```
# </details>

# %% [markdown] lang="en"
# ## Lost in the middle: a position effect, not dilution
#
# Long contexts have a second problem besides cost: models often use information at the **start** and the **end** of
# a long input better than in the **middle** ("lost in the middle"). A tempting explanation: with $n$ keys the weights
# are spread thin. The tutorial "Attention mechanism" warns against this shortcut: the effect is tied to the training
# distribution, the position representation and attention patterns, not simply to diluted weights.
#
# A computation shows why. One query, one planted key that matches it, and $n - 1$ random distractors; we move the
# planted key through every position and read its weight. The scores are content only, as in attention without
# position information:

# %% [markdown] lang="zh"
# ## 中间迷失：是位置效应，不是摊薄
#
# 长上下文除了代价还有第二个问题：模型往往能更好地利用长输入**开头**和**结尾**的信息，对**中间**的信息却利用不足，这叫“中间迷失”。
# 一个诱人的解释是：有 $n$ 个 Key 时权重被摊薄了。《注意力机制》一文特别提醒不要走这条捷径：这种现象与训练分布、位置表示和注意模式都有关，
# 不能简单归结为权重被摊薄。
#
# 一个计算就能说明原因。一个 Query，一个事先埋好、与它匹配的 Key，再加 $n - 1$ 个随机的干扰 Key。我们把埋好的 Key 依次挪到每个位置，读出它的权重。
# 分数只看内容，就像没有位置信息的注意力：

# %%
n = 256
content_only = cost_lab.planted_key_weights(n, d_k=16, seed=0)               # [en] (256,): one weight per position [zh] (256,)：每个位置一个权重
print(f"[en]n = {n}: weight on the matching key at positions 0, 64, 128, 192, 255:[zh]n = {n}：匹配的 Key 位于位置 0、64、128、192、255 时的权重：", content_only[[0, 64, 128, 192, 255]])
print("[en]the same at every position:[zh]每个位置都相同：", bool(np.allclose(content_only, content_only[0], rtol=0, atol=1e-12)))
print("[en]more keys, more dilution (weight at the start, middle, end):[zh]Key 越多，摊得越薄（开头、中间、结尾的权重）：")
for n_keys in (16, 256, 4096):
    w = cost_lab.planted_key_weights(n_keys, positions=[0, n_keys // 2, n_keys - 1], d_k=16, seed=0)
    print(f"  n = {n_keys:4d}: {w}")

# %% [markdown] lang="en"
# Dilution is real: the more keys compete, the less weight the match gets (0.557 at 16 keys, 0.073 at 256, 0.005 at
# 4096). But it is the **same at every position**: attention without position information does not know where a key
# sits (notebook 07), so dilution lowers the whole curve evenly. A flat line has no middle to get lost in.
#
# A U shape needs something that depends on position. A **toy** pattern, an illustration and not a model of any real
# LLM: the query stands after the last key (a question at the end of a long prompt), and two biases are added to the
# scores before softmax, a pull towards the first tokens (like the "attention sink" seen on the first token of trained
# models) and a pull towards the most recent ones (a recency bias):

# %% [markdown] lang="zh"
# 摊薄确实存在：参与竞争的 Key 越多，匹配的 Key 分到的权重越少，16 个 Key 时为 0.557，256 个时为 0.073，4096 个时为 0.005。
# 但它在**每个位置上都一样**：没有位置信息的注意力不知道 Key 在哪里（07 节），摊薄只会把整条曲线均匀压低。一条水平线，谈不上中间丢了什么。
#
# 要得到 U 形曲线，就需要随位置变化的东西。下面是一个**玩具示例**，只用来说明道理，不模拟任何真实的大模型。Query 位于最后一个 Key 之后，
# 就像长提示词末尾的问题。softmax 之前给分数加上两种偏置：一种把注意力拉向开头的 token，类似训练好的模型在第一个 token 上出现的注意力汇聚点；
# 另一种拉向最近的 token，即近因偏置：

# %%
bias = cost_lab.toy_position_bias(n, start=3.0, start_decay=16, recent=3.0, recent_decay=32)   # (256,)
toy = cost_lab.planted_key_weights(n, d_k=16, bias=bias, seed=0)                                # (256,)
print("[en]toy bias at positions 0, 64, 128, 192, 255:[zh]玩具偏置在位置 0、64、128、192、255：", bias[[0, 64, 128, 192, 255]])
print("[en]weight on the matching key, same positions:[zh]同样这些位置上匹配 Key 的权重：", toy[[0, 64, 128, 192, 255]])
print(f"[en]start {toy[0]:.3f}, middle {toy[n // 2]:.3f}, end {toy[-1]:.3f};  content only: {content_only[0]:.3f} everywhere[zh]开头 {toy[0]:.3f}，中间 {toy[n // 2]:.3f}，结尾 {toy[-1]:.3f}；只看内容时处处都是 {content_only[0]:.3f}")
ax = cost_lab.plot_position_weights({"[en]content only[zh]只看内容": content_only, "[en]TOY: content + start bias + recency bias[zh]玩具示例：内容 + 开头偏置 + 近因偏置": toy})

# %% [markdown] lang="en"
# Same query, same keys, same number of keys: only the position terms changed, and now a match at the start or the end
# gets about 0.4 while one in the middle gets 0.033, less than half of what content alone gave it (0.073). The toy
# shows only the mechanism: a **position-dependent** pattern, not the number of keys, makes the middle worse than the
# ends. In real models the pattern comes from training, from the position representation (how RoPE scores change with
# distance) and from learned habits such as sinks and recency; and "lost in the middle" is measured in **task
# accuracy** with the evidence at different positions (notebook 10's verification method), not in one weight.

# %% [markdown] lang="zh"
# 同一个 Query、同一组 Key、同样多的 Key，只改了位置项，现在埋在开头或结尾的匹配 Key 能得到约 0.4，埋在中间的只得到 0.033，
# 还不到只看内容时 0.073 的一半。这个玩具示例只说明机制：让中间比两端差的是**随位置变化**的注意模式，而不是 Key 的数量。
# 在真实模型里，这种模式有三个来源：训练、位置表示（比如 RoPE 的分数如何随距离变化）和学到的习惯（比如汇聚点和近因偏置）。
# 衡量“中间迷失”要看**任务正确率**：把关键证据放在不同位置上检验（10 节的验证方法），而不是看某一个权重。

# %% [markdown] lang="en"
# ## Summary
#
# - One head of one layer scores $n^2$ query–key pairs: 1,000 tokens → 1,000,000 pairs, 100,000 tokens → 10,000,000,000.
#   Doubling $n$ quadruples them.
# - Per layer the $n^2$ part costs $4n^2D$ FLOPs (whatever the number of heads) and, naively, $H n^2$ stored weights;
#   the linear parts cost $24nD^2$. The $n^2$ part wins beyond $n = 6D$: 24,576 tokens for $D = 4096$.

# %% [markdown] lang="zh"
# ## 小结
#
# - 一层的一个头要给 $n^2$ 个 Query–Key 对打分：1,000 个 token 是 100 万对，100,000 个 token 是 100 亿对。$n$ 翻倍，位置对变为四倍。
# - 每层注意力的 $n^2$ 部分需要 $4n^2D$ 次浮点运算，与头数无关，朴素实现还要存 $H n^2$ 个权重；线性部分需要 $24nD^2$。$n$ 超过 $6D$ 后 $n^2$ 部分胜出，
#   $D = 4096$ 时是 24,576 个 token。

# %%
ratios = [b["peak_bytes"] / a["peak_bytes"] for a, b in zip(memory, memory[1:])]   # [en] peak / previous, as in the table [zh] 峰值 / 上一行，与表格相同
last = memory[-1]
mib, n_last = last["weights_bytes"] / 2**20, f"{last['n_tokens']:,}"
shown = "[en], [zh]、".join(f"{x:.2f}" for x in ratios)
print(f"[en]- Measured: peak memory approaches × 4 per doubling (× {shown}; {mib:.1f} MiB of weights at {n_last} tokens); time is noisier on one CPU (its slope is printed above).[zh]- 实测：每翻倍一次，峰值内存趋近 4 倍（× {shown}；{n_last} 个 token 时权重占 {mib:.1f} MiB）；时间在单个 CPU 上噪声更大（斜率见上文的输出）。")

# %% [markdown] lang="en"
# - "Physics, not laziness" holds for exact attention over all pairs. Blocked or fused kernels (FlashAttention) make the
#   memory linear and save traffic, but the compute stays $n^2$; only computing something else (windows, sparse or linear
#   attention) changes it.
# - At inference the KV cache grows **linearly**, $2 \cdot$ layers $\cdot$ KV heads $\cdot d_{head}$ numbers per token:
#   0.5 MiB for Llama-2-7B in float16, 2 GiB at the 4K tokens it was trained to (64 GiB if its shape were run at 128K);
#   grouped-query attention divides it.
# - "Lost in the middle" is a position effect: dilution lowers every position equally (0.073 for 256 keys, wherever the
#   match sits); a position-dependent pattern gives the U shape.
#
# **Next:** [10 · Efficient attention](10_efficient_attention.ipynb) builds tiled attention with an online softmax and sliding windows, and shows how to check that a faster model still finds evidence in the middle.

# %% [markdown] lang="zh"
# - “物理限制，不是工程偷懒”说的是对所有位置对做精确注意力。分块或融合内核（FlashAttention）让内存变成线性、减少数据搬运，但计算量仍是 $n^2$；
#   只有换一种算法，比如窗口、稀疏或线性注意力，才会改变它。
# - 推理时 KV 缓存**线性**增长，每个 token 要存 $2 \cdot$ 层数 $\cdot$ KV 头数 $\cdot d_{head}$ 个数：Llama-2-7B 在 float16 下每个 token 0.5 MiB，
#   在它训练的 4K 个 token 上是 2 GiB，假如按同样形状读 128K 个 token 则是 64 GiB；分组 Query 注意力能按比例缩小它。
# - “中间迷失”是位置效应：摊薄让每个位置的权重同样降低，256 个 Key 时无论匹配的 Key 在哪里都是 0.073；随位置变化的注意模式才产生 U 形。
#
# **下一节**：[10 · 高效注意力](10_efficient_attention.ipynb)，亲手搭建带在线 softmax 的分块注意力和滑动窗口，并检查更快的模型是否仍能找到中间的证据。
