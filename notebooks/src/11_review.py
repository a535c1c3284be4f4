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
# # 11 · Review
#
# This notebook puts the mechanism back together before the course turns to trained models: one attention step that
# uses every idea at once, the eight self-test questions in one place, the two summary tables of the source tutorials,
# and a map of what comes next.
#
# **After this notebook you will be able to**
# - run one multi-head causal attention step with positions and say what every shape and number in it means;
# - answer the eight self-test questions, and find for each the notebook and widget that demonstrates it;
# - compare attention with an RNN row by row;
# - explain self-attention, Query/Key/Value, multi-head attention and the $O(n^2)$ cost to a developer in one sentence each;
# - place attention between its prerequisites and the topics that build on it.
#
# **What you should know first:** notebooks [01](01_query_key_value.ipynb)–[07](07_position.ipynb); 08–10 help with the
# second half, and every row below links to the notebook that shows it. *About 45 minutes.*

# %% [markdown] lang="zh"
# # 11 · 总复习
#
# 课程转向训练好的模型之前，这一节把注意力机制重新拼起来，内容有四块：一步用上所有概念的注意力计算；集中在一处的自测题（九道综合题和八道核心题）；
# 两份原教程的总结表；一张“接下来学什么”的概念图。
#
# **学完本节，你将能够**
# - 跑通一步带位置编码的多头因果注意力，说清其中每个形状、每个数字的含义；
# - 回答八道自测题，并为每一道找到演示它的那一节和控件；
# - 逐行比较注意力与 RNN；
# - 用一句话分别向开发者解释自注意力、Query/Key/Value、多头注意力和 $O(n^2)$ 复杂度；
# - 说出注意力需要哪些先修知识，又通向哪些主题。
#
# **需要的基础**：[01](01_query_key_value.ipynb)–[07 节](07_position.ipynb)；08–10 节有助于理解后半部分，下面每一行都链接到演示它的那一节。*约 45 分钟。*

# %%
LANG = "[en]en[zh]zh"  # [en] language of this edition: "en" or "zh" [zh] 本版的语言："en" 或 "zh"
# %matplotlib inline
import numpy as np
from IPython.display import Markdown

from attention_core.labs.nb11_review import review
from attention_core.teaching import i18n, plots, quiz
from attention_core.teaching.tables import pad

i18n.set_language(LANG)
rng = np.random.default_rng(0)  # [en] every random number in this notebook comes from a seed [zh] 本节的所有随机数都来自种子
np.set_printoptions(precision=3, suppress=True)  # [en] arrays print with 3 decimals [zh] 数组打印时保留 3 位小数

# %% [markdown] lang="en"
# ## The whole course in one attention step
#
# Seven words, *the cat sat because it was tired*, go through one self-attention layer of a decoder. Each word gets a
# vector (a seeded random embedding, $D = 8$), a **sinusoidal position** is added (07), the sum is projected into
# **Query, Key and Value** (01) and split into **two heads** of width $d_k = D / H = 4$ (06); each head scores every
# query against every key, **divides by $\sqrt{d_k}$** (02), adds the **causal mask** (04), turns each row into weights
# with **softmax** (03) and mixes the values; the heads are concatenated and projected with $W^O$. The chain of notebook
# 01 once more: representation → content comparison → weights → weighted sum → new representation.
#
# `review.recap_step` only calls `ac.sinusoidal_encoding`, `ac.causal_mask` and `ac.multi_head_attention`, and keeps
# every intermediate so we can look at it.

# %% [markdown] lang="zh"
# ## 一步注意力，串起整套课程
#
# 让“小猫／坐下／了／因为／它／很／累”这七个词经过解码器里的一层自注意力，一步一步来：
#
# 1. 每个词变成一个 $D = 8$ 的随机词向量（种子固定），再加上**正弦位置编码**（07 节）；
# 2. 和向量经投影得到 **Query、Key、Value**（01 节），拆成**两个头**，每个头的维度是 $d_k = D / H = 4$（06 节）；
# 3. 每个头让每个 Query 与每个 Key 打分，分数**除以 $\sqrt{d_k}$**（02 节），再加上**因果掩码**（04 节）；
# 4. 用 **softmax** 把每一行变成权重（03 节），对 Value 加权求和；
# 5. 把各头拼接起来，乘以 $W^O$。
#
# 这又是 01 节的那条链：表示 → 内容比较 → 权重 → 加权求和 → 新的表示。
#
# `review.recap_step` 只调用 `ac.sinusoidal_encoding`、`ac.causal_mask` 和 `ac.multi_head_attention`，并保留每个中间结果，方便逐个查看。

# %%
recap = review.recap_step("[en]the cat sat because it was tired[zh]小猫 坐下 了 因为 它 很 累".split(), d_model=8, n_heads=2, seed=0)
T, D, H = len(recap.tokens), recap.params.d_model, recap.n_heads
print(pad("[en]tokens[zh]token", 18), recap.tokens)
print(pad("[en]x  embeddings[zh]x  嵌入", 18), recap.x.shape, "  (T, D)")
print(pad("[en]PE sinusoidal[zh]PE 正弦编码", 18), recap.pe.shape, "  (T, D)   PE[0] =", recap.pe[0])
print(pad("h = x + PE", 18), recap.h.shape)
print(pad("[en]Q, K, V per head[zh]每个头的 Q、K、V", 18), recap.q.shape, recap.k.shape, recap.v.shape, "  (H, T, d_k)")
print(pad("[en]causal mask[zh]因果掩码", 18), recap.mask.shape, "  " + "[en]True = may attend[zh]True = 可以关注")
print(pad("[en]weights[zh]权重", 18), recap.weights.shape, "  (H, T, T)")
print(pad("[en]output[zh]输出", 18), recap.output.shape, "  " + "[en](T, D): one new vector per token[zh](T, D)：每个 token 一个新向量")

# %% [markdown] lang="en"
# The weights of both heads, one heatmap each (row = the query token, column = the key token it reads):

# %% [markdown] lang="zh"
# 两个头的权重各画一张热图，每行是一个发出 Query 的词，每列是一个被读取的词：

# %%
fig = plots.head_grid(recap.weights, list(recap.tokens))

# %% [markdown] lang="en"
# Three things are visible at once: everything above the diagonal is 0 (the mask: no token reads the future); the
# first row is a single 1.00 (the first word can only read itself); and the two heads spread their weights differently over the
# same words, although the projections are random. (A 0.00 *below* the diagonal is rounding: those weights are small but
# positive, as Q5 below shows.)
#
# **Predict first.** Before the facts are printed, write down three numbers, then run the cell after: how many weights
# are masked to exactly 0 in the two heads together, how many numbers the weights tensor $(H, T, T)$ holds, and what
# weight the first word gives itself in each head.

# %% [markdown] lang="zh"
# 有三件事一眼就能看出：对角线以上全是 0，这是掩码，没有哪个词能读到未来；第一行只有一个 1.00，因为“小猫”只能读它自己；
# 即使投影矩阵是随机的、没有经过训练，两个头分配权重的方式也各不相同。对角线*以下*的 0.00 只是四舍五入，这些权重很小但都是正数，下面的 Q5 会说明。
#
# **先预测，再揭晓**。先写下三个数，再运行后面的单元格：两个头里一共有多少个权重被掩码置为严格的 0？权重张量 $(H, T, T)$ 一共有多少个数？
# 第一个词在每个头里给自己的权重是多少？

# %%
my_masked = None      # [en] masked weights in both heads together [zh] 两个头里被屏蔽的权重，一共多少个
my_size = None        # [en] numbers in the weights tensor (H, T, T) [zh] 权重张量 (H, T, T) 里有多少个数
my_first = None       # [en] the first word's weight on itself, in each head [zh] 第一个词在每个头里给自己的权重

# %%
masked = int((recap.weights[:, ~recap.mask] == 0).sum())       # [en] H · T(T-1)/2 entries above the diagonal [zh] 对角线以上的 H · T(T-1)/2 个
print(f"[en]masked weights equal to 0: {masked} = H · T(T−1)/2 = {H} · {T * (T - 1) // 2}   (your prediction: {my_masked})[zh]等于 0 的被屏蔽权重：{masked} = H · T(T−1)/2 = {H} · {T * (T - 1) // 2}（你的预测：{my_masked}）")
print(f"[en]numbers in the weights tensor: {recap.weights.size} = H · T² = {H} · {T}²   (your prediction: {my_size})[zh]权重张量里的数：{recap.weights.size} = H · T² = {H} · {T}²（你的预测：{my_size}）")
print(f"[en]first word's weight on itself, per head: {recap.weights[:, 0, 0]}   (your prediction: {my_first})[zh]第一个词给自己的权重，逐个头：{recap.weights[:, 0, 0]}（你的预测：{my_first}）")

# %% [markdown] lang="en"
# The first word has only itself to read, so softmax over one visible key gives 1 in every head. The next cell measures
# one fact per self-test question on these numbers (✓ = the fact holds); the number in brackets is the notebook that
# teaches it.

# %% [markdown] lang="zh"
# 第一个词能读的只有它自己，只有一个可见 Key 时，softmax 在每个头里都给出 1。下一个单元格在这组数字上为每道自测题测量一个事实，✓ 表示成立，
# 括号里是讲解它的那一节。

# %%
checks = review.recap_checks(recap)
print(review.format_checks(checks))
print("[en]all hold:[zh]全部成立：", all(c.ok for c in checks))

# %% [markdown] lang="en"
# Read it line by line, with the question each line answers:
#
# - **Q1:** the same function gives square $T \times T$ weights when Q, K and V all come from this sentence
#   (self-attention) and $3 \times T$ weights when three queries come from another sequence (cross-attention).
# - **Q2:** the scores are divided by $\sqrt{d_k} = 2$ before softmax; without it their spread would grow with $d_k$.
# - **Q3:** two heads of width 4, not one of width 8; the heads' weights differ by up to 0.934 on the same words.
# - **Q4:** the 42 masked weights are exactly 0, so changing the last token moves none of the earlier outputs
#   (0.0): the same computation works at inference, one token at a time.
# - **Q5:** every row sums to 1, yet the smallest visible weight is about $10^{-3}$, not 0: softmax is dense.
# - **Q6:** the output is exactly the weighted mix of the values (then $W^O$): a weight is a mixing share, not an explanation.
# - **Q7:** without a mask and without positions, shuffling the words only reorders the outputs (0.0 beyond that);
#   with positions added, the outputs change (0.468).
# - **Q8:** the last word reaches the first, six positions back, in this one step: its weight is positive in both heads
#   (0.214 and 0.009: the path exists whether or not a head makes much use of it); an RNN would need six steps.
# - **n²:** the weights tensor holds $H \cdot T^2 = 98$ numbers; twice the words, four times the numbers.

# %% [markdown] lang="zh"
# 逐行读一遍，每一行对应一道自测题：
#
# - **Q1**：同一个函数，Q、K、V 都来自这句话时是自注意力，给出 $T \times T$ 的方阵权重；三个 Query 来自另一个序列时是交叉注意力，给出 $3 \times T$ 的权重。
# - **Q2**：分数在 softmax 之前除以 $\sqrt{d_k} = 2$，不除的话，分数的离散程度会随 $d_k$ 增大。
# - **Q3**：两个 4 维的头，而不是一个 8 维的头；面对同样的词，两个头的权重最多相差 0.952。
# - **Q4**：42 个被屏蔽的权重严格为 0，所以改动最后一个 token，前面的输出纹丝不动，变化是 0.0：推理时逐个 token 生成，用的是同一套计算。
# - **Q5**：每行之和为 1，但可见位置中最小的权重约为 $7 \times 10^{-4}$，而不是 0：softmax 的输出是稠密的。
# - **Q6**：输出恰好是 Value 按权重的混合，再乘 $W^O$：权重是混合的份额，不是对结论的解释。
# - **Q7**：不加掩码也不加位置编码时，打乱词序只会让输出换个顺序，此外的变化为 0.0；加上位置编码后，输出本身就变了，差值 0.431。
# - **Q8**：最后一个词“累”在这一步里直接读到六个位置之前的“小猫”，两个头里的权重分别是 0.169 和 0.132。这条一步直达的路径总是在的，
#   头用不用它，取决于权重；RNN 则需要走六步。
# - **n²**：权重张量有 $H \cdot T^2 = 98$ 个数；词数翻倍，数量变为四倍。

# %% [markdown] lang="en"
# ## Self-test: nine combined questions and the eight core ones
#
# First, nine **questions that combine topics**, each needing two notebooks at once (the mask and the KV cache, scaling
# and temperature, heads and memory, ...). Then the eight questions of the source tutorial come back in a new order,
# with sub-questions that make you compute or write something. Answer and press **Check**; each question says why an
# answer is right or wrong. The options are shuffled (**Shuffle the options** draws another order), the reference
# answer opens after your first attempt, and a "Try it" line names the notebook, section and widget to go back to.

# %% [markdown] lang="zh"
# ## 自测题：九道综合题与八道核心题
#
# 先做九道**综合题**，每道都要同时用到两节的内容，比如掩码与 KV 缓存、缩放与温度、头数与内存。然后原教程的八道题换个顺序再出现一次，
# 并附有要你动手计算或写代码的子题。作答后点**检查答案**，每道题都会说明答案为什么对或错。选项顺序是打乱的，点**打乱选项顺序**可以再换一种；
# 作答一次之后才能打开参考答案；最后一行“动手试试”指明可以回去看的那一节、哪个小节和哪个控件。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
quiz.review_quiz()

# %% [markdown] lang="en"
# ### Where each question is demonstrated
#
# Built from the quiz's own question file (`quiz.load_questions()`): each link opens the notebook of this edition, and
# hovering shows the quiz's "Try it" line (`quiz.pointer_text`). ↳ marks a sub-question; a question a notebook adds
# beyond the eight comes last (you answer it in that notebook).

# %% [markdown] lang="zh"
# ### 每道题在哪里演示
#
# 这张表由自测题自己的题目文件（`quiz.load_questions()`）生成：每个链接打开本版中对应的那一节，鼠标悬停会显示自测题里的“动手试试”提示（`quiz.pointer_text`）。
# ↳ 表示子题；某一节在八道题之外另加的题目排在最后，在那一节里作答。

# %%
Markdown(review.question_table(LANG))

# %% [markdown] lang="en"
# ## Attention versus RNN
#
# The comparison table of the tutorial "An introduction to the Transformer attention mechanism: from intuition to
# formulas" (Transformer Attention 机制入门：从直觉到公式), with the notebook that shows each row.
#
# | Aspect | RNN | Transformer attention | shown in |
# |---|---|---|---|
# | Path between two positions | along the time steps, one after another: length $O(n)$ | any two positions in one step: $O(1)$ | [08](08_attention_vs_rnn.ipynb); [00](00_start_here.ipynb) (refresher 4) |
# | Long-range dependencies | gradients tend to vanish or explode along the chain | passed directly through the weight $\alpha_{ij}$ | [08](08_attention_vs_rnn.ipynb) |
# | Parallelism | must compute the time steps in order | the whole sequence at once | [08](08_attention_vs_rnn.ipynb) |
# | Compute per layer | $O(n \cdot d^2)$ (one step at a time) | $O(n^2 \cdot d)$ (the $n^2$ term of self-attention) | [08](08_attention_vs_rnn.ipynb), [09](09_cost_and_context_window.ipynb) |
# | Memory | a hidden state, kept throughout | an $n \times n$ weight matrix to store | [09](09_cost_and_context_window.ipynb), [10](10_efficient_attention.ipynb) |
# | Position | ordered by construction | needs an extra position encoding | [07](07_position.ipynb) |
#
# **The core trade-off:** the RNN trades a sequential inductive bias for cost linear in the length; the Transformer
# trades all-pairs attention for direct long-range interaction and parallelism. For long sequences attention's $O(n^2)$
# becomes the bottleneck, where Longformer, Linformer, FlashAttention and linear attention start; notebook 10 computes the
# tiling (FlashAttention's idea), linear attention and Linformer, draws Longformer's window + global tokens, and shows
# where the approximations break. The compute columns are counted in notebook 08 (equal at $n = d$), the memory
# measured in 09.

# %% [markdown] lang="zh"
# ## 注意力与 RNN
#
# 《Transformer Attention 机制入门：从直觉到公式》的对比表，外加一列演示这一行的那一节。
#
# | 维度 | RNN | Transformer 注意力 | 演示 |
# |---|---|---|---|
# | 信息传递路径 | 沿时间步串行，长度 $O(n)$ | 任意两位置一步直达，$O(1)$ | [08](08_attention_vs_rnn.ipynb)；[00](00_start_here.ipynb)（快速回顾 4） |
# | 长距离依赖 | 梯度易消失/爆炸 | 直接通过 $\alpha_{ij}$ 传递 | [08](08_attention_vs_rnn.ipynb) |
# | 并行性 | 必须按时间步顺序算 | 整序列可并行 | [08](08_attention_vs_rnn.ipynb) |
# | 计算复杂度 | $O(n \cdot d^2)$，逐时间步 | $O(n^2 \cdot d)$，自注意力的 $n^2$ 项 | [08](08_attention_vs_rnn.ipynb)、[09](09_cost_and_context_window.ipynb) |
# | 内存 | 隐藏状态，常驻显存 | 需存 $n \times n$ 注意力矩阵 | [09](09_cost_and_context_window.ipynb)、[10](10_efficient_attention.ipynb) |
# | 位置信息 | 天然有序 | 需要额外位置编码 | [07](07_position.ipynb) |
#
# **核心取舍**：RNN 用“顺序归纳偏置”换长序列的线性复杂度；Transformer 用“全连接注意力”换远距离依赖和并行性。注意力的 $O(n^2)$ 在长序列下成为瓶颈，
# 这是后来 Longformer、Linformer、FlashAttention、线性注意力等优化的出发点，10 节亲手实现了其中的分块计算（FlashAttention 的思路）、线性注意力和 Linformer，画出了 Longformer 式的“窗口 + 全局 token”模式，并指出了各种近似方法在哪里失效。
# 两列计算量在 08 节数过，两者在 $n = d$ 时相等；内存在 09 节实测。

# %% [markdown] lang="en"
# ## Four ideas for developers
#
# The summary table of the tutorial "Transformer self-attention: the intuition, no maths needed" (Transformer 自注意力机制：直觉理解，不需要数学; section 1.7), with where each idea is shown.
#
# | Concept | Core intuition | Why it matters to a developer | shown in |
# |---|---|---|---|
# | Self-attention | every word looks directly at every other word and blends them by weight | explains why an LLM can resolve references across a long text | [01](01_query_key_value.ipynb), [05](05_self_and_cross_attention.ipynb) |
# | Query / Key / Value | Q asks “what do I need?”, K says “what do I have?”, V is the actual content | the three roles of the attention computation | [01](01_query_key_value.ipynb) |
# | Multi-head attention | several views at once (reference, syntax, meaning) | explains why an LLM can capture several relations at the same time | [06](06_multi_head_attention.ipynb) |
# | $O(n^2)$ cost | double the sequence, four times the computation | the fundamental reason a context window is limited | [09](09_cost_and_context_window.ipynb), [10](10_efficient_attention.ipynb) |
#
# In numbers (notebook 09): a thousand tokens make about a million pairs, a hundred thousand about ten billion. That is
# one reason context windows are limited, not the only one: at inference the KV cache grows **linearly** with the
# context and stays in memory for the whole generation, often the first wall (09: Llama-2-7B's shape would keep 64 GiB for
# one 128K sequence, were it run that long; it was trained to 4,096 tokens); and a model works reliably only up to the
# lengths it was trained on (07). Sparse and sliding-window
# attention compute fewer pairs, changing what each token sees; FlashAttention computes all of them without storing the
# $n \times n$ matrix (09, 10).

# %% [markdown] lang="zh"
# ## 开发者需要记住的四个概念
#
# 《Transformer 自注意力机制：直觉理解，不需要数学》1.7 节的小结表，外加一列演示它的那一节。
#
# | 概念 | 核心直觉 | 对开发者的意义 | 演示 |
# |---|---|---|---|
# | 自注意力 | 每个词直接看所有其他词，加权融合 | 解释为什么 LLM 能理解长距离指代关系 | [01](01_query_key_value.ipynb)、[05](05_self_and_cross_attention.ipynb) |
# | Query/Key/Value | Q 在问“我需要什么”，K 在说“我有什么”，V 是实际内容 | 理解注意力计算的三个角色 | [01](01_query_key_value.ipynb) |
# | 多头注意力 | 同时从多个角度看（指代/语法/语义） | 解释为什么 LLM 能同时捕捉多维关系 | [06](06_multi_head_attention.ipynb) |
# | $O(n^2)$ 复杂度 | 序列长度翻倍，计算量翻四倍 | 上下文窗口有限的根本原因 | [09](09_cost_and_context_window.ipynb)、[10](10_efficient_attention.ipynb) |
#
# 用 09 节的数字说：一千个 token 约有一百万个位置对，十万个 token 约有一百亿个。这是上下文窗口有限的一个原因，但不是唯一的原因。
# 推理时 KV 缓存随上下文**线性**增长，整个生成过程中都要留在内存里，它往往是最先撞上的墙。09 节算过，按 Llama-2-7B 的形状，假如让它读 128K 个 token，
# 一个序列的缓存就要 64 GiB，而这个模型只训练到 4,096 个 token；
# 此外，模型通常只在训练过的长度以内才可靠（07 节）。稀疏注意力和滑动窗口注意力只算一部分位置对，改变了每个 token 能看到的范围；
# FlashAttention 则算全部位置对，却从不存下整个 $n \times n$ 矩阵（09、10 节）。

# %% [markdown] lang="en"
# ## Misreadings to avoid
#
# Each of these sentences sounds right and is wrong; the second column is the evidence, measured in this course.
#
# | Misreading | The evidence in this course | where |
# |---|---|---|
# | “Softmax picks one token.” | every visible weight above is positive (the smallest about $10^{-3}$); only a mask makes exact zeros | [03](03_softmax.ipynb), [04](04_masking.ipynb) |
# | “A large weight explains the prediction.” | a weight is the share of one value in one mix, in one head and one layer; residuals, other heads and later layers change the result | [01](01_query_key_value.ipynb) |
# | “The mask is a training trick.” | generating token by token with a KV cache gives exactly the outputs of the full masked computation | [04](04_masking.ipynb) |
# | “More heads are always better.” | with $d_{model}$ fixed, each head gets fewer dimensions ($d_k = d_{model}/h$) and the weights tensor grows with $h$ | [06](06_multi_head_attention.ipynb) |
# | “Attention prefers nearby words.” | without positions, biases or windows the average weight is the same at every distance | [07](07_position.ipynb) |
# | “Q, K and V are three different inputs.” | in self-attention they are three projections of one sequence; cross-attention takes K and V from a second one | [05](05_self_and_cross_attention.ipynb) |
# | “FlashAttention removes the $n^2$ cost.” | it removes the $n \times n$ memory and most memory traffic; the number of pairs computed stays $n^2$ (cited) | [10](10_efficient_attention.ipynb) |
# | “Lost in the middle is just diluted weights.” | a position effect with several causes (training data, position encoding, attention patterns), shown with a toy bias, separately from the $n^2$ cost | [09](09_cost_and_context_window.ipynb) |

# %% [markdown] lang="zh"
# ## 常见误区
#
# 下面每句话听起来都对，其实都不对；第二列是本课程实测过的证据。
#
# | 误解 | 本课程中的证据 | 出处 |
# |---|---|---|
# | “softmax 只挑出一个 token。” | 上面每个可见权重都是正数（最小约 $7 \times 10^{-4}$）；只有掩码才会产生严格的 0 | [03](03_softmax.ipynb)、[04](04_masking.ipynb) |
# | “权重大就说明它决定了预测结果。” | 权重只是某一层、某一个头里，一次混合中某个 Value 所占的份额；残差连接、其他头和后续层都会继续改变结果 | [01](01_query_key_value.ipynb) |
# | “掩码只是训练时的技巧。” | 用 KV 缓存逐个 token 生成，结果与完整的带掩码计算完全一致 | [04](04_masking.ipynb) |
# | “头越多越好。” | $d_{model}$ 固定时，头越多每个头的维度越小（$d_k = d_{model}/h$），权重张量也随 $h$ 增大 | [06](06_multi_head_attention.ipynb) |
# | “注意力天生偏爱近处的词。” | 没有位置编码、偏置或窗口时，各个距离上的平均权重都一样 | [07](07_position.ipynb) |
# | “Q、K、V 是三个不同的输入。” | 自注意力里它们是同一个序列的三个投影；交叉注意力的 K、V 才来自另一个序列 | [05](05_self_and_cross_attention.ipynb) |
# | “FlashAttention 消除了 $n^2$ 的代价。” | 它省掉的是 $n \times n$ 矩阵的显存和大部分数据搬运；要计算的位置对仍然是 $n^2$ 个（引用） | [10](10_efficient_attention.ipynb) |
# | “中间迷失就是权重被摊薄了。” | 它是一种位置偏差，成因有多种（训练分布、位置表示、注意模式），用玩具偏置演示，与 $n^2$ 代价分开讨论 | [09](09_cost_and_context_window.ipynb) |

# %% [markdown] lang="en"
# ## The concept map
#
# Where attention sits: the prerequisites it is built from, its core ideas, and the topics that build on it
# (the last column of the source tutorial, split as it splits them: next, then further). The number in brackets is the
# notebook that covers it here. (The map is a mermaid diagram: JupyterLab 4.1 or later and GitHub draw it; older
# viewers show its text.)
#
# ```mermaid
# flowchart TB
#   subgraph PRE["Prerequisites"]
#     direction TB
#     dot["Vectors and the dot product (00)"]
#     smx["Softmax (00, 03)"]
#     proj["A neural network layer as a learned projection (00)"]
#     rnn["RNN (00, 08)"]
#   end
#   subgraph CORE["Core ideas"]
#     direction TB
#     qkv["Query, Key, Value (01, 02)"]
#     sc["Self- vs cross-attention (05)"]
#     path["Path length and parallelism (08)"]
#     mh["Multi-head attention (06)"]
#     cost["n² cost (09)"]
#   end
#   subgraph NEXT["Next topics"]
#     direction TB
#     block["Transformer block (12, 13)"]
#     pos["Position encoding (07)"]
#     vg["Vanishing gradients (00, 08)"]
#     ctx["Context window (09)"]
#     mid["Lost in the middle (09)"]
#   end
#   subgraph FAR["Further"]
#     direction TB
#     law["Scaling laws"]
#     llm["Large language models"]
#     fa["FlashAttention and inference optimisation (10)"]
#   end
#   dot --> qkv
#   smx --> qkv
#   proj --> qkv
#   proj --> mh
#   rnn --> path
#   qkv --> sc
#   qkv --> mh
#   sc --> path
#   path --> cost
#   sc --> pos
#   mh --> block
#   sc --> block
#   path --> vg
#   cost --> ctx
#   ctx --> mid
#   path --> law
#   block --> llm
#   law --> llm
#   cost --> fa
# ```

# %% [markdown] lang="zh"
# ## 概念图
#
# 注意力在知识版图中的位置：它由哪些先修知识搭成、核心概念有哪些、又通向哪些主题（按原教程的划分：紧邻的延伸方向，以及更远的学习方向）。
# 括号里是本课程讲解它的那一节。（这张图要在 JupyterLab 4.1 及以上版本或 GitHub 上才能画出来，较旧的查看器只显示它的源文本。）
#
# ```mermaid
# flowchart TB
#   subgraph PRE["先修知识"]
#     direction TB
#     dot["向量与点积（00）"]
#     smx["softmax（00、03）"]
#     proj["神经网络：可学习的投影（00）"]
#     rnn["循环神经网络 RNN（00、08）"]
#   end
#   subgraph CORE["核心概念"]
#     direction TB
#     qkv["Query、Key、Value（01、02）"]
#     sc["自注意力与交叉注意力（05）"]
#     path["路径长度与并行计算（08）"]
#     mh["多头注意力（06）"]
#     cost["平方级开销 n²（09）"]
#   end
#   subgraph NEXT["紧邻的延伸方向"]
#     direction TB
#     block["Transformer 块（12、13）"]
#     pos["位置编码（07）"]
#     vg["梯度消失（00、08）"]
#     ctx["上下文窗口（09）"]
#     mid["中间迷失（09）"]
#   end
#   subgraph FAR["更远的学习方向"]
#     direction TB
#     law["缩放定律"]
#     llm["大语言模型"]
#     fa["FlashAttention 等推理优化（10）"]
#   end
#   dot --> qkv
#   smx --> qkv
#   proj --> qkv
#   proj --> mh
#   rnn --> path
#   qkv --> sc
#   qkv --> mh
#   sc --> path
#   path --> cost
#   sc --> pos
#   mh --> block
#   sc --> block
#   path --> vg
#   cost --> ctx
#   ctx --> mid
#   path --> law
#   block --> llm
#   law --> llm
#   cost --> fa
# ```

# %% [markdown] lang="en"
# ## What to read next
#
# The reading list of the source tutorial, with what each one adds to this course:
#
# - Vaswani et al., [*Attention Is All You Need*](https://arxiv.org/abs/1706.03762), NeurIPS 2017: the original paper.
#   Read section 3.2 (scaled dot-product and multi-head attention; footnote 4 is the variance argument of notebook 02)
#   and section 4 (why self-attention: the complexity and path-length table behind notebook 08).
# - Jay Alammar, [*The Illustrated Transformer*](https://jalammar.github.io/illustrated-transformer/): the classic
#   illustrated walk through a whole Transformer, encoder and decoder; the natural next step after this course.
# - 3Blue1Brown, [*Attention in transformers, visually explained*](https://www.3blue1brown.com/lessons/attention)
#   (Deep Learning, chapter 6): the same Query/Key/Value geometry in animation, with masking, context size and cross-attention.
# - Phuong and Hutter (DeepMind), [*Formal Algorithms for Transformers*](https://arxiv.org/abs/2207.09238), 2022: every
#   algorithm written out as precise pseudocode; the rigorous reference once the intuition is in place.

# %% [markdown] lang="zh"
# ## 进一步阅读
#
# 原教程给出的阅读清单，以及每一篇能在本课程之外补上什么：
#
# - Vaswani 等，[*Attention Is All You Need*](https://arxiv.org/abs/1706.03762)，NeurIPS 2017（原论文）。
#   重点读论文的 3.2 小节（缩放点积注意力与多头注意力；脚注 4 就是 02 节的方差推导）和第 4 部分（为什么用自注意力：08 节背后的复杂度与路径长度对比表）。
# - Jay Alammar，[*The Illustrated Transformer*](https://jalammar.github.io/illustrated-transformer/)（图解经典）：
#   用图一步步走完整个 Transformer 的编码器和解码器，是学完本课程后最自然的下一步。
# - 3Blue1Brown 讲注意力的视频 [*Attention in transformers, visually explained*](https://www.3blue1brown.com/lessons/attention)
#   （深度学习系列第 6 章，直观可视化）：用动画呈现同样的 Query/Key/Value 几何，也讲到掩码、上下文长度和交叉注意力。
# - Phuong、Hutter（DeepMind），[*Formal Algorithms for Transformers*](https://arxiv.org/abs/2207.09238)，2022（推导严谨）：
#   把每个算法都写成精确的伪代码，建立直觉之后可作为严谨的参考。

# %% [markdown] lang="en"
# ## Summary
#
# - One multi-head causal attention step uses every idea of the course, and on it we measured: rows sum to 1, the 42
#   masked weights are exactly 0, earlier outputs do not move when the last token changes, and the last token reads the
#   first in one step.
# - Attention versus RNN: path $O(1)$ vs $O(n)$, parallel vs sequential, $O(n^2 d)$ vs $O(n d^2)$, an $n \times n$ matrix
#   vs a hidden state, position added vs order for free.
# - For developers: self-attention, Query/Key/Value, multi-head, and $O(n^2)$, one reason context windows are limited,
#   with the linear KV cache and the training length.
#
# **Next:** [12 · Attention inside a trained Transformer](12_trained_transformer.ipynb): the heads a small trained
# model learned, measured and switched off one by one; then in [13 · Build your own GPT](13_build_a_gpt.ipynb) you build and
# train one yourself.

# %% [markdown] lang="zh"
# ## 小结
#
# - 一步多头因果注意力就用上了整套课程的所有概念。在它上面实测：每行之和为 1，42 个被屏蔽的权重严格为 0，改动最后一个 token 时前面的输出纹丝不动，
#   最后一个词一步就读到第一个词。
# - 注意力与 RNN：路径 $O(1)$ 对 $O(n)$，并行对串行，$O(n^2 d)$ 对 $O(n d^2)$，$n \times n$ 矩阵对隐藏状态，位置要额外加入对天然有序。
# - 给开发者的四个概念：自注意力、Query/Key/Value、多头注意力，以及 $O(n^2)$，它是上下文窗口有限的原因之一，另外还有线性增长的 KV 缓存和训练长度。
#
# **下一节**：[12 · 训练好的 Transformer 里的注意力](12_trained_transformer.ipynb)。一个训练好的小模型学出来的头，逐个测量、逐个关掉；
# 然后在 [13 · 亲手搭一个 GPT](13_build_a_gpt.ipynb) 里，你自己搭建并训练一个。
