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
# # 06 · Multi-head attention
#
# **After this notebook you will be able to**
# - follow one multi-head layer step by step, with every shape: project, split $d_{model}$ into $h$ heads, attend in
#   each, concatenate, project with $W^O$;
# - show that `attention_core` computes the same numbers as `torch.nn.MultiheadAttention`, and pass torch a mask the right way round;
# - read heads that attend to different relations in a layer whose every weight was set by hand, and say why in a trained
#   model such roles are learned, not designed;
# - switch heads off and measure what changes: some heads are redundant;
# - answer the self-test question "are more heads always better?" with $d_k = d_{model}/h$ and the cost of each head.
#
# **What you should know first:** scaled dot-product attention with its shapes
# ([02 · Scaled dot-product attention](02_scaled_dot_product.ipynb)) and self-attention
# ([05 · Self-attention and cross-attention](05_self_and_cross_attention.ipynb)). *About 75 minutes, exercises included.*

# %% [markdown] lang="zh"
# # 06 · 多头注意力
#
# **学完本节，你将能够**
# - 逐步算完一层多头注意力，并说出每一步的形状：投影，把 $d_{model}$ 拆成 $h$ 个头，各头分别做注意力，拼接，再用 $W^O$ 投影；
# - 验证权重相同时 `attention_core` 与 `torch.nn.MultiheadAttention` 算出的数一样，并把掩码正确地交给 torch；
# - 在一个参数全部手工设定的模型里，读懂各个头分别关注哪种关系，并说明在训练出来的模型里，这种分工为什么是学出来的，而不是设计出来的；
# - 关掉某些头，测量输出的变化：有些头是冗余的；
# - 借助 $d_k = d_{model}/h$ 和每个头的开销，回答自测题“头数越多越好吗？”。
#
# **需要的基础**：缩放点积注意力及其中各量的形状，见 [02 节](02_scaled_dot_product.ipynb)；自注意力，见 [05 节](05_self_and_cross_attention.ipynb)。*约 75 分钟，含练习。*

# %%
LANG = "[en]en[zh]zh"  # [en] language of this edition: "en" or "zh" [zh] 本版的语言："en" 或 "zh"
# %matplotlib inline

import numpy as np

import attention_core as ac
from attention_core.core import hooked
from attention_core.labs.nb06_multi_head_attention import checks, heads_lab, pronoun_lab, published, widgets
from attention_core.teaching import formula, i18n, plots, quiz
from attention_core.teaching.tables import pad

i18n.set_language(LANG)
rng = np.random.default_rng(0)  # [en] every random number in this notebook comes from this seed [zh] 本节的所有随机数都来自这个种子
np.set_printoptions(precision=3, suppress=True)  # [en] arrays print with 3 decimals [zh] 数组打印时保留 3 位小数

# %% [markdown] lang="en"
# ## One head, one way of looking
#
# A single head gives each query **one** row of weights, one answer to "where should I look?". But a word stands in
# several relations at once. In *"the cat sat on the mat because it was comfortable"* (the example of the tutorial
# "Transformer self-attention: the intuition, no maths needed", Transformer 自注意力机制：直觉理解，不需要数学), the verb
# *sat* has a subject (*cat*), a left neighbour (also *cat*), a place (*mat*); the pronoun *it* has an antecedent, a
# verb, an adjective. One row of softmax weights cannot point at all of these at full strength: it must split its
# budget of 1, and hands over one blend of their values.
#
# Multi-head attention runs several heads side by side in the same layer. Each head has its own projections, so it
# compares the tokens in its own **subspace**, forms its own weights and takes its own values; the heads' outputs are
# concatenated and mixed by one more projection, $W^O$:
#
# $$\text{MultiHead}(Q, K, V) = \text{Concat}(\text{head}_1, \dots, \text{head}_h)\,W^O, \qquad
# \text{head}_i = \text{Attention}(QW_i^Q,\; KW_i^K,\; VW_i^V).$$
#
# In the tutorial's words, it is not "several models voting": it is the same sequence watched on several channels at once.

# %% [markdown] lang="zh"
# ## 一个头，只有一种看法
#
# 一个注意力头只给每个 Query **一行**权重，对“我该看哪里”只有一个回答。可是一个词往往同时处在好几种关系里。
# 以《Transformer 自注意力机制：直觉理解，不需要数学》中的“the cat sat on the mat because it was comfortable”为例，动词 *sat* 有主语 *cat*，
# 左边紧挨着的词也是 *cat*，还有地点 *mat*；代词 *it* 有指代对象、动词和形容词。一行 softmax 权重不可能同时满额地指向所有这些位置：
# 想看两个地方，就得把总量为 1 的权重分给它们，交出去的也只是它们 Value 的一个混合。
#
# 多头注意力在同一层里并排运行多个头。每个头各有一套投影，在各自的**子空间**里比较 token、算出权重、取 Value；
# 各头的输出拼接起来，再经过一次投影 $W^O$ 融合：
#
# $$\text{MultiHead}(Q, K, V) = \text{Concat}(\text{head}_1, \dots, \text{head}_h)\,W^O, \qquad
# \text{head}_i = \text{Attention}(QW_i^Q,\; KW_i^K,\; VW_i^V)$$
#
# 用原教程的话说，多头注意力不是“多个模型投票”，而是“同一序列在多个语义频道上被同时观察”。

# %% [markdown] lang="en"
# ## Split, attend, concatenate, project
#
# One layer with $d_{model} = 8$ and $h = 2$ heads on a batch of 2 sequences of 5 tokens, one step per line. The layer
# does **not** hold $h$ separate sets of matrices: it projects with one $(d_{model}, d_{model})$ matrix $W^Q$ and cuts
# the result into $h$ slices of width $d_k = d_{model}/h$, so head $i$'s $W_i^Q$ is columns $i \cdot d_k, \dots,
# (i+1) \cdot d_k - 1$ of $W^Q$. `ac.split_heads` does the cut and moves the head axis forward, so one batched
# attention call serves every head.
#
# **Numbering.** Heads and layers are numbered from 0 throughout the course, as in the code: head 0 is the first head
# (`weights[:, 0]`), and "L1H0" in notebook 12 is head 0 of layer 1, the second layer.

# %% [markdown] lang="zh"
# ## 五步算完一层：投影、拆分、各头计算、拼接、再投影
#
# 下面是一层 $d_{model} = 8$、$h = 2$ 的多头注意力，输入是一批 2 个序列、每个 5 个 token，每行代码一步。这一层**并不**保存 $h$ 套独立的矩阵，
# 而是先用一个 $(d_{model}, d_{model})$ 的矩阵 $W^Q$ 做投影，再把结果切成 $h$ 片，每片的维度是 $d_k = d_{model}/h$，所以第 $i$ 个头的 $W_i^Q$
# 就是 $W^Q$ 的第 $i \cdot d_k$ 到 $(i+1) \cdot d_k - 1$ 列。`ac.split_heads` 负责切分，并把“头”这一维挪到前面，一次批量的注意力调用就能算完所有的头。
#
# **编号约定**。本课程中的头和层一律从 0 开始编号，与代码里的下标一致。第 0 个头就是第一个头，即 `weights[:, 0]`；
# 12 节的“L1H0”指下标为 1 的层（即第二层）中下标为 0 的头（即第一个头）。

# %%
p = ac.init_multihead(d_model=8, n_heads=2, seed=0)   # [en] W_q, W_k, W_v, W_o: (8, 8); biases: (8,) [zh] W_q、W_k、W_v、W_o：(8, 8)；偏置：(8,)
x = rng.normal(size=(2, 5, 8))                        # [en] (B, T, D): 2 sequences of 5 tokens [zh] (B, T, D)：2 条序列，每条 5 个 token

q = x @ p.w_q + p.b_q                                 # [en] (B, T, D)     1. project (self-attention: x three times) [zh] (B, T, D)     1. 投影（自注意力：x 用三次）
k = x @ p.w_k + p.b_k
v = x @ p.w_v + p.b_v
qh, kh, vh = (ac.split_heads(t, p.n_heads) for t in (q, k, v))   # [en] (B, H, T, Dh)  2. split [zh] (B, H, T, Dh)  2. 拆分
print("x", x.shape, "-> q", q.shape, "-> split_heads", qh.shape, "  d_k =", p.d_head)
print("[en]head 1 (numbered from 0) is just columns 4..7 of q:[zh]第 1 个头（从 0 开始编号）就是 q 的列 4..7：", np.array_equal(qh[:, 1], q[..., 4:8]))

# %%
heads, weights = ac.scaled_dot_product_attention(qh, kh, vh)    # [en] 3. attend in each head [zh] 3. 在每个头里计算注意力
concat = ac.merge_heads(heads)                                  # [en] 4. concatenate the heads again [zh] 4. 把各个头重新拼接起来
out = concat @ p.w_o + p.b_o                                    # [en] 5. mix them with W_o [zh] 5. 用 W_o 混合它们
print("[en]heads[zh]各头输出", heads.shape, "[en] weights[zh] 权重", weights.shape, "-> merge_heads", concat.shape,
      "[en]-> output[zh]-> 输出", out.shape)
print("[en]merge_heads undoes split_heads:[zh]merge_heads 是 split_heads 的逆运算：", np.array_equal(ac.merge_heads(qh), q))

out_lib, weights_lib = ac.multi_head_attention(x, x, x, p)      # [en] the library, in one call [zh] 库函数，一次调用
print("[en]same as ac.multi_head_attention:[zh]与 ac.multi_head_attention 的结果相同：", np.allclose(out, out_lib), np.allclose(weights, weights_lib))

# %% [markdown] lang="en"
# Each head has its own $(T, T)$ weights, returned together as $(B, H, T_q, T_k)$. `ac.multi_head_attention` hands the
# work to the library's one attention layer, `hooked.attention`, the same function the trained models of notebooks 12
# and 13 run. Its lines are the five steps above (`merge_heads(z) @ w["w_o"]` is step 5). Three extras can be skipped
# for now: `hook(...)` marks the points where notebook 12 reads or replaces an intermediate result (here they hand the
# value straight back), `past` is the KV cache of notebook 04 (its size is measured in 09), and `fused_attention` is a kernel that never stores the
# weights (notebook 10), used only when nobody asks for them:

# %% [markdown] lang="zh"
# 每个头都有自己的 $(T, T)$ 权重，这一层把它们一起返回，形状是 $(B, H, T_q, T_k)$。`ac.multi_head_attention` 把计算交给库里唯一的注意力层
# `hooked.attention`，12、13 节训练好的模型运行的也是这个函数。它的各行就是上面五步，`merge_heads(z) @ w["w_o"]` 是第 5 步。
# 另外三处暂时可以跳过：`hook(...)` 标出 12 节读取或替换中间结果的位置，这里原样交回；`past` 是 04 节的 KV 缓存（09 节量它的大小）；
# `fused_attention` 是从不存下权重的内核（10 节），只在没有人要权重时才用：

# %%
print(formula.source(hooked.attention))

# %% [markdown] lang="en"
# Notice what does **not** depend on $h$: the four matrices are $(d_{model}, d_{model})$ whatever the number of heads.
# Choosing $h$ only decides how the $d_{model}$ columns are shared out. We come back to that trade-off at the end.

# %% [markdown] lang="zh"
# 注意哪些东西**与** $h$ **无关**：无论分几个头，四个矩阵都是 $(d_{model}, d_{model})$。$h$ 只决定这 $d_{model}$ 列如何分配。
# 本节最后会回到这个取舍。

# %% [markdown] lang="en"
# ## The same numbers as PyTorch
#
# `torch.nn.MultiheadAttention` implements the same layer. `ac.to_torch_mha` builds one that holds exactly our
# weights (torch stores each matrix transposed and packs $W^Q, W^K, W^V$ into one `in_proj_weight`; the function
# takes care of that). One trap: for a boolean `attn_mask`, torch's `MultiheadAttention` reads `True` as **not
# allowed**, the opposite of this package (and of `F.scaled_dot_product_attention`), where `True` means "may attend".
# So we pass `~mask`. Below, with a causal mask, and then what happens if you forget the `~`.

# %% [markdown] lang="zh"
# ## 与 PyTorch 的结果逐位对照
#
# `torch.nn.MultiheadAttention` 实现的是同一种层。`ac.to_torch_mha` 会构造一个装着我们这组权重的 torch 模块
# （torch 把每个矩阵转置存放，还把 $W^Q, W^K, W^V$ 打包成一个 `in_proj_weight`，这些都由这个函数处理）。
# 有一个陷阱：对布尔型的 `attn_mask`，torch 的 `MultiheadAttention` 把 `True` 理解为**不允许**关注，
# 与本库（以及 `F.scaled_dot_product_attention`）正好相反：在本库中 `True` 表示“可以关注”。所以我们要传 `~mask`。
# 下面用一个因果掩码来验证，再看看忘了 `~` 会发生什么。

# %%
causal = ac.causal_mask(5)                                        # [en] (T, T), True = may attend [zh] (T, T)，True = 可以关注
out_np, w_np = ac.multi_head_attention(x, x, x, p, mask=causal)
if ac.backends.torch_available():
    import torch
    mha = ac.to_torch_mha(p)                                      # float64, batch_first=True
    xt = torch.as_tensor(x)
    with torch.no_grad():
        out_t, w_t = mha(xt, xt, xt, attn_mask=torch.as_tensor(~causal), average_attn_weights=False)
        out_bad, w_bad = mha(xt, xt, xt, attn_mask=torch.as_tensor(causal), average_attn_weights=False)
    print("[en]output  max |NumPy - torch| < 1e-12:[zh]输出  max |NumPy - torch| < 1e-12：", bool(np.abs(out_np - out_t.numpy()).max() < 1e-12))
    print(f"[en]weights max |NumPy - torch| < 1e-12: {bool(np.abs(w_np - w_t.numpy()).max() < 1e-12)}  shape {tuple(w_t.shape)}[zh]权重  max |NumPy - torch| < 1e-12：{bool(np.abs(w_np - w_t.numpy()).max() < 1e-12)}  形状 {tuple(w_t.shape)}")
    print(f"[en]without the ~: query 0 looks at keys {np.flatnonzero(w_bad[0, 0, 0].numpy() > 0).tolist()} (the future);  last query's output is NaN: {bool(out_bad[0, -1].isnan().all())}[zh]忘了 ~：Query 0 看的是 Key {np.flatnonzero(w_bad[0, 0, 0].numpy() > 0).tolist()}（未来）；最后一个 Query 的输出是 NaN：{bool(out_bad[0, -1].isnan().all())}")
else:
    print("[en]torch is not installed: the comparison is skipped (pip install torch==2.13.0 to run it).[zh]没有安装 torch：跳过这项比较（运行 pip install torch==2.13.0 后即可比较）。")

# %% [markdown] lang="en"
# The two implementations agree to within 1e-12 in float64 (the weights too, head by head, with
# `average_attn_weights=False`; torch's default averages them over the heads). With the mask the wrong way round,
# the first query may only look at the future, and the last query may look at nothing at all: torch returns `NaN`
# for it. (This package gives a fully masked row all-zero weights instead, never a silent `NaN`; see notebook 04.)

# %% [markdown] lang="zh"
# 两种实现的结果一致，只差 float64 的最后几位；权重也逐头一致，这要用 `average_attn_weights=False`，因为 torch 默认会把各头的权重取平均。
# 把掩码弄反之后，第一个 Query 只能看未来，最后一个 Query 什么也看不到，torch 对它返回 `NaN`。本库对被完全屏蔽的行给出全零权重，绝不会悄悄产生 `NaN`，见 04 节。

# %% [markdown] lang="en"
# ## Heads see different relations
#
# Random weights show the machinery but not the point. To see heads that attend to different relations, and **why**,
# we build a layer whose every weight is set by hand and can be read. Each token of the sentence is a vector of named features: which word
# it is (one-hot), its role, its clause, and its position (three pairs of numbers turning at different speeds, like
# clock hands; notebook 07 explains such codes). The roles, the clause and the position features:

# %% [markdown] lang="zh"
# ## 不同的头关注不同的关系
#
# 随机权重能展示计算流程，却说明不了要点。为了看到关注不同关系的头，并弄清**为什么**，我们手工搭一层多头注意力，每个参数都有明确的含义。
# 句子里的每个 token 都是一个向量，每一维都是一个有名字的特征，记录四件事：是哪个词（one-hot）、语法角色、所在分句和位置。
# 位置用三对以不同速度旋转的数表示，就像钟表的几根指针，07 节会讲这类编码。下面是角色、分句和位置特征：

# %%
demo = heads_lab.sentence_demo()
print(f"[en]tokens: {' '.join(demo.tokens)}   x: {demo.x.shape}  heads: {demo.params.n_heads}  d_k: {demo.params.d_head}[zh]token：{' '.join(demo.tokens)}   x：{demo.x.shape}  头数：{demo.params.n_heads}  d_k：{demo.params.d_head}")
heads_lab.feature_table(demo)

# %% [markdown] lang="en"
# The vector also has empty **slots** (all zero in the input) into which the heads write: `prev:*` (which word is
# before me), `subj:*` (who is my subject) and `where*` (where my word occurs). Four heads, each set by hand as a rule
# you can read in its matrices:
#
# | head | its query asks | the keys answer with | it hands over (value) |
# |---|---|---|---|
# | 0 · previous token | "I want position $p - 1$" (my position code, rotated back by one step) | their position | their word → `prev:*` |
# | 1 · same word | "I want my own word" | their word | their position → `where*` |
# | 2 · verb → subject | a verb: "I want a subject"; everyone: "I want my own clause" | their role and clause | their word → `subj:*` |
# | 3 · nearest noun | "I want something near me"; a verb also: "I want a noun" | their position, their role | their word → `subj:*` |
#
# For example, head 2's query and key matrices (the non-zero part of its slice of $W^Q$ and $W^K$; `h2[0]` is
# the first of its 11 columns):

# %% [markdown] lang="zh"
# 这个向量里还有一些空的**槽位**（输入中全为 0），供各个头写入：`prev:*`（我前面是哪个词）、`subj:*`（我的主语是谁）
# 和 `where*`（我这个词出现在哪里）。四个头都是手工设定的，每个头都是一条能从矩阵里直接读出来的规则：
#
# | 头 | 它的 Query 在问 | Key 凭什么被找到 | 它交出什么（Value） |
# |---|---|---|---|
# | 0 · 前一个词 | “我要找位置 $p - 1$”（把我的位置编码往回转一步） | 自己的位置 | 自己是哪个词 → `prev:*` |
# | 1 · 相同的词 | “我要找和我相同的词” | 自己是哪个词 | 自己的位置 → `where*` |
# | 2 · 动词 → 主语 | 动词：“我要找主语”；所有词：“我要找同一分句的词” | 自己的角色和分句 | 自己是哪个词 → `subj:*` |
# | 3 · 最近的名词 | “我要找离我近的词”；动词还要：“我要找名词” | 自己的位置和角色 | 自己是哪个词 → `subj:*` |
#
# 例如第 2 个头的 Query 矩阵和 Key 矩阵（它在 $W^Q$ 和 $W^K$ 中那一片的非零部分；`h2[0]` 是它 11 列中的第 0 列）：

# %%
heads_lab.head_matrix(demo, 2, "w_q")

# %%
heads_lab.head_matrix(demo, 2, "w_k")

# %% [markdown] lang="en"
# So for the verb *sat* (clause 1), the raw dot product $q \cdot k$ with the key of *cat* (a subject in clause 1) is
# $14 + 14 = 28$, with the key of *it* (a subject in clause 2) $14 - 14 = 0$, with any other word of clause 1 only $14$.
# These are the scores **before** the division by $\sqrt{d_k} = \sqrt{11}$; softmax sees $28/\sqrt{11} \approx 8.44$,
# $0$ and $14/\sqrt{11} \approx 4.22$. Computed:

# %% [markdown] lang="zh"
# 以第 1 分句的动词 *sat* 为例，它的 Query 与各个 Key 的原始点积 $q \cdot k$ 是：与本分句主语 *cat* 为 $14 + 14 = 28$，
# 与第 2 分句主语 *it* 为 $14 - 14 = 0$，与本分句其他词只有 $14$。这些都是**除以** $\sqrt{d_k} = \sqrt{11}$ **之前**的分数，
# softmax 看到的是 $28/\sqrt{11} \approx 8.44$、$0$ 和 $14/\sqrt{11} \approx 4.22$。算一下：

# %%
p6 = demo.params
q2 = ac.split_heads(demo.x @ p6.w_q + p6.b_q, p6.n_heads)[2]               # [en] head 2's queries (T, Dh = 11) [zh] 第 2 个头的 Query (T, Dh = 11)
k2 = ac.split_heads(demo.x @ p6.w_k + p6.b_k, p6.n_heads)[2]               # [en] head 2's keys (T, 11) [zh] 第 2 个头的 Key (T, 11)
sat = demo.tokens.index("sat")
raw2 = q2[sat] @ k2.T                                                       # [en] raw q·k of "sat" with every key [zh] "sat" 与每个 Key 的原始 q·k
for j in (demo.tokens.index("cat"), demo.tokens.index("it"), demo.tokens.index("on")):
    print(f"[en]sat · {demo.tokens[j]:<4} raw {raw2[j]:5.1f}   / sqrt(11) = {raw2[j] / np.sqrt(11):5.2f}[zh]sat · {demo.tokens[j]:<4} 原始 {raw2[j]:5.1f}   / sqrt(11) = {raw2[j] / np.sqrt(11):5.2f}")

# %% [markdown] lang="en"
# Head 0 relies on a property of the position code: one fixed matrix $R$ turns the code of position $p$ into the
# code of position $p - 1$, for every $p$ at once (each pair of numbers is turned back by its own step). Checked
# below; then we run the layer:

# %% [markdown] lang="zh"
# 第 0 个头靠的是位置编码的一个性质：用同一个固定矩阵 $R$，就能把任意位置 $p$ 上的编码变成位置 $p - 1$ 上的编码，
# 做法是让每一对数各自往回转一步。下面先验证这一点，再运行这一层：

# %%
pe = heads_lab.position_code(10)                                            # [en] (T, 6), the position features [zh] (T, 6)，位置特征
R = heads_lab.shift_back_one()                                              # (6, 6)
print("[en]PE[p] @ R == PE[p - 1] for every p:[zh]对每个 p 都有 PE[p] @ R == PE[p - 1]：", np.allclose(pe[1:] @ R, pe[:-1]))

out6, w6 = ac.multi_head_attention(demo.x, demo.x, demo.x, demo.params)   # (T, D), (H, T, T)
names = demo.head_names()
for i in (2, 4, 8):                                                         # [en] sat, the (second), was [zh] sat、（第二个）the、was
    looks = [f"{demo.tokens[w6[h, i].argmax()]} ({w6[h, i].max():.2f})" for h in range(4)]
    print(f"{demo.tokens[i]:>4s} ->", " | ".join(f"{n}: {lk}" for n, lk in zip(names, looks)))

# %%
fig = plots.head_grid(w6, list(demo.tokens), head_titles=names, ncols=2)

# %% [markdown] lang="en"
# Four heads, four patterns, from the same input in the same layer: head 0 is a shifted diagonal (every word looks at
# its left neighbour; the first word looks at itself); head 1 is a diagonal plus the two *the*s finding each other;
# in head 2 the two verbs find their subjects (*sat* → *cat*, *was* → *it*), while every other word spreads its weight
# evenly over its own clause (1/6 ≈ 0.17 in the first clause of six words, 1/4 in the second), as the two rows printed
# below show; head 3 keeps most
# words on themselves and sends each verb to the nearest noun. Head 0 writes into `prev:*`; heads 2 and 3 both write
# into `subj:*`, so the subject's strength below is about 2, the sum of the two heads. $W^O$ keeps different slots
# apart, so the output of *was* now knows both its neighbour and its subject:

# %% [markdown] lang="zh"
# 同一层、同一个输入，四个头算出四种模式：
#
# - 第 0 个头是一条错开一格的对角线：每个词都看左边的邻居，第一个词没有左邻，只好看自己；
# - 第 1 个头是一条对角线，外加两个 *the* 互相找到对方；
# - 第 2 个头里，两个动词各自找到了主语（*sat* → *cat*，*was* → *it*），其余的词把权重平摊在自己所在的分句上：
#   第一个分句六个词，每个约 0.17；第二个分句四个词，每个 0.25。下面打印的两行就是例子；
# - 第 3 个头让大多数词看自己，让每个动词看离它最近的名词。
#
# 第 0 个头写 `prev:*`，第 2、3 个头都写 `subj:*`，所以下面主语的强度约为 2，是两个头之和。$W^O$ 让不同的槽位互不干扰，于是 *was* 的输出里同时有了左邻和主语：

# %%
print("[en]head 2, 'the' (clause 1):[zh]第 2 个头，the（第一个分句）：", w6[2, 0].round(2))
print("[en]head 2, 'because' (clause 2):[zh]第 2 个头，because（第二个分句）：", w6[2, 6].round(2))
for word in ("sat", "was"):
    i = demo.tokens.index(word)
    prev, subj = heads_lab.read_slot(demo, out6, "prev", i), heads_lab.read_slot(demo, out6, "subj", i)
    print(f"{word}:  prev = {prev[0]} ({prev[1]:.2f})   subj = {subj[0]} ({subj[1]:.2f})")

# %% [markdown] lang="en"
# ### Learned, not designed
#
# We wrote these rules by hand so that you can read them. A real Transformer starts from **random** weights, and
# nothing in the architecture says "head 0 tracks the previous token": the layer only offers $h$ subspaces and $h$
# routes. Here is the same input through a freshly initialised layer (Xavier-uniform weights, as torch starts its in_proj):

# %% [markdown] lang="zh"
# ### 分工是学出来的，不是设计出来的
#
# 这些规则是我们手写的，为的是让你能读懂。真正的 Transformer 从**随机**权重开始，架构本身并没有规定“第 0 个头负责跟踪前一个词”：
# 这一层提供的只是 $h$ 个子空间和 $h$ 条信息通路。下面把同一个输入送进一层刚初始化的多头注意力（Xavier 均匀分布初始化，与 torch 初始化 in_proj 的做法相同）：

# %%
random_layer = ac.init_multihead(demo.x.shape[1], 4, seed=0)
_, w_random = ac.multi_head_attention(demo.x, demo.x, demo.x, random_layer)  # (H, T, T)
print(f"[en]largest weight in each random head: {w_random.max(axis=(1, 2)).round(2)}   uniform would be 1/10 = 0.1[zh]每个随机头的最大权重：{w_random.max(axis=(1, 2)).round(2)}   均匀分布时是 1/10 = 0.1")
print("[en]largest weight in each designed head:[zh]每个设计出来的头的最大权重：", w6.max(axis=(1, 2)).round(2))

# %% [markdown] lang="en"
# At the start every random head spreads its attention almost evenly. The roles heads end up with come from training;
# after training some heads do show clear grammatical, coreference or positional patterns, but many stay mixed or hard
# to name, and one head may do several things. A heatmap pattern is a clue, not a job description.
# [12 · Attention inside a trained Transformer](12_trained_transformer.ipynb) trains a small model and measures its heads.
#
# Compare them yourself: the menu holds the four designed heads and the four random ones.

# %% [markdown] lang="zh"
# 一开始，每个随机的头都把注意力分得几乎一样平均。头最终承担什么角色，完全来自训练。训练之后，确实有些头会呈现明显的语法、指代或位置模式，
# 但也有很多头始终是混合的、难以命名的，同一个头也未必只做一件事。热图里看到的模式只是分析的线索，不是这个头的“岗位说明书”。
# [12 · 训练好的 Transformer 里的注意力](12_trained_transformer.ipynb)训练了一个小模型并逐个测量它的头。
#
# 自己比较一下：下拉菜单里有四个设计出来的头和四个随机的头。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
random_names = [f"[en]random {h + 4}[zh]随机 {h + 4}" for h in range(4)]
widgets.head_widget(np.concatenate([w6, w_random]), list(demo.tokens), head_names=names + random_names)

# %% [markdown] lang="en"
# ## Heads can be redundant
#
# Do we need all four heads? Switch one off and measure. `head_mask` multiplies each head's output by a number
# before $W^O$ (1 keeps it, 0 removes it). For each ablation we measure how much the whole output changes,
# $\lVert Y' - Y\rVert / \lVert Y\rVert$, how much the subject slot of the two verbs changes, and which subject can
# still be read there (the strongest word in the slot, with its strength).

# %% [markdown] lang="zh"
# ## 头之间可能冗余
#
# 四个头都必不可少吗？关掉一个，测一测。`head_mask` 在 $W^O$ 之前把每个头的输出乘上一个数（1 表示保留，0 表示去掉）。
# 对每一种关法，我们测量三件事：整个输出变了多少，即 $\lVert Y' - Y\rVert / \lVert Y\rVert$；两个动词的主语槽位变了多少；
# 以及从那里还能读出哪个主语（槽位里最强的那个词，以及它的强度）。

# %%
rows = heads_lab.ablation_rows(demo)
print(pad("[en]ablated heads[zh]去掉的头", 14) + pad("head_mask", 18) + pad("[en]output change[zh]输出变化", 14, "right")
      + pad("[en]subj slot change[zh]主语槽位变化", 18, "right") + "   " + "[en]subject read at sat / was[zh]在 sat / was 读出的主语")
for r in rows:
    label = "+".join(str(h) for h in r["heads"]) or "-"
    read = " / ".join(f"{w} ({s:.2f})" if w else "[en]nothing[zh]无" for w, s in r["subjects"].values())
    print(f"{label:<14}{str(r['head_mask'].astype(int).tolist()):<18}{r['output_change']:>13.0%}"
          f"{r['subject_change']:>18.0%}   {read}")

# %% [markdown] lang="en"
# Every head carries part of the output (removing any one changes it by 27-66%), but look at what a later layer would
# read. Heads 2 and 3 reach the subject by different routes (roles and clauses vs. positions and nouns) and write it
# into the same slot: remove either and the answer is still *cat* and *it*, at half the strength; remove both and the
# subject is gone. They are **redundant** on this sentence. They are not identical: when the nearest noun is not the
# subject, they disagree.

# %% [markdown] lang="zh"
# 每个头都承载了输出的一部分，去掉任何一个，整体输出都会变化 27%–66%，但要看的是后面的层能读出什么。第 2 个和第 3 个头走不同的路线找到主语，
# 一个靠角色和分句，一个靠位置和名词，并写进同一个槽位。去掉其中任何一个，读出的仍是 *cat* 和 *it*，只是强度减半；两个都去掉，主语就没了。
# 在这句话上它们是**冗余**的。不过它们并不相同：换一句话，让离动词最近的名词不是主语，它们就会给出不同的答案。

# %%
other = heads_lab.sentence_demo("the cat on the mat sat".split())
sat = other.tokens.index("sat")
for only, off in ((2, (3,)), (3, (2,))):                          # [en] keep one of the twins: switch the other off [zh] 两个功能相近的头只留一个，关掉另一个
    out_only, _, _ = heads_lab.ablate(other, off)
    print(f"[en]the cat on the mat sat -> head {only} alone writes subj =[zh]the cat on the mat sat -> 只有头 {only} 时写入的 subj =", heads_lab.read_slot(other, out_only, "subj", sat)[0])

# %% [markdown] lang="en"
# Redundancy is a property of heads **on the data they see**, not of their definitions.
#
# Trained models show the same thing at scale: many heads can be removed at test time with little loss in accuracy,
# while removing certain groups hurts a lot (Michel, Levy and Neubig, *Are Sixteen Heads Really Better than One?*,
# 2019). An important head is one whose removal you can measure, not one whose heatmap looks tidy.

# %% [markdown] lang="zh"
# 冗余与否，要看头**在什么数据上**运行，而不是由它的定义决定。
#
# 训练出来的大模型里也能看到同样的现象：测试时可以去掉许多头而几乎不损失准确率，但去掉某些特定的头组合则损失很大
# （Michel、Levy 和 Neubig，*Are Sixteen Heads Really Better than One?*，2019）。一个头重不重要，要看去掉它之后能测出多大的变化，而不是看它的热图是否整齐。

# %% [markdown] lang="en"
# ## Who is "it"? Three views of one pronoun
#
# The same tutorial reads the *it* of our sentence three ways. **Syntax:** *it* is the subject of its clause and looks
# for the subject of the sentence, *cat*. **Meaning:** *comfortable* says how someone feels, which a cat can and a mat
# cannot (a mat can only be comfortable to sit on, the weaker reading). **Position:** proximity bias, the nearest noun,
# *mat*. Below, each view is one head with hand-set features; its value says which candidate a token is. To combine
# them we simply average the heads' outputs: a stand-in for what concatenation and $W^O$ could learn to do (an output
# projection that adds up the heads' votes), not something a trained layer is guaranteed to do.

# %% [markdown] lang="zh"
# ## “it”指的是谁？一个代词的三种视角
#
# 原教程从三个角度读这句话里的 *it*。**语法**：*it* 是所在分句的主语，会去找整句的主语 *cat*。**语义**：*comfortable* 描述的是感受，
# 猫会有感受，垫子没有，垫子只能是“坐上去舒服”，这是较弱的一种读法。**位置**：距离近的词往往关联更强，最近的名词是 *mat*。
# 下面每种视角都是一个手工设定特征的头，Value 标明这个 token 是哪个候选词。合并时我们直接对几个头的输出取平均。
# 这只是一个类比：拼接之后的 $W^O$ 有可能学成把各头“票数”相加的样子，但训练出来的层并不保证如此。

# %%
view_names = {"syntax": "[en]syntax[zh]语法", "semantics": "[en]semantics[zh]语义", "position": "[en]position[zh]位置"}
for view in pronoun_lab.VIEWS:
    w_view, _ = pronoun_lab.view_weights(view)
    top = [j for j in np.argsort(w_view)[::-1][:2] if w_view[j] > 0.01]   # [en] the one or two tokens it takes from [zh] 它取信息的那一两个 token
    print(pad(view_names[view], 9), "it -> " + ", ".join(f"{pronoun_lab.TOKENS[j]} ({w_view[j]:.2f})" for j in top))
pronoun_lab.views_table()

# %% [markdown] lang="en"
# The views do not agree: syntax and meaning say *cat* (0.98 and 0.93), position says *mat* (0.87). Together *it* resolves
# to **cat** (0.66 against 0.31), the tutorial's conclusion. Without the meaning view the vote is nearly a tie (0.53
# against 0.44): with one view fewer, the answer is no longer reliable. In a trained model nobody assigns views to heads, and later layers
# make the decision; notebook 12 tests pronouns on a trained model.

# %% [markdown] lang="zh"
# 三种视角并不一致：语法和语义都说是 *cat*，分别为 0.98 和 0.93，位置说是 *mat*，为 0.87。合起来，*it* 以 0.66 比 0.31 指向 **cat**，
# 这正是原教程的结论。去掉语义视角，只剩语法和位置，投票几乎打平（0.53 比 0.44）：少了一种视角，结论就不再可靠。在训练出来的模型里，没有人把这些视角分配给各个头，
# 后面的层读取所有头的输出，再做最终判断。12 节会在一个训练好的模型上检验代词消解。

# %% [markdown] lang="en"
# ## The trade-off of the number of heads
#
# With $d_{model}$ fixed, the $h$ heads share its dimensions equally: each head works in a subspace of width
#
# $$d_k = \frac{d_{model}}{h}.$$
#
# More heads means more ways of looking, but each one narrower. The layer refuses an $h$ that does not divide
# $d_{model}$. For example, with $d_{model} = 48$:

# %% [markdown] lang="zh"
# ## 头数的取舍
#
# $d_{model}$ 固定时，$h$ 个头平分它的维度：每个头所在子空间的维度是
#
# $$d_k = \frac{d_{model}}{h}$$
#
# 头越多，看问题的角度越多，但每个头的维度越小。如果 $h$ 不能整除 $d_{model}$，这一层会直接拒绝。例如 $d_{model} = 48$ 时：

# %%
for h in (1, 2, 3, 4, 6, 12, 48):
    print(f"h = {h:>2}:  d_k = 48 / {h:<2} = {ac.init_multihead(48, h).d_head}")
try:
    ac.init_multihead(48, 5)
except ValueError as err:
    print(f"[en]h = 5: {type(err).__name__}: {err}[zh]h = 5：ValueError，库拒绝了这个设置")    # [en] the library refuses, in its own words [zh] 库会拒绝这个设置
    print(f"[en]       in plain words: 48 = 5 × {48 // 5} + {48 % 5}, so 5 heads cannot share d_model = 48 equally[zh]       意思是：48 = 5 × {48 // 5} + {48 % 5}，48 维的 d_model 没法平均分给 5 个头")

# %% [markdown] lang="en"
# What does a narrower head lose? A head's score matrix $Q_h K_h^\top$ is $(T, T)$ but has rank at most $d_k$, so it
# cannot express every pattern. The extreme case is $d_k = 1$: the scores are $q_i k_j$, so every query's favourite
# key is either the key with the largest $k_j$ (if $q_i > 0$) or the one with the smallest (if $q_i < 0$). A
# "previous token" pattern needs a different favourite for almost every query (9 of the 10 here). Across 2000 random heads:

# %% [markdown] lang="zh"
# 维度小的头会失去什么？一个头的分数矩阵 $Q_h K_h^\top$ 虽然是 $(T, T)$ 的，但秩至多为 $d_k$，因此并不能表达任意的模式。
# 最极端的是 $d_k = 1$：分数是 $q_i k_j$，$q_i > 0$ 时每个 Query 最喜欢 $k_j$ 最大的 Key，$q_i < 0$ 时则最喜欢 $k_j$ 最小的。
# 而“前一个词”这种模式要求几乎每个 Query 都有不同的最爱，这里的 10 个 Query 中要有 9 个各不相同。在 2000 个随机的头上试一试：

# %%
scores_1 = rng.normal(size=(10, 1)) @ rng.normal(size=(1, 10))           # [en] a d_k = 1 head: (T, T) [zh] 一个 d_k = 1 的头：(T, T)
print("[en]rank of a d_k = 1 score matrix:[zh]d_k = 1 的分数矩阵的秩：", np.linalg.matrix_rank(scores_1))
for d_k in (1, 2, 4):
    print(f"[en]2000 random heads with d_k = {d_k}: at most {heads_lab.distinct_favourites(d_k)} different favourite keys[zh]2000 个 d_k = {d_k} 的随机头：最多只有 {heads_lab.distinct_favourites(d_k)} 个不同的“最爱” Key")
print(f"[en]our previous-token head (d_k = 11) has {len(set(w6[0].argmax(axis=1).tolist()))} different favourites[zh]我们“前一个词”的头（d_k = 11）有 {len(set(w6[0].argmax(axis=1).tolist()))} 个不同的“最爱”")

# %% [markdown] lang="en"
# For $d_k = 1$ the limit of 2 is a theorem, not bad luck; wider heads escape it at once. Width is room: a head
# needs enough dimensions to tell its targets apart (our previous-token head uses 6 of its 11 for positions), and
# split $d_{model}$ too finely and each head can express only coarse patterns. Before looking at the cost, compute a
# width yourself:

# %% [markdown] lang="zh"
# $d_k = 1$ 时“最多 2 个”是一条定理，而不是运气不好；维度稍大一点就能摆脱这个限制。维度就是容量：一个头需要足够的维度才能把要找的目标区分开，
# 我们“前一个词”的头在 11 维里用了 6 维来表示位置。$d_{model}$ 切得太碎，每个头就只能表达粗糙的模式。在看开销之前，先自己算一个头的维度：

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
quiz.quiz_widget("q3b")

# %% [markdown] lang="en"
# Now the cost, for the layer of the original Transformer ($d_{model} = 512$) on one sequence of $T = 1024$ tokens in
# float32. The parameter count is taken from a real `init_multihead`, and the size of the weights tensor
# $(B, h, T, T)$ from a real forward pass (a second or so on a laptop):

# %% [markdown] lang="zh"
# 再看开销。以原始 Transformer 的一层（$d_{model} = 512$）为例，输入一个 $T = 1024$ 个 token 的序列，用 float32 计算。
# 参数量来自真实调用 `init_multihead`，权重张量 $(B, h, T, T)$ 的大小来自一次真实的前向计算，在笔记本电脑上大约一秒：

# %%
cost = heads_lab.tradeoff_rows(d_model=512, heads=(1, 2, 4, 8, 16, 64), n_tokens=1024)
print(f"{'h':>3} {'d_k':>5} " + pad("[en]parameters[zh]参数量", 12, "right") + " "
      + pad("[en]weights (B,h,T,T)[zh]权重 (B,h,T,T)", 19, "right") + " " + pad("[en]QKᵀ + AV MACs[zh]QKᵀ、权重·V 乘加", 14, "right"))
for r in cost:
    print(f"{r['h']:>3} {r['d_k']:>5} {r['params']:>12,} {r['weights_bytes'] / 2**20:>15.0f} MiB"
          f"[en] {r['matmul_macs'] / 1e9:>12.2f} G[zh] {r['matmul_macs'] / 1e8:>10.1f} 亿")
print(f"[en]parameters = 4·512² + 4·512 = {4 * 512**2 + 4 * 512:,}   measured bytes = B·h·T²·4: {all(r['weights_bytes'] == r['analytic_bytes'] for r in cost)}[zh]参数量 = 4·512² + 4·512 = {4 * 512**2 + 4 * 512:,}   实测字节数 = B·h·T²·4：{all(r['weights_bytes'] == r['analytic_bytes'] for r in cost)}")

# %%
axes = heads_lab.plot_tradeoff(cost)

# %% [markdown] lang="en"
# Column by column:
# - **$d_k$ halves** every time $h$ doubles: at $h = 64$ each head compares tokens in 8 dimensions.
# - **The parameters do not change**: $4 d_{model}^2 + 4 d_{model}$ = 1,050,624 for every $h$; the heads share the same
#   four matrices. More heads are not a bigger model.
# - **The weights tensor grows linearly with $h$**: $B \cdot h \cdot T^2$ numbers, from 4 MiB at $h = 1$ to 256 MiB at
#   $h = 64$, for one layer and one sequence, each entry also an exponential in the softmax.
# - **The two attention products ($QK^\top$ and weights · $V$) cost the same**: $h \cdot 2 T^2 d_k = 2 T^2 d_{model}$, though many thin products use the
#   hardware less well than a few wide ones.
#
# Now move $h$ and the context length $T$ yourself: as $h$ moves, the parameters and the MACs stay put, $d_k$ shrinks
# and the weights tensor grows linearly; as $T$ moves, the weights tensor and the MACs grow with $T^2$.

# %% [markdown] lang="zh"
# 逐列来读：
# - **$h$ 每翻一倍，$d_k$ 就减半**：$h = 64$ 时，每个头只剩 8 个维度来比较 token。
# - **参数量不变**：无论 $h$ 取多少都是 $4 d_{model}^2 + 4 d_{model}$ = 1,050,624，因为所有头共用同样的四个矩阵。头多并不意味着模型更大。
# - **权重张量随 $h$ 线性增长**：共 $B \cdot h \cdot T^2$ 个数，仅一层、一个序列，就从 $h = 1$ 时的 4 MiB 涨到 $h = 64$ 时的 256 MiB，每个元素在 softmax 里还要算一次指数。
# - **两次注意力矩阵乘法（$QK^\top$ 与权重 · $V$）的计算量不变**：$h \cdot 2 T^2 d_k = 2 T^2 d_{model}$。不过许多细小的矩阵乘法不如少数几个大矩阵乘法那样能充分利用硬件。
#
# 现在自己拖动 $h$ 和上下文长度 $T$：拖动 $h$ 时，参数量和乘加次数两行不动，$d_k$ 随 $h$ 增大而变小，权重张量随 $h$ 线性增长；
# 拖动 $T$ 时，权重张量和乘加次数都随 $T$ 平方增长。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
widgets.tradeoff_widget(h=8, n_tokens=1024, d_model=512)

# %% [markdown] lang="en"
# So more heads buy more, narrower views at a memory and compute price; they are not free and not always better.
# What practice keeps fixed is the **width** of a head, not the number of heads: as models grow, $d_{model}$ grows
# and the number of heads grows with it, so that each head stays 64 or 128 wide. The published configurations:

# %% [markdown] lang="zh"
# 所以头越多，得到的是更多但维度更小的视角，代价是显存和算力；头数既不是免费的，也不是越多越好。
# 实践中保持不变的是每个头的**维度**，而不是头数：模型越大，$d_{model}$ 越大，头数也跟着增加，
# 这样每个头的维度始终是 64 或 128。下面是公开发表的模型配置：

# %%
published.head_table()

# %% [markdown] lang="en"
# Every row keeps $d_k$ at 64 or 128: from 8 heads in the original Transformer to 96 in GPT-3. Two rows have fewer
# **KV heads** than heads: in grouped-query attention several query heads share one key/value head, which shrinks the
# KV cache (notebook 04; its size is measured in 09) by the ratio (8 of 64 for Llama-2-70B). And GPT-4? The tutorial says it is
# *rumoured* to have 128 heads; OpenAI has not published its architecture, so the table holds only published numbers.
#
# ### Self-test (Q3)

# %% [markdown] lang="zh"
# 每一行的 $d_k$ 都是 64 或 128，从原始 Transformer 的 8 个头到 GPT-3 的 96 个头。有两行的 **KV 头数**少于头数：在分组 Query 注意力里，
# 几个 Query 头共用一个 Key/Value 头，KV 缓存（04 节；09 节量它的大小）因此按这个比例缩小，Llama-2-70B 是 64 个头共用 8 个 KV 头。那 GPT-4 呢？
# 原教程说它“据传有 128 个注意力头”。OpenAI 没有公开 GPT-4 的架构，所以表里只列出公开发表的数字。
#
# ### 自测题（Q3）

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
quiz.quiz_widget("q3")


# %% [markdown] lang="en"
# ## Exercise 1 · ★☆☆ · about 10 min: split the heads
#
# Write `my_split_heads(x, n_heads)`: $(\dots, T, D) \to (\dots, H, T, D/H)$, head $i$ holding columns
# $i \cdot D_h, \dots, (i+1) \cdot D_h - 1$, like `ac.split_heads`. The usual first try reshapes straight to the target shape:

# %% [markdown] lang="zh"
# ## 练习 1 · ★☆☆ · 约 10 分钟：拆分多头
#
# 写一个 `my_split_heads(x, n_heads)`：$(\dots, T, D) \to (\dots, H, T, D/H)$，第 $i$ 个头取第 $i \cdot D_h$ 到 $(i+1) \cdot D_h - 1$ 列，
# 与 `ac.split_heads` 相同。第一次尝试往往直接用 `reshape` 变成目标形状：

# %%
def split_heads_first_try(x, n_heads):
    *lead, T, D = x.shape
    return x.reshape(*lead, n_heads, T, D // n_heads)      # [en] the right shape ... [zh] 形状是对的……

checks.check_split_heads(split_heads_first_try)


# %% [markdown] lang="en"
# The shape is right and the numbers are not: the memory of $(T, D)$ is read row by row, so "head 0" gets the first
# rows of tokens, not the first columns. Your turn:

# %% [markdown] lang="zh"
# 形状对了，数却不对：$(T, D)$ 在内存里是一行一行存的，直接 `reshape` 之后，“第 0 个头”拿到的是前几个 token 的行，而不是前几列。轮到你了：

# %%
def my_split_heads(x, n_heads):
    """x (..., T, D) -> (..., H, T, D/H)"""
    raise NotImplementedError("[en]first cut each token's row into its H pieces; then put the axes in the order asked for[zh]先把每个 token 的那一行切成 H 段，再把各轴排成要求的顺序")

checks.check_split_heads(my_split_heads)


# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def my_split_heads(x, n_heads):
#     *lead, T, D = x.shape
#     x = x.reshape(*lead, T, n_heads, D // n_heads)          # (..., T, H, Dh): cut each row into H pieces
#     return x.swapaxes(-2, -3)                               # (..., H, T, Dh)
# ```
# </details>

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def my_split_heads(x, n_heads):
#     *lead, T, D = x.shape
#     x = x.reshape(*lead, T, n_heads, D // n_heads)          # (..., T, H, Dh)：把每一行切成 H 段
#     return x.swapaxes(-2, -3)                               # (..., H, T, Dh)
# ```
# </details>

# %% [markdown] lang="en"
# ## Exercise 2 · ★☆☆ · about 5 min: merge them back
#
# Write `my_merge_heads(x)`: $(\dots, H, T, D_h) \to (\dots, T, H \cdot D_h)$, the concatenation step, so that
# `my_merge_heads(ac.split_heads(x, h))` gives `x` back.

# %% [markdown] lang="zh"
# ## 练习 2 · ★☆☆ · 约 5 分钟：再拼回去
#
# 写一个 `my_merge_heads(x)`：$(\dots, H, T, D_h) \to (\dots, T, H \cdot D_h)$，也就是拼接那一步，
# 要让 `my_merge_heads(ac.split_heads(x, h))` 还原出 `x`。

# %%
def my_merge_heads(x):
    """x (..., H, T, Dh) -> (..., T, H*Dh)"""
    raise NotImplementedError("[en]undo my_split_heads, step by step in reverse[zh]撤销 my_split_heads：把它的步骤倒过来做")

checks.check_merge_heads(my_merge_heads)


# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def my_merge_heads(x):
#     *lead, H, T, Dh = x.shape
#     return x.swapaxes(-2, -3).reshape(*lead, T, H * Dh)     # (..., T, H, Dh) -> (..., T, D)
# ```
# </details>

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def my_merge_heads(x):
#     *lead, H, T, Dh = x.shape
#     return x.swapaxes(-2, -3).reshape(*lead, T, H * Dh)     # (..., T, H, Dh) -> (..., T, D)
# ```
# </details>

# %% [markdown] lang="en"
# ## Stretch exercise 3 · ★★☆ · about 20 min: the whole layer
#
# Put it together without `ac.multi_head_attention`: `my_multi_head_attention(x, params)` returns the self-attention
# output $(\dots, T, D)$ for the weights in `params` (`w_q`, `b_q`, ..., `w_o`, `b_o`, `n_heads`). Use your own split
# and merge, or the library's. The checker compares with the library for 1, 2 and 4 heads and names the usual slips:
# the missing $W^O$ or biases, heads split without the transpose, dividing by $\sqrt{d_{model}}$ instead of $\sqrt{d_k}$.

# %% [markdown] lang="zh"
# ## 挑战练习 3 · ★★☆ · 约 20 分钟：完整的一层
#
# 不用 `ac.multi_head_attention`，把整层拼起来：`my_multi_head_attention(x, params)` 用 `params` 里的权重
# （`w_q`、`b_q`、……、`w_o`、`b_o`、`n_heads`）返回自注意力的输出 $(\dots, T, D)$。拆分与合并可以用你自己写的，也可以用库里的。
# 检查器会在 1、2、4 个头上与库比较，并指出常见的疏漏：漏了 $W^O$ 或偏置、拆分时没有转置、除以了 $\sqrt{d_{model}}$ 而不是 $\sqrt{d_k}$。

# %%
def my_multi_head_attention(x, params):
    """[en] x (..., T, D), params: MultiHeadParams -> output (..., T, D) of self-attention
    [zh] x (..., T, D)，params：MultiHeadParams -> 自注意力的输出 (..., T, D)"""
    raise NotImplementedError("[en]project, split, attend, merge, project[zh]投影、拆分、计算注意力、合并、再投影")

checks.check_multi_head_attention(my_multi_head_attention)

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def my_multi_head_attention(x, params):
#     h = params.n_heads
#     q = ac.split_heads(x @ params.w_q + params.b_q, h)      # (..., H, T, Dh)
#     k = ac.split_heads(x @ params.w_k + params.b_k, h)
#     v = ac.split_heads(x @ params.w_v + params.b_v, h)
#     heads, _ = ac.scaled_dot_product_attention(q, k, v)     # scaled by sqrt(Dh), head by head
#     return ac.merge_heads(heads) @ params.w_o + params.b_o  # (..., T, D)
# ```
# </details>

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def my_multi_head_attention(x, params):
#     h = params.n_heads
#     q = ac.split_heads(x @ params.w_q + params.b_q, h)      # (..., H, T, Dh)
#     k = ac.split_heads(x @ params.w_k + params.b_k, h)
#     v = ac.split_heads(x @ params.w_v + params.b_v, h)
#     heads, _ = ac.scaled_dot_product_attention(q, k, v)     # 每个头分别按 sqrt(Dh) 缩放
#     return ac.merge_heads(heads) @ params.w_o + params.b_o  # (..., T, D)
# ```
# </details>

# %% [markdown] lang="en"
# ## Summary
#
# - A multi-head layer projects with $W^Q, W^K, W^V$, **splits** into $h$ heads of width $d_k = d_{model}/h$, attends in
#   each, **concatenates** and mixes with $W^O$; it returns one weight matrix per head, $(B, H, T_q, T_k)$. It computes the
#   same numbers as `torch.nn.MultiheadAttention` (whose boolean mask means **not allowed**: pass `~mask`).
# - Heads can attend to different relations in one layer, and can be **redundant** (remove head 2 or 3 and the subject
#   is still readable; remove both and it is gone). In trained models the roles are **learned**, and many heads stay mixed.
# - The number of heads is a trade-off (Q3): $d_k$ shrinks as $h$ grows, the parameters stay $4 d_{model}^2 + 4 d_{model}$,
#   the weights tensor grows as $B \cdot h \cdot T^2$; published models keep $d_k$ at 64-128.
#
# **Next:** [07 · Position](07_position.ipynb): why self-attention does not see word order, and how positions are put back in.

# %% [markdown] lang="zh"
# ## 小结
#
# - 一层多头注意力用 $W^Q, W^K, W^V$ 投影，**拆分**成 $h$ 个维度为 $d_k = d_{model}/h$ 的头，各头分别做注意力，再**拼接**起来用 $W^O$ 融合，
#   为每个头返回一个形状为 $(B, H, T_q, T_k)$ 的权重矩阵。它与 `torch.nn.MultiheadAttention` 算出的数相同，后者的布尔掩码表示**不允许**关注，所以要传 `~mask`。
# - 同一层中不同的头可以关注不同的关系，也可能**冗余**：去掉第 2 个或第 3 个头，主语仍读得出来，两个都去掉就没了。训练出来的模型里，分工是**学出来的**，很多头始终是混合的。
# - 头数是一种取舍（Q3）：$h$ 越大 $d_k$ 越小，参数量始终是 $4 d_{model}^2 + 4 d_{model}$，权重张量按 $B \cdot h \cdot T^2$ 增长；公开发表的模型把 $d_k$ 保持在 64–128。
#
# **下一节**：[07 · 位置信息](07_position.ipynb)，讲自注意力为什么看不到词序，以及怎样把位置信息加回去。
