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
# # 05 · Self-attention and cross-attention
#
# **After this notebook you will be able to**
# - say where Q, K and V come from in self-attention (one sequence) and in cross-attention (queries from the
#   decoder, keys and values from the encoder), and why that, not the formula, is what tells them apart;
# - give the shape of every step when the two sequences have different lengths: weights $(T_q, T_k)$, not square;
# - read a cross-attention heatmap of a translation, and show that it aligns words by **meaning**, not by position;
# - watch one word, 银行, get two different vectors in 银行倒闭 and 银行对面;
# - answer the self-test question "do Q, K and V always come from different inputs?".
#
# **What you should know first:** one attention step and its shapes
# ([01 · Query, Key, Value](01_query_key_value.ipynb), [02 · Scaled dot-product attention](02_scaled_dot_product.ipynb)).

# %% [markdown] lang="zh"
# # 05 · 自注意力与交叉注意力
#
# **学完本节，你将能够**
# - 说清 Q、K、V 在自注意力里从哪里来（同一个序列），在交叉注意力里又从哪里来（Query 来自解码器，Key 和 Value
#   来自编码器），并明白区分二者的是来源，而不是公式；
# - 在两个序列长度不同时，写出每一步的形状：权重是 $(T_q, T_k)$，不一定是方阵；
# - 读懂一张翻译任务的交叉注意力热图，并验证它是按**意思**而不是按位置把词对齐的；
# - 亲眼看到同一个词“银行”在“银行倒闭”和“银行对面”里得到两个不同的向量；
# - 回答自测题“Q、K、V 一定来自不同输入吗？”。
#
# **需要的基础**：一步注意力的计算及其形状（见 [01 · Query、Key、Value](01_query_key_value.ipynb)、
# [02 · 缩放点积注意力](02_scaled_dot_product.ipynb)）。

# %%
LANG = "[en]en[zh]zh"  # [en] language of this edition: "en" or "zh" [zh] 本版的语言："en" 或 "zh"
# %matplotlib inline
import inspect

import numpy as np

import attention_core as ac
from attention_core.labs.nb05_self_and_cross_attention import checks, context_lab, cross_lab, widgets
from attention_core.teaching import i18n, quiz
from attention_core.teaching.tables import pad

i18n.set_language(LANG)
rng = np.random.default_rng(0)  # [en] every random number in this notebook comes from this seed [zh] 本 notebook 的所有随机数都来自这个种子
np.set_printoptions(precision=2, suppress=True)  # [en] arrays print with 2 decimals [zh] 数组打印时保留 2 位小数

# %% [markdown] lang="en"
# ## Where Q, K and V come from
#
# Every attention layer does the same three things: compare queries with keys, turn the scores into weights,
# mix the values. What differs between layers is **who asks and who is asked**.
#
# - **Self-attention** is an *inner dialogue*. One sequence provides the queries, the keys and the values:
#   each word of a sentence asks the other words of **the same sentence** what they mean for it. The "self" means
#   exactly that: within one sequence, not between two.
# - **Cross-attention** is *consulting outside material*. A translator writing the Chinese sentence keeps looking
#   back at the English original. The queries come from the sequence being written (the **decoder**), the keys and
#   values from the sequence being read (the **encoder**'s output).
#
# Historically it went the other way round: the first attention in machine translation was between two sequences
# (the target words looking at the source words), and *self*-attention was named for turning it inward.
#
# | | self-attention | cross-attention |
# |---|---|---|
# | Q comes from | a position of the current sequence | the **decoder**'s current position |
# | K, V come from | the other positions of **the same sequence** | the **encoder**'s output |
# | used for | letting every position see the whole sequence | letting the decoder "look up" the input while it generates |
# | where | in the encoder and in the decoder | in an encoder–decoder, in the decoder (elsewhere wherever one sequence reads another, e.g. text reading an image's features) |

# %% [markdown] lang="zh"
# ## Q、K、V 从哪里来
#
# 每一层注意力做的都是同样三件事：拿 Query 和 Key 比较，把分数变成权重，再混合 Value。
# 不同层之间的差别在于：**谁来提问，向谁提问**。
#
# - **自注意力**是“内部对话”。同一个序列同时提供 Query、Key 和 Value：句子里的每个词都去问**同一句话**里的其他词：
#   你们对理解我有多重要？“自”字说的正是这一点：在一个序列内部，而不是在两个序列之间。
# - **交叉注意力**是“和外部资料对话”。译者写中文译文时，会不断回头查看英文原文。Query 来自正在生成的序列（**解码器**），
#   Key 和 Value 来自被查阅的序列（**编码器**的输出）。
#
# 从历史上看，顺序恰好相反：机器翻译里最早的注意力就发生在两个序列之间（译文的词去关注原文的词），
# “**自**”注意力之所以叫这个名字，是因为把它用到了序列内部。
#
# | | 自注意力 | 交叉注意力 |
# |---|---|---|
# | Q 来源 | 当前序列的某个位置 | **解码器**的当前位置 |
# | K、V 来源 | **同一个序列**的其他位置 | **编码器**的输出 |
# | 用途 | 让序列里每个位置看到整个序列的上下文 | 让解码器在生成时“查阅”输入序列 |
# | 出现位置 | 编码器、解码器都有 | 在编码器–解码器模型里位于解码器（其他地方，凡是一个序列读取另一个序列时都会用到，比如文本读取图像特征） |

# %% [markdown] lang="en"
# ## The shapes: queries from one sequence, keys and values from another
#
# Say the encoder has read an English sentence of $T_k = 6$ tokens and the decoder holds $T_q = 5$ Chinese tokens,
# each a vector of width $D = 8$. Cross-attention projects **each side with its own matrix**:
#
# $$Q = X_\text{dec} W^Q \;(T_q, d_k), \qquad K = X_\text{enc} W^K \;(T_k, d_k), \qquad V = X_\text{enc} W^V \;(T_k, d_v)$$
#
# and then computes exactly what notebook 02 computed, $\text{softmax}(QK^\top / \sqrt{d_k})\,V$. The scores $QK^\top$
# compare every decoder query with every encoder key: $(T_q, T_k)$. Nothing forces $T_q = T_k$. Below, with random
# (seeded) states and matrices, one step per line:

# %% [markdown] lang="zh"
# ## 形状：Query 来自一个序列，Key 和 Value 来自另一个
#
# 假设编码器读入了一个有 $T_k = 6$ 个 token 的英文句子，解码器里有 $T_q = 5$ 个中文 token，每个都是宽度 $D = 8$ 的向量。
# 交叉注意力**用各自的矩阵分别投影两边**：
#
# $$Q = X_\text{dec} W^Q \;(T_q, d_k), \qquad K = X_\text{enc} W^K \;(T_k, d_k), \qquad V = X_\text{enc} W^V \;(T_k, d_v)$$
#
# 接下来算的和 02 节完全一样：$\text{softmax}(QK^\top / \sqrt{d_k})\,V$。分数 $QK^\top$ 把每个解码器 Query 与每个编码器 Key
# 两两比较，形状是 $(T_q, T_k)$，没有任何理由要求 $T_q = T_k$。下面用随机（固定种子）的向量和矩阵，一行一步地算一遍：

# %%
T_q, T_k, D, D_k, D_v = 5, 6, 8, 4, 4
x_enc = rng.normal(size=(T_k, D))                 # [en] encoder output: the English sentence, 6 tokens [zh] 编码器输出：英文句子，6 个 token
x_dec = rng.normal(size=(T_q, D))                 # [en] decoder states: the Chinese sentence, 5 tokens [zh] 解码器状态：中文句子，5 个 token
w_q, w_k, w_v = (rng.normal(size=(D, d)) / np.sqrt(D) for d in (D_k, D_k, D_v))

q = x_dec @ w_q                                   # [en] (Tq, Dk) queries from the decoder [zh] (Tq, Dk) 来自解码器的 Query
k = x_enc @ w_k                                   # [en] (Tk, Dk) keys from the encoder [zh] (Tk, Dk) 来自编码器的 Key
v = x_enc @ w_v                                   # [en] (Tk, Dv) values from the encoder [zh] (Tk, Dv) 来自编码器的 Value
out, weights = ac.scaled_dot_product_attention(q, k, v)
for name, array in [("X_dec", x_dec), ("X_enc", x_enc), ("Q = X_dec W_q", q), ("K = X_enc W_k", k),
                    ("V = X_enc W_v", v), ("[en]weights[zh]权重", weights), ("[en]output[zh]输出", out)]:
    print(pad(name, 15), array.shape)
print("[en]each row of the weights sums to[zh]权重每一行之和：", weights.sum(axis=-1))

# %% [markdown] lang="en"
# Each **row** of the weights belongs to one Chinese token and is a distribution over the **six English tokens**;
# the output has one row per Chinese token. The decoder keeps its own length and reads from the encoder.
# Self-attention is the same call with one sequence in all three places; now the weights are square:

# %% [markdown] lang="zh"
# 权重的每一**行**属于一个中文 token，是在**六个英文 token** 上的一个分布；输出也是每个中文 token 一行。
# 解码器保持自己的长度，从编码器那里读取信息。自注意力就是把同一个序列放进三个位置、再调用同一个函数；这时权重是方阵：

# %%
out_self, weights_self = ac.scaled_dot_product_attention(x_enc @ w_q, x_enc @ w_k, x_enc @ w_v)
print(f"[en]self-attention on the English sentence: weights {weights_self.shape}  output {out_self.shape}[zh]英文句子上的自注意力：权重 {weights_self.shape}  输出 {out_self.shape}")

# %% [markdown] lang="en"
# The library's multi-head layer takes the three sources as three arguments, `multi_head_attention(query, key, value, params)`:
# the same array three times for self-attention, decoder states and encoder outputs for cross-attention
# (notebook 06 opens up the heads):

# %% [markdown] lang="zh"
# 库里的多头注意力层把三个来源作为三个参数传入：`multi_head_attention(query, key, value, params)`。
# 自注意力就把同一个数组传三次，交叉注意力则传入解码器状态和编码器输出（06 节会拆开讲多头）：

# %%
params = ac.init_multihead(d_model=D, n_heads=2, seed=0)
out_x, w_x = ac.multi_head_attention(x_dec, x_enc, x_enc, params)      # [en] cross: query != key = value [zh] 交叉注意力：Query != Key = Value
out_s, w_s = ac.multi_head_attention(x_enc, x_enc, x_enc, params)      # [en] self: one sequence, three roles [zh] 自注意力：一个序列，三种角色
print(f"[en]cross: output {out_x.shape}  weights (H, Tq, Tk) {w_x.shape}[zh]交叉注意力：输出 {out_x.shape}  权重 (H, Tq, Tk) {w_x.shape}")
print(f"[en]self : output {out_s.shape}  weights (H, T, T)   {w_s.shape}[zh]自注意力：  输出 {out_s.shape}  权重 (H, T, T)   {w_s.shape}")

# %% [markdown] lang="en"
# Rows do not depend on each other: each decoder token's row needs only its own query and all of the keys. So a
# decoder that writes the translation one token at a time gets, at every step, exactly the rows of the full
# computation. Cross-attention needs no causal mask either: the whole source is known before the first Chinese
# word is written (the decoder's **self**-attention does need one, notebook 04).

# %% [markdown] lang="zh"
# 各行之间互不依赖：每个解码器 token 的那一行只需要它自己的 Query 和全部 Key。所以解码器逐词生成译文时，
# 每一步得到的正是完整计算里的那几行。交叉注意力也不需要因果掩码：在写出第一个中文词之前，整句原文就已经全部已知
# （解码器的**自**注意力才需要，见 04 节）。

# %%
for generated in (1, 3, 5):                       # [en] the decoder has written 1, 3, then 5 tokens [zh] 解码器已写出 1、3、5 个 token
    _, w_partial = ac.scaled_dot_product_attention(q[:generated], k, v)   # (generated, Tk)
    print(f"[en]{generated} token(s) written: weights {w_partial.shape}, same rows as the full computation: {np.allclose(w_partial, weights[:generated])}[zh]已写出 {generated} 个 token：权重 {w_partial.shape}，与完整计算的对应行相同：{np.allclose(w_partial, weights[:generated])}")

# %% [markdown] lang="en"
# ## A translation, aligned by meaning
#
# Random vectors give the shapes but no meaning. Now a real pair: *the cat sat on the mat* → *猫坐在垫子上*.
# As in notebook 01 we build a tiny model whose every number has a name, so we can see **why** each Chinese word
# looks where it looks. Every word, English or Chinese, is a vector over named features: shared **meaning** axes
# (`cat`, `mat`, `sit`, `on`, ...) and a few grammatical ones. In a real model the encoder and the decoder learn
# their own spaces, and training learns $W^Q$, $W^K$ to make them comparable; here we set them by hand.

# %% [markdown] lang="zh"
# ## 一个翻译例子：按意思对齐
#
# 随机向量只能说明形状，说明不了意思。现在换成一对真实的句子：*the cat sat on the mat* → *猫坐在垫子上*。
# 和 01 节一样，我们搭一个每个数字都有名字的小模型，这样就能看清每个中文词**为什么**看向它看的地方。
# 每个词（无论中文还是英文）都是一个向量，每一维是一个有名字的特征：共享的**意思**维度（`cat` 猫、`mat` 垫子、
# `sit` 坐、`on` 在……上面）以及几个语法维度。真实模型里，编码器和解码器各自学出自己的表示空间，
# 训练会学出 $W^Q$、$W^K$ 让两边可以比较；这里我们手工设定它们。

# %%
english, chinese, gold = cross_lab.translation_pair("cat_mat")
cross_lab.feature_table(english)

# %%
cross_lab.feature_table(chinese)

# %% [markdown] lang="en"
# Chinese has no articles, so *the* has no counterpart; 在 is a locative marker ("at": *some* spatial relation)
# and 上 says which one ("on top of"). The two matrices of cross-attention:
# $W^Q$ (applied to the **Chinese** decoder) turns each meaning into "I need this meaning", and 在's `locative`
# into "I need a spatial relation"; $W^K$ (applied to the **English** encoder) turns each meaning into
# "I answer to this meaning", and a `preposition` into "I am a spatial relation".

# %% [markdown] lang="zh"
# 中文没有冠词，所以 *the* 没有对应的词；“在”是表示处所的介词（说明“有某种空间关系”），“上”则说明是哪一种（“在……上面”）。
# 交叉注意力的两个矩阵是：$W^Q$（作用在**中文**解码器上）把每个意思变成“我需要这个意思”，把“在”的 `locative`
# 变成“我需要一种空间关系”；$W^K$（作用在**英文**编码器上）把每个意思变成“我能回应这个意思”，把 `preposition`
# 变成“我是一种空间关系”。

# %%
cross = cross_lab.cross_params()
cross.table("w_q")

# %%
cross.table("w_k")

# %% [markdown] lang="en"
# Now the cross-attention itself: queries from the Chinese sentence, keys and values from the English one.

# %% [markdown] lang="zh"
# 下面就是交叉注意力本身：Query 来自中文句子，Key 和 Value 来自英文句子。

# %%
out_zh, w_zh = cross_lab.attend(chinese, english, cross)          # (Tq, F), (Tq, Tk)
print(f"[en]weights {w_zh.shape} (Chinese queries x English keys)[zh]权重 {w_zh.shape}（中文 Query × 英文 Key）")
for i, word in enumerate(chinese.tokens):
    j = int(w_zh[i].argmax())
    print(pad(word, 4, "right"), f"-> {english.tokens[j]:<4} ({w_zh[i, j]:.2f})  ", f"[en]translates: {gold[word]}[zh]译自：{gold[word]}")
ax = cross_lab.plot_alignment(w_zh, chinese, english)

# %% [markdown] lang="en"
# Each Chinese word puts 0.94 of its attention on the English word with the same meaning. The matrix is $5 \times 6$:
# the two *the* columns stay almost empty (nothing in Chinese asks for an article), and two Chinese words, 在 and 上,
# both read *on*: an alignment need not be one-to-one. Nor does it follow position. Pairing the $i$-th Chinese word
# with the $i$-th English word, the simplest positional rule, gets every word wrong:

# %% [markdown] lang="zh"
# 每个中文词都把 0.94 的注意力放在意思相同的英文词上。这个矩阵是 $5 \times 6$ 的：两列 *the* 几乎是空的
# （中文里没有谁在找冠词）；而“在”和“上”两个中文词都读取 *on*：对齐不一定是一对一的。它也不跟着位置走。
# 最简单的按位置规则，即把第 $i$ 个中文词配给第 $i$ 个英文词，会把每个词都配错：

# %%
by_content = cross_lab.alignment(w_zh, chinese, english)
by_position = dict(zip(chinese.tokens, english.tokens))          # [en] i-th Chinese word <-> i-th English word [zh] 第 i 个中文词 <-> 第 i 个英文词
for word in chinese.tokens:
    print(pad(word, 4, "right") + ":", f"[en]by content {by_content[word]:<4} by position {by_position[word]:<4} translates {gold[word]}[zh]按内容 {by_content[word]:<4} 按位置 {by_position[word]:<4} 译自 {gold[word]}")
print(f"[en]correct by content: {sum(by_content[w] == gold[w] for w in gold)} of 5; by position: {sum(by_position[w] == gold[w] for w in gold)} of 5[zh]按内容对齐答对 {sum(by_content[w] == gold[w] for w in gold)} 个（共 5 个）；按位置：{sum(by_position[w] == gold[w] for w in gold)} 个")

# %% [markdown] lang="en"
# The values decide what each Chinese word takes away. Here $W^V$ hands over a word's meaning, so each row of the
# output says which English meaning the Chinese word has read (on the meaning axes):

# %% [markdown] lang="zh"
# Value 决定每个中文词最终拿走什么。这里的 $W^V$ 交出的是词的意思，所以输出的每一行都显示这个中文词读到了哪个英文意思
# （只列出意思维度）：

# %%
cross_lab.concept_table(out_zh, chinese)

# %% [markdown] lang="en"
# The same matrices, another sentence: in *the dog sat under the table* → *狗坐在桌子下*, 在 now reads *under*.
# It never asked for *on*; it asked for "a spatial relation", and this sentence's relation is *under*.

# %% [markdown] lang="zh"
# 同样的矩阵，换一个句子：在 *the dog sat under the table* → *狗坐在桌子下*里，“在”读取的变成了 *under*。
# 它本来就没有在找 *on*，它找的是“一种空间关系”，而这句话里的空间关系是 *under*。

# %%
for name in cross_lab.PAIRS:
    src, tgt, answers = cross_lab.translation_pair(name)
    _, w_pair = cross_lab.attend(tgt, src, cross)
    found = cross_lab.alignment(w_pair, tgt, src)
    print(" ".join(src.tokens), "->", "".join(tgt.tokens), ":",
          ", ".join(f"{z}->{e}" for z, e in found.items()), " " + "[en]all right:[zh]全部正确：", found == answers)

# %% [markdown] lang="en"
# ### Reorder the source: the alignment follows the words
#
# If the alignment is made by content, moving the English words must move the columns and change nothing else.
# Shuffle the source (a seeded permutation) and compare with the original weights with their columns permuted the
# same way:

# %% [markdown] lang="zh"
# ### 打乱原文：对齐跟着词走
#
# 如果对齐是由内容决定的，那么挪动英文词，就只会挪动热图的列，别的什么都不会变。下面把原文打乱（固定种子的排列），
# 再与按同样方式重排列之后的原权重比较：

# %%
perm = cross_lab.order_permutation(len(english.tokens), "shuffled", seed=0)
shuffled = cross_lab.reorder(english, perm)
_, w_shuffled = cross_lab.attend(chinese, shuffled, cross)
print("[en]shuffled source:[zh]打乱后的原文：", " ".join(shuffled.tokens))
print("[en]alignment:[zh]对齐：", cross_lab.alignment(w_shuffled, chinese, shuffled))
print("[en]same weights, columns moved with the words:[zh]权重相同，只是列跟着词一起移动了：", np.allclose(w_shuffled, w_zh[:, perm]))
ax = cross_lab.plot_alignment(w_shuffled, chinese, shuffled)

# %% [markdown] lang="en"
# 猫 still finds *cat*, now in a different column, with the same 0.94. This toy has no position encoding at all; a real
# Transformer adds one (notebook 07), so reordering would move the numbers a little. But the lookup itself, query
# against key, is made by content: the decoder finds *cat* wherever the encoder put it.

# %% [markdown] lang="zh"
# “猫”仍然找到了 *cat*，只是 *cat* 换到了另一列，权重同样是 0.94。这个小模型完全没有位置编码；真实的 Transformer
# 会加上位置编码（见 07 节），那时打乱词序会让这些数字略有变化。但查找本身，即 Query 与 Key 的比较，是按内容进行的：
# 编码器把 *cat* 放在哪里，解码器就在哪里找到它。

# %% [markdown] lang="en"
# ## Self-attention on the English sentence
#
# Now the inner dialogue: the English sentence alone, Q, K and V all from it. An encoder layer has its own matrices;
# ours ask about partners inside the sentence. The verb asks "who does it?" (an animate noun answers), the
# preposition asks "on what?" (a place answers), a noun asks for its action or its relation, and the article asks
# "which noun is mine?".

# %% [markdown] lang="zh"
# ## 英文句子上的自注意力
#
# 接下来是内部对话：只有英文句子自己，Q、K、V 全都来自它。编码器层有它自己的矩阵；我们手工设定的这组矩阵，
# 让词在句子内部寻找搭档：动词问“谁在做这件事？”（有生命的名词回应），介词问“在什么上面？”（表示地点的名词回应），
# 名词找自己的动作或关系，冠词问“哪个名词是我的？”。

# %%
inner = cross_lab.self_params()
inner.table("w_q")

# %%
inner.table("w_k")

# %%
out_en, w_en = cross_lab.attend(english, english, inner)          # [en] the same sentence in both places [zh] 两处都是同一个句子
print(f"[en]weights {w_en.shape} (square: the sentence looks at itself)[zh]权重 {w_en.shape}（方阵：句子在看它自己）")
for i, word in enumerate(english.tokens):                          # [en] each row: the keys that take > 0.3 [zh] 每一行：权重 > 0.3 的 Key
    row = w_en[i]
    print(f"{word:>4} -> " + ", ".join(f"{english.tokens[j]} ({row[j]:.2f})" for j in np.flatnonzero(row > 0.3)))
ax = cross_lab.plot_alignment(w_en, english, english, mode="self")

# %% [markdown] lang="en"
# The weights are $6 \times 6$: rows and columns are the same sentence. *sat* finds its subject *cat*, *on* finds
# *mat*, and each noun finds its verb or its preposition, each with 0.98. The two *the* rows are identical and split
# 0.50/0.50 between *cat* and *mat*: with content alone, an article cannot tell
# which noun follows it. That is the cue for position, in notebook 07.

# %% [markdown] lang="zh"
# 权重是 $6 \times 6$ 的：行和列是同一个句子。*sat* 找到了主语 *cat*，*on* 找到了 *mat*，每个名词都找到了自己的动词或介词，
# 权重都是 0.98。两行 *the* 完全相同，在 *cat* 和 *mat* 之间 0.50/0.50 平分：
# 只看内容，冠词分不清紧跟在自己后面的是哪个名词。这正是 07 节要引入位置信息的原因。

# %% [markdown] lang="en"
# ### One word, two contexts: 银行倒闭 and 银行对面
#
# The tutorial “Transformer 自注意力机制：直觉理解，不需要数学” gives the reason self-attention exists in one line:
# 银行 (*bank*) should get different representations in 银行倒闭 (*the bank collapsed*) and 银行对岸 (*across from the
# bank*), and self-attention does it by letting 银行 attend to the words around it. (Editor's note: 对岸 is the far
# side of a river or sea, so 银行对岸 is not something a Chinese speaker says; we use 银行对面, *across from the bank*,
# which makes the same point.) Here it is, computed with the same
# recipe of hand-set features. A bank is both an **organisation** (it can go bankrupt) and a **place** (you can stand
# across from it), so the embedding of 银行 carries half of each, the same vector in both sentences. Its query asks
# "what does my context say about me?"; 倒闭 (*to go bankrupt*) answers with the organisation side, 对面 (*across
# from*) with the place side; the new vector is the embedding plus what attention brings (a residual connection).

# %% [markdown] lang="zh"
# ### 同一个词，两种上下文：银行倒闭与银行对面
#
# 《Transformer 自注意力机制：直觉理解，不需要数学》用一句话说明了自注意力为什么存在：“银行”在“银行倒闭”和“银行对岸”中
# 应该得到不同的表示，自注意力让“银行”关注周围的词来做到这一点。（编者注：“对岸”指江河湖海的另一边，“银行对岸”不是自然的中文；
# 这里改用“银行对面”，要说明的道理不变。）下面用同样的手工特征把它算出来。银行既是一个**机构**
# （它会倒闭），也是一个**地点**（你可以站在它的对面），所以“银行”的嵌入向量两样各占一半，在两句话里是同一个向量。
# 它的 Query 问的是“上下文怎么说我？”；“倒闭”用“机构”这一面回应，“对面”用“地点”这一面回应；
# 新的向量等于嵌入向量加上注意力带来的信息（残差连接）。

# %%
bank = context_lab.bank_vectors()
for name in ("collapse", "opposite"):
    tokens, row = bank[name]["tokens"], bank[name]["weights"]
    print("".join(tokens), ": 银行 ->", {tok: round(float(w), 2) for tok, w in zip(tokens, row) if w > 0.01})
context_lab.bank_table()

# %% [markdown] lang="en"
# The embedding is the same in both sentences (cosine 1). After one attention step, 银行 leans to the organisation side
# in 银行倒闭了 (1.5 against 0.5) and to the place side in 银行对面的公园, and the two vectors are further apart (cosine
# 0.78) than either is from the embedding (0.89): one word, two contextual representations. The cosines are taken
# over all six features, which is why the table shows all six: the two sides alone would give 0.60, but both vectors
# also keep *noun* and *ambiguous* at 1 (for the two sentences, $3.5 / 4.5 = 0.78$). Notebook 12 measures the same
# effect in a trained model, layer by layer, with words whose two senses both exist in its language (*bank*, 杜鹃).

# %% [markdown] lang="zh"
# 嵌入向量在两句话里完全相同（余弦为 1）。经过一步注意力之后，“银行”在“银行倒闭了”里偏向“机构”一面（1.5 比 0.5），
# 在“银行对面的公园”里偏向“地点”一面；这两个向量彼此的距离（余弦 0.78），比它们各自与嵌入向量的距离（0.89）更远：
# 同一个词，两种带上下文的表示。余弦是在全部六个特征上算的，所以表里六个特征都列了出来：只看“机构”和“地点”两列会得到 0.60，
# 但两个向量的“名词”和“多义”也都是 1（两句之间：$3.5 / 4.5 = 0.78$）。12 节会在一个训练好的模型里逐层测量同样的效应，用的是在各自语言里确实有两种意思的词（*bank*、杜鹃）。

# %% [markdown] lang="en"
# ## Try it: pick a word
#
# Choose a sentence, switch between cross- and self-attention, reorder the English words and pick the query word;
# the heatmap shows the whole layer, the bars that word's row. Things to try:
# - cross, 在 in both sentences: the same query finds *on*, then *under*;
# - cross, source reversed: every Chinese row keeps its weight, its column moves;
# - self, *the*: a tie that no reordering can break;
# - switch cross ↔ self and watch the shape change from $5 \times 6$ to $6 \times 6$.

# %% [markdown] lang="zh"
# ## 动手试试：选一个词
#
# 选一个句子，在交叉注意力和自注意力之间切换，调整英文词序，再选一个 Query 词；热图显示整层的权重，条形图显示这个词的那一行。可以试试：
# - 交叉注意力下，看两个句子里的“在”：同一个 Query，先找到 *on*，再找到 *under*；
# - 交叉注意力下，把原文倒序：每一行中文的权重不变，只是所在的列移动了；
# - 自注意力下，看 *the*：无论怎么调整词序，它都在两个名词之间打平；
# - 在交叉 ↔ 自注意力之间切换，看形状从 $5 \times 6$ 变成 $6 \times 6$。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
widgets.cross_attention_widget("cat_mat", mode="cross", query=2)

# %% [markdown] lang="en"
# ## Same computation, different sources
#
# A common misreading: "Q, K and V are three different inputs". They are three **projections**, and how many
# inputs they come from depends on the layer's role. The whole of this notebook's attention is one function;
# self- and cross-attention differ only in what is passed to it:

# %% [markdown] lang="zh"
# ## 同一种计算，不同的来源
#
# 一个常见的误解是：“Q、K、V 是三个不同的输入”。它们是三个**投影**，至于来自几个输入，要看这一层注意力扮演什么角色。
# 本节所有的注意力都是同一个函数；自注意力和交叉注意力的区别，只在于传给它的参数：

# %%
print(inspect.getsource(cross_lab.attend))

# %% [markdown] lang="en"
# **One input, three different vectors.** In self-attention all three come from the same sentence, yet they are
# not the same vector: three matrices give every word three roles. The word *sat* asks for an `agent`, but answers
# to `action`; what it hands over is its meaning `sit`:

# %% [markdown] lang="zh"
# **一个输入，三个不同的向量**。在自注意力里，三者都来自同一个句子，但它们并不是同一个向量：三个矩阵给每个词三种角色。
# *sat* 这个词提问时找的是 `agent`（施事者），被匹配时回应的却是 `action`（动作）；它交出去的是自己的意思 `sit`：

# %%
x_sat = english.x[english.tokens.index("sat")]                      # [en] (F,) one row of the one input [zh] (F,) 同一个输入中的一行
named = lambda vec, names: {n: round(float(a), 1) for n, a in zip(names, vec) if a}
print("[en]query  x W_q:[zh]Query  x W_q:", named(x_sat @ inner.w_q, cross_lab.SELF_AXES))
print("[en]key    x W_k:[zh]Key    x W_k:", named(x_sat @ inner.w_k, cross_lab.SELF_AXES))
print("[en]value  x W_v:[zh]Value  x W_v:", named(x_sat @ inner.w_v, cross_lab.FEATURES))

# %% [markdown] lang="en"
# **Two sources, not three.** In cross-attention Q comes from the decoder, but K and V both come from the encoder
# output: each key is the label of the value at the same position, so they must come in pairs. The library refuses
# keys and values of different lengths:

# %% [markdown] lang="zh"
# **两个来源，不是三个**。在交叉注意力里，Q 来自解码器，而 K 和 V 都来自编码器的输出：每个 Key 都是同一位置上那个 Value
# 的标签，所以二者必须一一成对。如果 Key 和 Value 的长度不同，库会直接拒绝：

# %%
try:
    ac.multi_head_attention(x_dec, x_enc, x_dec, params)             # [en] keys from the encoder, values from the decoder [zh] Key 来自编码器，Value 来自解码器
except ValueError as err:
    print("ValueError:", err)
    print(f"[en]  in plain words: {len(x_enc)} keys but {len(x_dec)} values; each key labels one value, so the two counts must match[zh]  意思是：Key 有 {len(x_enc)} 个，Value 却有 {len(x_dec)} 个；每个 Key 标记一个 Value，两者必须一样多")

# %% [markdown] lang="en"
# So, do Q, K and V always come from different inputs? **Not necessarily.** In self-attention all three come from
# the same sequence; in cross-attention Q comes from the decoder and K and V from the encoder. Where they come from
# is set by the role of the attention layer; the computation $\text{softmax}(QK^\top / \sqrt{d_k})V$ is the same.
#
# ### Self-test (Q1)

# %% [markdown] lang="zh"
# 那么，Q、K、V 一定来自不同输入吗？**不一定**。自注意力中三者都来自同一个序列；交叉注意力中 Q 来自解码器，
# K 和 V 来自编码器。它们从哪里来，由这一层注意力的角色决定；计算 $\text{softmax}(QK^\top / \sqrt{d_k})V$ 完全相同。
#
# ### 自测题（Q1）

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
quiz.quiz_widget("q1")


# %% [markdown] lang="en"
# ## Exercise 1: self-attention from one sequence
#
# Write self-attention with projections: `my_self_attention(x, w_q, w_k, w_v)` takes token vectors `x` $(\dots, T, D)$
# and three matrices, $W^Q, W^K$ of shape $(D, d_k)$ and $W^V$ of shape $(D, d_v)$, and returns `(output, weights)`
# like `ac.scaled_dot_product_attention`. All three of Q, K, V come from the same `x`.

# %% [markdown] lang="zh"
# ## 练习 1：来自同一个序列的自注意力
#
# 写一个带投影的自注意力：`my_self_attention(x, w_q, w_k, w_v)` 接收 token 向量 `x` $(\dots, T, D)$ 和三个矩阵——
# 形状为 $(D, d_k)$ 的 $W^Q$、$W^K$ 和形状为 $(D, d_v)$ 的 $W^V$，像 `ac.scaled_dot_product_attention` 一样返回
# `(output, weights)`。Q、K、V 三者都来自同一个 `x`。

# %%
def my_self_attention(x, w_q, w_k, w_v):
    """[en] x (..., T, D) -> (output (..., T, Dv), weights (..., T, T)); Q, K, V all projected from x
    [zh] x (..., T, D) -> (output (..., T, Dv), weights (..., T, T))；Q、K、V 都由 x 投影得到"""
    raise NotImplementedError("[en]project x three ways, then attend[zh]把 x 做三种投影，再计算注意力")

checks.check_self_attention(my_self_attention)


# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def my_self_attention(x, w_q, w_k, w_v):
#     q, k, v = x @ w_q, x @ w_k, x @ w_v           # three roles from the same x
#     return ac.scaled_dot_product_attention(q, k, v)
# ```
# </details>

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def my_self_attention(x, w_q, w_k, w_v):
#     q, k, v = x @ w_q, x @ w_k, x @ w_v           # 三种角色来自同一个 x
#     return ac.scaled_dot_product_attention(q, k, v)
# ```
# </details>

# %% [markdown] lang="en"
# ## Exercise 2: cross-attention from two sequences
#
# Now change only where the inputs come from: `my_cross_attention(x_dec, x_enc, w_q, w_k, w_v)` takes the decoder's
# states $(T_q, D)$ and the encoder's $(T_k, D)$, with $T_q \ne T_k$, and returns `(output, weights)` with weights of
# shape $(T_q, T_k)$.

# %% [markdown] lang="zh"
# ## 练习 2：来自两个序列的交叉注意力
#
# 这次只改输入从哪里来：`my_cross_attention(x_dec, x_enc, w_q, w_k, w_v)` 接收解码器的状态 $(T_q, D)$ 和编码器的状态
# $(T_k, D)$，且 $T_q \ne T_k$；返回 `(output, weights)`，其中权重的形状是 $(T_q, T_k)$。

# %%
def my_cross_attention(x_dec, x_enc, w_q, w_k, w_v):
    """[en] x_dec (Tq, D), x_enc (Tk, D) -> (output (Tq, Dv), weights (Tq, Tk))
    [zh] x_dec (Tq, D)，x_enc (Tk, D) -> (output (Tq, Dv)，weights (Tq, Tk))"""
    raise NotImplementedError("[en]which sequence gives the queries, which the keys and values?[zh]哪个序列提供 Query，哪个提供 Key 和 Value？")

checks.check_cross_attention(my_cross_attention)

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def my_cross_attention(x_dec, x_enc, w_q, w_k, w_v):
#     q = x_dec @ w_q                                # the decoder asks ...
#     k, v = x_enc @ w_k, x_enc @ w_v                # ... the encoder is looked up
#     return ac.scaled_dot_product_attention(q, k, v)   # no causal mask: the source is all known
# ```
# Compare with Exercise 1: the same last line, two different sources.
# </details>

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def my_cross_attention(x_dec, x_enc, w_q, w_k, w_v):
#     q = x_dec @ w_q                                # 解码器提问……
#     k, v = x_enc @ w_k, x_enc @ w_v                # ……在编码器里查找
#     return ac.scaled_dot_product_attention(q, k, v)   # 不加因果掩码：原文全部已知
# ```
# 和练习 1 比较：最后一行完全相同，只是来源不同。
# </details>

# %% [markdown] lang="en"
# ## Summary
#
# - Where Q, K and V come from decides the kind of attention. **Self**: all three from one sequence (an inner
#   dialogue). **Cross**: Q from the decoder, K and V from the encoder (consulting outside material).
# - The computation is the same; only the arguments differ. With $T_q = 5$ decoder tokens and $T_k = 6$ encoder tokens
#   the weights are $(5, 6)$, a distribution over the encoder for every decoder token; self-attention's are square.
# - In the translation *the cat sat on the mat* → *猫坐在垫子上*, every Chinese word puts 0.94 of its attention on
#   the English word with the same meaning (5 of 5 right; pairing by position: 0 of 5); 在 and 上 both read *on*,
#   the articles are left alone. Shuffle the source, and the columns move with the words.
# - Self-attention on the English sentence: *sat* → *cat*, *on* → *mat* (0.98 each); *the* splits 0.50/0.50,
#   because content alone cannot say which noun is its own.
# - Q1: Q, K and V need not come from different inputs; even from one input they are three different projections,
#   and in cross-attention K and V come in pairs from the same encoder output.
#
# **Next:** [06 · Multi-head attention](06_multi_head_attention.ipynb): several attention layers side by side, each looking for something else.

# %% [markdown] lang="zh"
# ## 小结
#
# - Q、K、V 从哪里来，决定了注意力的种类。**自注意力**：三者都来自同一个序列（内部对话）。
#   **交叉注意力**：Q 来自解码器，K 和 V 来自编码器（和外部资料对话）。
# - 计算完全一样，只是传入的参数不同。解码器有 $T_q = 5$ 个 token、编码器有 $T_k = 6$ 个 token 时，权重是 $(5, 6)$：
#   每个解码器 token 都得到编码器上的一个分布；自注意力的权重则是方阵。
# - 在 *the cat sat on the mat* → *猫坐在垫子上*这个翻译里，每个中文词都把 0.94 的注意力放在意思相同的英文词上
#   （5 个全对；按位置配对则 0 个对）；“在”和“上”都读取 *on*，冠词无人问津。打乱原文，列就跟着词一起移动。
# - 英文句子上的自注意力：*sat* → *cat*，*on* → *mat*（权重都是 0.98）；*the* 在两个名词之间 0.50/0.50 平分，
#   因为只看内容，分不清哪个名词是自己的。
# - Q1：Q、K、V 不一定来自不同的输入；即使来自同一个输入，它们也是三个不同的投影；而在交叉注意力里，
#   K 和 V 成对地来自同一个编码器输出。
#
# **下一节**：[06 · 多头注意力](06_multi_head_attention.ipynb)——几组注意力并排工作，各自寻找不同的关系。
