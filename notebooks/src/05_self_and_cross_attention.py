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
# - say where Q, K and V come from in self-attention and in cross-attention, and why that, not the formula, tells
#   them apart;
# - give every shape when the two sequences differ in length;
# - show, in a hand-built translation model, that cross-attention looks words up by **meaning**, not position;
# - watch one word, 银行 (*bank*), get two different vectors in two sentences.
#
# **What you should know first:** one attention step and its shapes ([01](01_query_key_value.ipynb),
# [02](02_scaled_dot_product.ipynb)), the padding mask ([04](04_masking.ipynb)). *About 55 minutes.*

# %% [markdown] lang="zh"
# # 05 · 自注意力与交叉注意力
#
# **学完本节，你将能够**
# - 说出自注意力和交叉注意力中 Q、K、V 各从哪里来，以及为什么区分两者的是来源而不是公式；
# - 说出两个序列长度不同时每一步的形状；
# - 在一个手工搭建的翻译模型里说明：交叉注意力是按**意思**而不是按位置查找词的；
# - 亲眼看到同一个词“银行”在两句话里得到两个不同的向量。
#
# **需要的基础**：一步注意力及其形状，见 [01 节](01_query_key_value.ipynb)和 [02 节](02_scaled_dot_product.ipynb)；
# 填充掩码，见 [04 节](04_masking.ipynb)。*约 55 分钟。*

# %%
LANG = "[en]en[zh]zh"  # [en] language of this edition: "en" or "zh" [zh] 本版的语言："en" 或 "zh"
# %matplotlib inline
import numpy as np

import attention_core as ac
from attention_core.labs.nb05_self_and_cross_attention import checks, context_lab, cross_lab, widgets
from attention_core.teaching import formula, i18n, quiz
from attention_core.teaching.tables import pad

i18n.set_language(LANG)
rng = np.random.default_rng(0)  # [en] every random number in this notebook comes from this seed [zh] 本节的所有随机数都来自这个种子
np.set_printoptions(precision=2, suppress=True)  # [en] arrays print with 2 decimals [zh] 数组打印时保留 2 位小数

# %% [markdown] lang="en"
# ## Where Q, K and V come from
#
# Every attention layer compares queries with keys, turns the scores into weights and mixes the values. What differs
# is **who asks and who is asked**.
#
# - **Self-attention** is an *inner dialogue*: one sequence provides queries, keys and values, and each word asks the
#   other words of **the same sentence** what they mean for it.
# - **Cross-attention** is *consulting outside material*, like a translator looking back at the original: the queries
#   come from the sequence being written (the **decoder**), keys and values from the one being read (the **encoder**).
#
# | | self-attention | cross-attention |
# |---|---|---|
# | Q comes from | a position of the current sequence | the **decoder**'s current position |
# | K, V come from | **the same sequence** | the **encoder**'s output |
# | used for | every position sees the sequence (in a decoder: only itself and the tokens before it, notebook 04) | the decoder looks up the input while it generates |
# | where | encoder and decoder | an encoder–decoder's decoder; wherever one sequence reads another |

# %% [markdown] lang="zh"
# ## Q、K、V 从哪里来
#
# 每一层注意力都是拿 Query 和 Key 比较，把分数变成权重，再混合 Value。各层的差别在于**谁来提问，向谁提问**。
#
# - **自注意力**是“内部对话”。同一个序列同时提供 Query、Key 和 Value，每个词都去问**同一句话**里的其他词对自己有多重要。
# - **交叉注意力**是“查阅外部资料”，就像译者不断回头看原文。Query 来自正在生成的序列（**解码器**），Key 和 Value 来自被查阅的序列（**编码器**的输出）。
#
# | | 自注意力 | 交叉注意力 |
# |---|---|---|
# | Q 来源 | 当前序列的某个位置 | **解码器**的当前位置 |
# | K、V 来源 | **同一个序列** | **编码器**的输出 |
# | 用途 | 每个位置都看到这个序列（在解码器里只看到自己和前面的 token，见 04 节） | 解码器在生成时查阅输入 |
# | 出现位置 | 编码器和解码器 | 编码器－解码器模型的解码器；凡是一个序列读取另一个序列的地方 |

# %% [markdown] lang="en"
# ## The shapes: queries from one sequence, keys and values from another
#
# Say the encoder has read $T_k = 6$ English tokens and the decoder holds $T_q = 5$ Chinese tokens, each of width
# $D = 8$. Cross-attention projects **each side with its own matrix**,
#
# $$Q = X_\text{dec} W^Q \;(T_q, d_k), \qquad K = X_\text{enc} W^K \;(T_k, d_k), \qquad V = X_\text{enc} W^V \;(T_k, d_v)$$
#
# then computes $\text{softmax}(QK^\top / \sqrt{d_k})\,V$ as in notebook 02. The scores are $(T_q, T_k)$; nothing forces
# $T_q = T_k$. With random (seeded) states and matrices:

# %% [markdown] lang="zh"
# ## 形状：Query 来自一个序列，Key 和 Value 来自另一个
#
# 设编码器读了 $T_k = 6$ 个英文 token，解码器有 $T_q = 5$ 个中文 token，维度都是 $D = 8$。交叉注意力**两边各用自己的矩阵**做投影：
#
# $$Q = X_\text{dec} W^Q \;(T_q, d_k), \qquad K = X_\text{enc} W^K \;(T_k, d_k), \qquad V = X_\text{enc} W^V \;(T_k, d_v)$$
#
# 然后和 02 节一样计算 $\text{softmax}(QK^\top / \sqrt{d_k})\,V$。分数的形状是 $(T_q, T_k)$，并不要求 $T_q = T_k$。
# 下面用随机（固定种子）的状态和矩阵走一遍：

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
# Each **row** of the weights belongs to one Chinese token and is a distribution over the six English tokens; the
# decoder keeps its own length. Self-attention is the same call with one sequence in all three places, and square weights:

# %% [markdown] lang="zh"
# 权重的每一**行**属于一个中文 token，是它在六个英文 token 上的分布；解码器保持自己的长度。自注意力是同一个调用，三处都用同一个序列，权重是方阵：

# %%
out_self, weights_self = ac.scaled_dot_product_attention(x_enc @ w_q, x_enc @ w_k, x_enc @ w_v)
print(f"[en]self-attention on the English sentence: weights {weights_self.shape}  output {out_self.shape}[zh]英文句子上的自注意力：权重 {weights_self.shape}  输出 {out_self.shape}")

# %% [markdown] lang="en"
# The library's multi-head layer takes the three sources as arguments, `multi_head_attention(query, key, value, params)`
# (notebook 06 opens up the heads):

# %% [markdown] lang="zh"
# 库里的多头注意力层 `multi_head_attention(query, key, value, params)` 把三个来源作为三个参数（06 节再细看多个头）：

# %%
params = ac.init_multihead(d_model=D, n_heads=2, seed=0)
out_x, w_x = ac.multi_head_attention(x_dec, x_enc, x_enc, params)      # [en] cross: query != key = value [zh] 交叉注意力：Query != Key = Value
out_s, w_s = ac.multi_head_attention(x_enc, x_enc, x_enc, params)      # [en] self: one sequence, three roles [zh] 自注意力：一个序列，三种角色
print(f"[en]cross: output {out_x.shape}  weights (H, Tq, Tk) {w_x.shape}[zh]交叉注意力：输出 {out_x.shape}  权重 (H, Tq, Tk) {w_x.shape}")
print(f"[en]self : output {out_s.shape}  weights (H, T, T)   {w_s.shape}[zh]自注意力：  输出 {out_s.shape}  权重 (H, T, T)   {w_s.shape}")

# %% [markdown] lang="en"
# Each decoder row needs only its own query and all the keys, so a decoder that writes one token at a time gets
# exactly the rows of the full computation. Cross-attention needs no causal mask: the whole source is known before the
# first word is written (the decoder's **self**-attention needs one, notebook 04).

# %% [markdown] lang="zh"
# 解码器的每一行只需要自己的 Query 和全部 Key，所以一次写一个 token 的解码器，每一步得到的恰好是完整计算中对应的那一行。
# 交叉注意力不需要因果掩码，因为写第一个词之前整句原文就已经知道了（解码器的**自**注意力则需要，见 04 节）。

# %%
for generated in (1, 3, 5):                       # [en] the decoder has written 1, 3, then 5 tokens [zh] 解码器已写出 1、3、5 个 token
    _, w_partial = ac.scaled_dot_product_attention(q[:generated], k, v)   # (generated, Tk)
    print(f"[en]{generated} token(s) written: weights {w_partial.shape}, same rows as the full computation: {np.allclose(w_partial, weights[:generated])}[zh]已写出 {generated} 个 token：权重 {w_partial.shape}，与完整计算的对应行相同：{np.allclose(w_partial, weights[:generated])}")

# %% [markdown] lang="en"
# ## A translation, aligned by meaning
#
# Now a real pair: *the cat sat on the mat* → *猫坐在垫子上*. As in notebook 01, a tiny model whose every number has a
# name shows **why** each Chinese word looks where it looks. Every word is a vector over named features: shared
# **meaning** axes (`cat`, `mat`, `sit`, `on`, ...) and a few grammatical ones. A real model learns $W^Q$, $W^K$ that
# make the encoder's and decoder's spaces comparable; here we set them by hand, so how strongly a word finds its
# translation is built in. What the cells below test is what decides the lookup: content, not position.

# %% [markdown] lang="zh"
# ## 一个翻译例子：按意思对齐
#
# 现在换成一对真实的句子：*the cat sat on the mat* → *猫坐在垫子上*。和 01 节一样，我们用一个参数全部可解读的小模型，
# 看清每个中文词**为什么**看向它看的地方。每个词都是一个向量，各维是有名字的特征，包括共享的**意思**维度（猫、垫子、坐、在……上面等）和几个语法维度。
# 真实模型要从数据中学出 $W^Q$、$W^K$，让编码器和解码器的表示可以相互比较；这里由我们手工设定，所以一个词找到译文时权重有多大，是设定出来的。
# 下面的单元格要检验的是：决定查找结果的是内容，而不是位置。

# %%
english, chinese, gold = cross_lab.translation_pair("cat_mat")
cross_lab.feature_table(english)

# %%
cross_lab.feature_table(chinese)

# %% [markdown] lang="en"
# Chinese has no articles, so *the* has no counterpart; 在 marks a location ("at": *some* spatial relation) and 上 says
# which one ("on top of"). $W^Q$ (on the **Chinese** decoder) turns each meaning into "I need this meaning" and 在 into
# "I need a spatial relation"; $W^K$ (on the **English** encoder) turns each meaning into "I have this meaning"
# and a preposition into "I am a spatial relation".

# %% [markdown] lang="zh"
# 中文没有冠词，所以 *the* 没有对应的词；“在”表示处所（有某种空间关系），“上”说明是哪一种（在……上面）。$W^Q$ 作用在**中文**解码器上，
# 把每个意思变成“我需要这个意思”，把“在”变成“我需要一种空间关系”；$W^K$ 作用在**英文**编码器上，把每个意思变成“我有这个意思”，
# 把介词变成“我是一种空间关系”。

# %%
cross = cross_lab.cross_params()
cross.table("w_q")

# %%
cross.table("w_k")

# %% [markdown] lang="en"
# The cross-attention itself: queries from the Chinese sentence, keys and values from the English one.

# %% [markdown] lang="zh"
# 下面是交叉注意力本身：Query 来自中文句子，Key 和 Value 来自英文句子。

# %%
out_zh, w_zh = cross_lab.attend(chinese, english, cross)          # (Tq, F), (Tq, Tk)
print(f"[en]weights {w_zh.shape} (Chinese queries x English keys)[zh]权重 {w_zh.shape}（中文 Query × 英文 Key）")
for i, word in enumerate(chinese.tokens):
    j = int(w_zh[i].argmax())
    print(pad(word, 4, "right"), f"-> {english.tokens[j]:<4} ({w_zh[i, j]:.2f})  ", f"[en]translates: {gold[word]}[zh]译自：{gold[word]}")
ax = cross_lab.plot_alignment(w_zh, chinese, english)

# %% [markdown] lang="en"
# Each Chinese word puts 0.94 of its attention on the English word with the same meaning. The two *the* columns stay
# almost empty, and 在 and 上 both read *on*: an alignment need not be one-to-one. Nor does it follow position: pairing
# the $i$-th Chinese word with the $i$-th English word gets every word wrong:

# %% [markdown] lang="zh"
# 每个中文词都把 0.94 的注意力放在意思相同的英文词上。两列 *the* 几乎是空的，“在”和“上”都读 *on*，可见对齐不必一一对应。
# 对齐也不看位置：要是按位置把第 $i$ 个中文词配给第 $i$ 个英文词，五个词全部配错：

# %%
by_content = cross_lab.alignment(w_zh, chinese, english)
by_position = dict(zip(chinese.tokens, english.tokens))          # [en] i-th Chinese word <-> i-th English word [zh] 第 i 个中文词 <-> 第 i 个英文词
for word in chinese.tokens:
    print(pad(word, 4, "right") + ":", f"[en]by content {by_content[word]:<4} by position {by_position[word]:<4} translates {gold[word]}[zh]按内容 {by_content[word]:<4} 按位置 {by_position[word]:<4} 译自 {gold[word]}")
print(f"[en]correct by content: {sum(by_content[w] == gold[w] for w in gold)} of 5; by position: {sum(by_position[w] == gold[w] for w in gold)} of 5[zh]按内容对齐答对 {sum(by_content[w] == gold[w] for w in gold)} 个（共 5 个）；按位置：{sum(by_position[w] == gold[w] for w in gold)} 个")

# %% [markdown] lang="en"
# The values decide what each Chinese word takes away. Here $W^V$ hands over a word's meaning, so each output row says
# which English meaning the Chinese word has read:

# %% [markdown] lang="zh"
# Value 决定每个中文词带走什么。这里 $W^V$ 取出的是词的意思，所以输出的每一行说明这个中文词读到了哪个英文意思：

# %%
cross_lab.concept_table(out_zh, chinese)

# %% [markdown] lang="en"
# The same matrices, another sentence: in *the dog sat under the table* → *狗坐在桌子下*, 在 reads *under*. It asked
# for "a spatial relation", and this sentence's relation is *under*.

# %% [markdown] lang="zh"
# 同样的矩阵换一个句子。在 *the dog sat under the table* → *狗坐在桌子下*这一对里，“在”读的是 *under*，因为它要找的是“一种空间关系”，这句话里的关系就是 *under*。

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
# If the alignment is made by content, shuffling the English words must move the columns and change nothing else:

# %% [markdown] lang="zh"
# ### 打乱原文词序，对齐跟着词走
#
# 如果对齐是按内容进行的，打乱英文词序就只会让列跟着移动，别的都不变：

# %%
perm = cross_lab.order_permutation(len(english.tokens), "shuffled", seed=0)
shuffled = cross_lab.reorder(english, perm)
_, w_shuffled = cross_lab.attend(chinese, shuffled, cross)
print("[en]shuffled source:[zh]打乱后的原文：", " ".join(shuffled.tokens))
print("[en]alignment:[zh]对齐：", cross_lab.alignment(w_shuffled, chinese, shuffled))
print("[en]same weights, columns moved with the words:[zh]权重相同，只是列跟着词一起移动了：", np.allclose(w_shuffled, w_zh[:, perm]))
ax = cross_lab.plot_alignment(w_shuffled, chinese, shuffled)

# %% [markdown] lang="en"
# 猫 still finds *cat*, in another column, with the same 0.94. This toy has no position encoding; a real Transformer
# adds one (notebook 07), so there reordering would move the numbers, but the lookup itself is made by content.

# %% [markdown] lang="zh"
# “猫”仍然找到了 *cat*，只是换到了另一列，权重同样是 0.94。这个小模型没有位置编码；真实的 Transformer 会加上位置编码（见 07 节），
# 在那里打乱词序会改变这些数字，但查找本身是按内容进行的。

# %% [markdown] lang="en"
# ## Self-attention on the English sentence
#
# Now the inner dialogue: Q, K and V all from the English sentence, with matrices that look for partners inside it.
# The verb asks "who does it?" (an animate noun answers), the preposition "on what?" (a place answers), a noun asks
# for its action or relation, and the article "which noun is mine?".

# %% [markdown] lang="zh"
# ## 英文句子上的自注意力
#
# 接下来是内部对话：Q、K、V 全都来自英文句子，矩阵让词在句子内部寻找搭档。动词问“谁在做”（有生命的名词回应），
# 介词问“在什么上面”（表示地点的名词回应），名词找自己的动作或关系，冠词问“哪个名词是我的”。

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
# The weights are $6 \times 6$. *sat* finds its subject *cat*, *on* finds *mat*, and each noun finds its verb or
# preposition, each with 0.98. The two *the* rows are identical and split 0.50/0.50 between *cat* and *mat*: by content
# alone an article cannot tell which noun follows it. That is the cue for position, in notebook 07.

# %% [markdown] lang="zh"
# 权重是 $6 \times 6$ 的。*sat* 找到了主语 *cat*，*on* 找到了 *mat*，每个名词都找到了自己的动词或介词，权重都是 0.98。
# 两行 *the* 完全相同，在 *cat* 和 *mat* 之间平分（0.50/0.50）：只看内容，冠词分不清后面跟的是哪个名词。07 节引入位置信息正是为此。

# %% [markdown] lang="en"
# ### One word, two contexts
#
# The tutorial *Transformer self-attention: the intuition, no maths needed* [“Transformer 自注意力机制：直觉理解，不需要数学”]
# explains self-attention with one word: 银行 (*bank*) should get different representations in 银行倒闭 (*the bank
# collapsed*) and 银行对岸 (*the far bank*). The second phrase borrows an English pun, *bank* as a river bank; the
# Chinese word 银行 only ever means the institution, so a Chinese reader hears no ambiguity in it. We use
# 银行对面 (*across from the bank*) instead. A bank is an **organisation** (it can go bankrupt) and a **place**, so the
# embedding of 银行 carries half of each, the same vector in both sentences. Its query asks "what does my
# context say about me?"; 倒闭 (*go bankrupt*) answers with the organisation side, 对面 (*across from*) with the place
# side; the new vector is the embedding plus what attention brings (a residual connection).

# %% [markdown] lang="zh"
# ### 同一个词，两种上下文
#
# 《Transformer 自注意力机制：直觉理解，不需要数学》用一个词说明自注意力的作用：“银行”在“银行倒闭”和“银行对岸”里应当得到不同的表示。
# “银行对岸”借的是英文 *bank* 的双关（*bank* 也指河岸），中文的“银行”只有金融机构这一个意思，中文读者在这里听不出歧义。
# 所以本节换成“银行对面”。银行既是**机构**（会倒闭），也是一个**地点**，“银行”的嵌入向量两样各占一半，在两句话里是同一个向量。它的 Query 问的是“上下文怎么说我”，
# “倒闭”用机构这一面回应，“对面”用地点这一面回应；新的向量等于嵌入向量加上注意力带来的信息（残差连接）。

# %%
bank = context_lab.bank_vectors()
for name in ("collapse", "opposite"):
    tokens, row = bank[name]["tokens"], bank[name]["weights"]
    print("".join(tokens), ": 银行 ->", {tok: round(float(w), 2) for tok, w in zip(tokens, row) if w > 0.01})
context_lab.bank_table()

# %% [markdown] lang="en"
# The embedding is the same in both sentences (cosine 1). After one attention step, 银行 leans to the organisation side
# in 银行倒闭了 (1.5 against 0.5) and to the place side in 银行对面的公园. The two vectors are less similar to each other
# (cosine similarity 0.78) than either is to the embedding (0.89): one word, two contextual representations. The
# cosine is taken over all six features, so both vectors' *noun* and *two-sided* count too ($3.5 / 4.5 = 0.78$).
# Exercise 2 recomputes it; notebook 12 measures the same effect in a trained model.

# %% [markdown] lang="zh"
# 嵌入向量在两句话里完全相同（余弦为 1）。经过一步注意力之后，“银行”在“银行倒闭了”里偏向机构一面（1.5 比 0.5），
# 在“银行对面的公园”里偏向地点一面。这两个向量彼此的余弦相似度是 0.78，比它们各自与嵌入向量的相似度（0.89）都低：
# 同一个词有了两种带上下文的表示。余弦是在全部六个特征上算的，两个向量的“名词”和“多义”也计算在内（$3.5 / 4.5 = 0.78$）。
# 练习 2 会让你亲手算出这个数，12 节会在训练好的模型里测量同样的效应。

# %% [markdown] lang="en"
# ## Try it: pick a word
#
# Choose a sentence, switch between cross- and self-attention, reorder the English words and pick the query word. Try:
# - cross, 在 in both sentences: the same query finds *on*, then *under*;
# - cross, source reversed: every Chinese row keeps its weight, its column moves;
# - self, *the*: a tie no reordering can break;
# - cross ↔ self: the shape changes from $5 \times 6$ to $6 \times 6$.

# %% [markdown] lang="zh"
# ## 动手试试：选一个词
#
# 选一个句子，在交叉注意力和自注意力之间切换，调整英文词序，再选一个 Query 词。可以试试：
# - 交叉注意力下看两个句子里的“在”，同一个 Query 先找到 *on*，再找到 *under*；
# - 交叉注意力下把原文倒序，每一行中文的权重不变，只是所在的列移动了；
# - 自注意力下看 *the*，无论怎么调整词序都打平；
# - 在交叉和自注意力之间切换，形状从 $5 \times 6$ 变成 $6 \times 6$。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
widgets.cross_attention_widget("cat_mat", mode="cross", query=2)

# %% [markdown] lang="en"
# ## Same computation, different sources
#
# A common misreading: "Q, K and V are three different inputs". They are three **projections**, and how many inputs
# they come from depends on the layer's role. All the attention of this notebook is one function:

# %% [markdown] lang="zh"
# ## 同一种计算，不同的来源
#
# 一个常见的误解是“Q、K、V 是三个不同的输入”。它们是三个**投影**；至于来自一个输入还是两个，要看这一层扮演什么角色。本节所有的注意力都是同一个函数：

# %%
print(formula.source(cross_lab.attend))

# %% [markdown] lang="en"
# **One input, three different vectors.** In self-attention all three come from one sentence, yet three matrices give
# every word three roles: *sat* asks for an `agent`, answers to `action`, and hands over its meaning `sit`:

# %% [markdown] lang="zh"
# **一个输入，三个不同的向量**。自注意力中三者都来自同一个句子，但三个矩阵给了每个词三种角色。*sat* 提问时找的是施事，
# 被匹配时回应的是动作，交出去的是自己的意思“坐”：

# %%
x_sat = english.x[english.tokens.index("sat")]                      # [en] (F,) one row of the one input [zh] (F,) 同一个输入中的一行
named = lambda vec, names: {cross_lab.display_name(n): round(float(a), 1) for n, a in zip(names, vec) if a}
print("[en]query  x W_q:[zh]Query  x W_q:", named(x_sat @ inner.w_q, cross_lab.SELF_AXES))
print("[en]key    x W_k:[zh]Key    x W_k:", named(x_sat @ inner.w_k, cross_lab.SELF_AXES))
print("[en]value  x W_v:[zh]Value  x W_v:", named(x_sat @ inner.w_v, cross_lab.FEATURES))

# %% [markdown] lang="en"
# **Two sources, not three.** In cross-attention K and V both come from the encoder: each key labels the value at the
# same position, so they come in pairs. The library refuses keys and values of different lengths:

# %% [markdown] lang="zh"
# **两个来源，不是三个**。交叉注意力中 K 和 V 都来自编码器，每个 Key 都是同一位置上那个 Value 的标签，所以二者成对出现。
# Key 和 Value 长度不同时，库会直接拒绝：

# %%
try:
    ac.multi_head_attention(x_dec, x_enc, x_dec, params)             # [en] keys from the encoder, values from the decoder [zh] Key 来自编码器，Value 来自解码器
except ValueError as err:
    print(f"[en]ValueError: {err}[zh]ValueError：库拒绝了这次调用，因为 Key 和 Value 的个数对不上")
    print(f"[en]  in plain words: {len(x_enc)} keys but {len(x_dec)} values; each key labels one value, so the two counts must match[zh]  意思是：Key 有 {len(x_enc)} 个，Value 却有 {len(x_dec)} 个；每个 Key 标记一个 Value，两者必须一样多")

# %% [markdown] lang="en"
# So, do Q, K and V always come from different inputs? **Not necessarily.** In self-attention all three come from one
# sequence; in cross-attention Q comes from the decoder, K and V from the encoder. The computation is the same.
#
# ### Self-test (Q1)

# %% [markdown] lang="zh"
# 那么，Q、K、V 一定来自不同的输入吗？**不一定**。自注意力中三者都来自同一个序列；交叉注意力中 Q 来自解码器，K 和 V 来自编码器。计算完全相同。
#
# ### 自测题（Q1）

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
quiz.quiz_widget("q1")


# %% [markdown] lang="en"
# ## Exercise 1 · ★★☆ · about 15 min: cross-attention over padded sentences
#
# A translation model reads a **batch** of source sentences, padded at the end to one length $T_k$ as in notebook 04.
# Write `my_cross_attention(x_dec, x_enc, src_lengths, w_q, w_k, w_v)` yourself: queries from the decoder
# $(B, T_q, D)$, keys and values from the encoder $(B, T_k, D)$, scaled scores, the pads of each source hidden before
# the softmax, the values mixed. It returns `(output, weights)` with weights $(B, T_q, T_k)$, and each pad must get
# exactly 0. The checker's second sentence has 2 real tokens and 3 pads full of large numbers.

# %% [markdown] lang="zh"
# ## 练习 1 · ★★☆ · 约 15 分钟：填充过的句子上的交叉注意力
#
# 翻译模型读的是**一批**原文句子，它们像 04 节那样在末尾填充到同一长度 $T_k$。请亲手写出
# `my_cross_attention(x_dec, x_enc, src_lengths, w_q, w_k, w_v)`。Query 来自解码器 $(B, T_q, D)$，Key 和 Value 来自编码器
# $(B, T_k, D)$，算出缩放后的分数，在 softmax 之前屏蔽每句原文的填充位置，再混合 Value。返回 `(output, weights)`，
# 权重的形状是 $(B, T_q, T_k)$，每个填充位置的权重必须严格为 0。检查器的第二句原文只有 2 个真实 token，后面 3 个填充位置里是很大的数。

# %%
def my_cross_attention(x_dec, x_enc, src_lengths, w_q, w_k, w_v):
    """[en] x_dec (B, Tq, D), x_enc (B, Tk, D) padded at the end, src_lengths (B,) -> (output (B, Tq, Dv), weights (B, Tq, Tk))
    [zh] x_dec (B, Tq, D)，x_enc (B, Tk, D) 末尾有填充，src_lengths (B,) -> (output (B, Tq, Dv)，weights (B, Tq, Tk))"""
    # [en] 1. queries from the decoder, keys and values from the encoder
    # [zh] 1. Query 来自解码器，Key 和 Value 来自编码器
    # [en] 2. scaled scores (B, Tq, Tk) [zh] 2. 缩放后的分数 (B, Tq, Tk)
    # [en] 3. hide the pads: key j of sentence b is real when j < src_lengths[b]
    # [zh] 3. 屏蔽填充位置：句子 b 的 Key j 在 j < src_lengths[b] 时才是真实 token
    # [en] 4. softmax over the keys, mix the values; return (output, weights)
    # [zh] 4. 沿 Key 做 softmax，混合 Value；返回 (output, weights)
    raise NotImplementedError("[en]write the four steps above[zh]写出上面的四步")

checks.check_padded_cross_attention(my_cross_attention)


# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def my_cross_attention(x_dec, x_enc, src_lengths, w_q, w_k, w_v):
#     q = x_dec @ w_q                                            # (B, Tq, Dk): the decoder asks ...
#     k, v = x_enc @ w_k, x_enc @ w_v                            # ... the encoder answers: (B, Tk, Dk), (B, Tk, Dv)
#     scores = q @ k.swapaxes(-1, -2) / np.sqrt(q.shape[-1])     # (B, Tq, Tk)
#     real = np.arange(k.shape[-2]) < np.asarray(src_lengths)[:, None]   # (B, Tk): the real source tokens
#     weights = ac.softmax(scores, mask=real[:, None, :])        # (B, 1, Tk) mask: the pads get exactly 0
#     return weights @ v, weights
# ```
# No causal mask: the whole source is known. The last four lines (from `scores` on) can be one:
# `return ac.scaled_dot_product_attention(q, k, v, mask=ac.padding_mask(src_lengths, x_enc.shape[-2]))`.
# </details>

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def my_cross_attention(x_dec, x_enc, src_lengths, w_q, w_k, w_v):
#     q = x_dec @ w_q                                            # (B, Tq, Dk)：解码器提问……
#     k, v = x_enc @ w_k, x_enc @ w_v                            # ……编码器回答：(B, Tk, Dk)，(B, Tk, Dv)
#     scores = q @ k.swapaxes(-1, -2) / np.sqrt(q.shape[-1])     # (B, Tq, Tk)
#     real = np.arange(k.shape[-2]) < np.asarray(src_lengths)[:, None]   # (B, Tk)：原文中真实的 token
#     weights = ac.softmax(scores, mask=real[:, None, :])        # (B, 1, Tk) 的掩码：填充位置的权重严格为 0
#     return weights @ v, weights
# ```
# 不需要因果掩码，因为原文全部已知。从 `scores` 起的最后四行可以合成一行：
# `return ac.scaled_dot_product_attention(q, k, v, mask=ac.padding_mask(src_lengths, x_enc.shape[-2]))`。
# </details>

# %% [markdown] lang="en"
# ## Exercise 2 · ★★☆ · about 10 min: one word, two contexts
#
# Recompute the 0.78 of the 银行 table. `my_context_similarity(x_a, i, x_b, j, w_q, w_k, w_v)` gets two sentences as
# feature matrices, runs one self-attention step with a residual connection in each, $h = x + \text{softmax}(QK^\top /
# \sqrt{d_k})\,V$ with $Q, K, V$ all projected from that sentence's $x$, and returns the **cosine similarity** of
# token $i$ of sentence a and token $j$ of sentence b. The checker tries random sentences, then the two 银行 sentences.

# %% [markdown] lang="zh"
# ## 练习 2 · ★★☆ · 约 10 分钟：同一个词，两种上下文
#
# 亲手算出“银行”表里的 0.78。`my_context_similarity(x_a, i, x_b, j, w_q, w_k, w_v)` 接收两个句子的特征矩阵，在每个句子里做一步带残差连接的自注意力，
# $h = x + \text{softmax}(QK^\top / \sqrt{d_k})\,V$，其中 $Q, K, V$ 都由这个句子自己的 $x$ 投影得到，然后返回句子 a 的第 $i$ 个 token
# 与句子 b 的第 $j$ 个 token 的**余弦相似度**。检查器先用随机句子来试，再用两个“银行”句子。

# %%
def my_context_similarity(x_a, i, x_b, j, w_q, w_k, w_v):
    """[en] x_a (Ta, F), x_b (Tb, F) -> the cosine similarity of token i of a and token j of b after h = x + attention(x)
    [zh] x_a (Ta, F)，x_b (Tb, F) -> h = x + attention(x) 之后，a 的第 i 个 token 与 b 的第 j 个 token 的余弦相似度"""
    raise NotImplementedError("[en]contextual vectors in each sentence, then their cosine[zh]先在各自的句子里算出上下文表示，再求余弦")

checks.check_context_similarity(my_context_similarity)

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def my_context_similarity(x_a, i, x_b, j, w_q, w_k, w_v):
#     def contextual(x):                                         # h = x + attention(x), Q, K, V all from x
#         q, k, v = x @ w_q, x @ w_k, x @ w_v
#         weights = ac.softmax(q @ k.T / np.sqrt(q.shape[-1]))   # (T, T)
#         return x + weights @ v                                 # the residual keeps the word's own features
#     a, b = contextual(x_a)[i], contextual(x_b)[j]
#     return a @ b / (np.linalg.norm(a) * np.linalg.norm(b))     # a similarity; 1 - cosine would be a distance
# ```
# </details>

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def my_context_similarity(x_a, i, x_b, j, w_q, w_k, w_v):
#     def contextual(x):                                         # h = x + attention(x)，Q、K、V 都来自 x
#         q, k, v = x @ w_q, x @ w_k, x @ w_v
#         weights = ac.softmax(q @ k.T / np.sqrt(q.shape[-1]))   # (T, T)
#         return x + weights @ v                                 # 残差保留了词自己的特征
#     a, b = contextual(x_a)[i], contextual(x_b)[j]
#     return a @ b / (np.linalg.norm(a) * np.linalg.norm(b))     # 这是相似度；1 - 余弦才是距离
# ```
# </details>

# %% [markdown] lang="en"
# ## Summary
#
# - Where Q, K and V come from decides the kind of attention: **self**, all three from one sequence; **cross**, Q from
#   the decoder, K and V from the encoder. The computation is the same; cross-attention's weights are $(T_q, T_k)$.
# - In *the cat sat on the mat* → *猫坐在垫子上*, with hand-set matrices that compare meanings, every Chinese word puts
#   0.94 of its attention on the English word with the same meaning (5 of 5 right; pairing by position: 0 of 5), and
#   when the source is shuffled the columns move with the words: the lookup is made by content.
# - Self-attention on the English sentence: *sat* → *cat*, *on* → *mat* (0.98 each); *the* splits 0.50/0.50.
# - Self-attention gives 银行 two contextual vectors, cosine similarity 0.78 between them.
# - Q1: Q, K and V need not come from different inputs; even from one input they are three different projections.
#
# **Next:** [06 · Multi-head attention](06_multi_head_attention.ipynb).

# %% [markdown] lang="zh"
# ## 小结
#
# - Q、K、V 从哪里来决定了注意力的种类。**自**注意力中三者来自同一个序列；**交叉**注意力中 Q 来自解码器，K 和 V 来自编码器。
#   计算完全相同，交叉注意力的权重形状是 $(T_q, T_k)$。
# - 在 *the cat sat on the mat* → *猫坐在垫子上*这一对里，用手工设定、按意思比较的矩阵，每个中文词都把 0.94 的注意力放在意思相同的英文词上
#   （5 个全对，按位置配对则 0 个对）。打乱原文，列就跟着词移动，可见查找是按内容进行的。
# - 英文句子上的自注意力中，*sat* → *cat*，*on* → *mat*（权重都是 0.98）；*the* 在两个名词之间平分（0.50/0.50）。
# - 自注意力让“银行”得到两个带上下文的向量，二者的余弦相似度是 0.78。
# - Q1：Q、K、V 不一定来自不同的输入；即使来自同一个输入，也是三个不同的投影。
#
# **下一节**：[06 · 多头注意力](06_multi_head_attention.ipynb)。
