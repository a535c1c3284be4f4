# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown] lang="en"
# # 12 · Attention inside a trained Transformer
#
# Every head you have met so far was set by hand: the coreference model of 01, the alignment of 05, the readable
# heads of 06. The source tutorials make a stronger claim: "different heads learn to attend to different subspaces",
# and if such a division of labour appears, "it is learned in training, not written in as a rule". This notebook
# checks that claim on two small Transformers trained on this machine's CPU, and **measures** what their heads do.
#
# **After this notebook you will be able to**
# - assemble a Transformer block from parts you know (layer norm, multi-head attention, a feed-forward layer,
#   residual connections) and follow every shape through a small causal decoder;
# - measure a head: its previous-token score and its induction score on fresh random sequences, and what the loss
#   does when you switch it off;
# - check that a trained model resolves the pronoun on Winograd twins it never saw, in English and Chinese, and read
#   which head fetches the answer;
# - show that the same word (bank, 银行) gets different representations in different contexts, layer by layer;
# - show on a trained model that an attention weight is not an explanation (Q6).
#
# **What you should know first:** multi-head attention and ablation ([06 · Multi-head attention](06_multi_head_attention.ipynb)),
# the causal mask ([04 · Masking](04_masking.ipynb)) and position embeddings ([07 · Position](07_position.ipynb)).

# %% [markdown] lang="zh"
# # 12 · 训练好的 Transformer 里的注意力
#
# 到目前为止，你见过的每一个头都是手工设定的：01 节的指代模型、05 节的对齐、06 节那几个可读的头。原教程的说法更进一步：
# “不同的 head 学会关注不同子空间”，而且“如果出现这种分工，它是训练过程中学出来的，而不是人为写入的规则”。
# 本节就在本机 CPU 上训练出来的两个小 Transformer 上检验这句话，并且把它们的头在做什么**量出来**。
#
# **学完本节，你将能够**
# - 用已经学过的零件（层归一化、多头注意力、前馈层、残差连接）拼出一个 Transformer 块，并跟着形状走完一个小小的因果解码器；
# - 量一个头：在新生成的随机序列上算出它的“前一个 token”得分和 induction 得分，再看关掉它之后损失怎样变化；
# - 验证训练好的模型能在从没见过的 Winograd 孪生句上正确解析代词（英文和中文都有），并看出是哪个头取回了答案；
# - 逐层展示同一个词（bank、银行）在不同上下文里得到不同的表示；
# - 在训练好的模型上说明：注意力权重并不等于解释（Q6）。
#
# **需要的基础：** 多头注意力和消融实验（见 [06 · 多头注意力](06_multi_head_attention.ipynb)）、因果掩码（见 [04 · 掩码](04_masking.ipynb)）和位置编码（见 [07 · 位置信息](07_position.ipynb)）。

# %%
LANG = "[en]en[zh]zh"  # [en] language of this edition: "en" or "zh" [zh] 本版的语言："en" 或 "zh"
# %matplotlib inline
import inspect

import matplotlib.pyplot as plt
import numpy as np

import attention_core as ac
from attention_core.core import transformer as tr
from attention_core.labs.nb01_query_key_value import coreference
from attention_core.labs.nb12_trained_transformer import (
    checks,
    corpora,
    experiments,
    figures,
    load_trained,
    questions,
    widgets,
)
from attention_core.teaching import i18n, plots, quiz
from attention_core.teaching.tables import pad

i18n.set_language(LANG)
rng = np.random.default_rng(0)  # [en] every random number in this notebook comes from this seed [zh] 本 notebook 的所有随机数都来自这个种子
np.set_printoptions(precision=3, suppress=True)  # [en] arrays print with 3 decimals [zh] 数组打印时保留 3 位小数
# [en] trained once by `make train`; loaded, never trained here
# [zh] 由 `make train` 训练过一次；这里只加载，从不训练
induction = load_trained("induction")
coref = load_trained("coreference")
print(induction)
print(coref)

# %% [markdown] lang="en"
# ## The block, assembled from parts you know
#
# A Transformer block is attention plus three things around it. A **layer norm** rescales each token's vector to
# mean 0 and variance 1 (then multiplies by a learned gain $\gamma$ and adds a bias $\beta$), so that no layer sees
# numbers that drift in size. A **feed-forward** layer transforms each token on its own, the same two matrices at
# every position. And **residual connections** add each sub-layer's output to its input instead of replacing it, so
# every layer writes into one shared stream. In the "pre-LN" form used by GPT-2 and most models since:
#
# $$x \leftarrow x + \text{MHA}(\text{LN}_1(x)), \qquad x \leftarrow x + \text{FFN}(\text{LN}_2(x)), \qquad
# \text{FFN}(z) = \text{GELU}(z W_1 + b_1)\, W_2 + b_2 .$$
#
# A decoder embeds the tokens (a learned table for the words plus one for the positions, as in 07), runs $L$ blocks
# with the causal mask of 04, normalises once more and maps each position to a score per word of the vocabulary.
# Here is the whole block as the library writes it:

# %% [markdown] lang="zh"
# ## 用学过的零件拼出一个块
#
# 一个 Transformer 块就是注意力再加上它周围的三样东西。**层归一化**（layer norm）把每个 token 的向量重新缩放到均值 0、方差 1
# （再乘上一个学出来的增益 $\gamma$、加上偏置 $\beta$），这样每一层看到的数值大小都不会漂移。**前馈层**（feed-forward）对每个 token
# 单独做变换，每个位置用的都是同样的两个矩阵。**残差连接**则把每个子层的输出加到它的输入上，而不是替换掉输入，于是每一层都往同一条
# “信息流”里写东西。GPT-2 以及此后的大多数模型采用的是“pre-LN”形式：
#
# $$x \leftarrow x + \text{MHA}(\text{LN}_1(x)), \qquad x \leftarrow x + \text{FFN}(\text{LN}_2(x)), \qquad
# \text{FFN}(z) = \text{GELU}(z W_1 + b_1)\, W_2 + b_2$$
#
# 解码器先给 token 做嵌入（一张学出来的词表，加上一张位置编码表，就像 07 节那样），再用 04 节的因果掩码跑 $L$ 个块，
# 最后再归一化一次，把每个位置映射成词表里每个词的一个分数。下面是库里写出的整个块：

# %%
print(inspect.getsource(tr.transformer_block))

# %% [markdown] lang="en"
# Now one sentence through the trained coreference model, step by step, with every shape. The model reads the
# sentence, a separator `|` and the pronoun again; what it predicts next is its answer to "who is *it*?".

# %% [markdown] lang="zh"
# 现在让一句话一步一步地走过训练好的指代模型，每一步都打印形状。模型读入这句话、一个分隔符 `|`，再把代词重复一遍；
# 它接下来预测的词，就是它对“*it* 指谁？”的回答。

# %%
sentence = "the animal didn't cross the street because it was too tired"
tokens = coref.query_input(sentence)                     # [en] sentence | it [zh] 句子 | it
ids = coref.encode(tokens)                               # (T,)
p = coref.params
x = tr.embed(ids, p.tok_emb, p.pos_emb)                  # [en] (T, D): word + position [zh] (T, D)：词 + 位置
print("[en]tokens[zh]token 数", len(tokens), " ids", ids.shape, "-> embed", x.shape, "[en] vocabulary[zh] 词表大小", len(coref.vocab))
block = p.blocks[0]
h = tr.layer_norm(x, block.ln1_g, block.ln1_b)            # [en] (T, D), each row mean 0, variance 1 [zh] (T, D)，每行均值 0、方差 1
attn, w0 = ac.multi_head_attention(h, h, h, block.attn, mask=ac.causal_mask(len(ids)))   # (T, D), (H, T, T)
x1 = x + attn                                            # [en] residual 1 [zh] 残差连接 1
ffn = tr.feed_forward(tr.layer_norm(x1, block.ln2_g, block.ln2_b), block.w_1, block.b_1, block.w_2, block.b_2)
x2 = x1 + ffn                                            # [en] residual 2 [zh] 残差连接 2
print("[en]layer norm[zh]层归一化", h.shape, "[en] attention[zh] 注意力", attn.shape, "[en] weights[zh] 权重", w0.shape,
      " W_1", block.w_1.shape, "[en] feed-forward[zh] 前馈层", ffn.shape)
print("[en]same as tr.transformer_block:[zh]与 tr.transformer_block 的结果相同：", np.allclose(x2, tr.transformer_block(x, block, mask=ac.causal_mask(len(ids)))[0],
                                                   atol=1e-5))
logits, weights = coref.forward(ids)                     # [en] the whole decoder [zh] 整个解码器
print("[en]decoder: logits[zh]解码器：logits", logits.shape, "[en] every attention map[zh] 所有注意力图", weights.shape, "(L, H, T, T)")
print("[en]answer after '| it':[zh]“| it”之后的答案：", coref.vocab[int(logits[-1].argmax())])

# %% [markdown] lang="en"
# `forward` returns the logits and **every** attention map, $(L, H, T, T)$: nothing is hidden inside the model, so we
# can measure each head. A test of the package checks that this NumPy forward equals the forward of the torch model
# that was trained (same parameter names, same numbers to $10^{-5}$ in float32), so what we measure here is what was
# trained.

# %% [markdown] lang="zh"
# `forward` 返回 logits 和**所有**注意力图，形状 $(L, H, T, T)$：模型内部没有藏起来的东西，所以每个头都能量。
# 包里有一个测试专门检查这个 NumPy 前向计算与训练时用的 torch 模型的前向计算一致（参数名相同，float32 下数值相差不超过 $10^{-5}$），
# 所以我们在这里量到的，就是训练出来的那个模型。

# %% [markdown] lang="en"
# ## Training, once, offline
#
# Both models were trained by one command, `make train`, on the CPU with torch, from a fixed seed and with
# deterministic algorithms; the weights (a few hundred KB) are committed with a manifest that records the command,
# the seed, the corpus version, the steps and the final metrics. The corpora are generated by code in the package,
# nothing is downloaded:
#
# - **induction**: sequences of 24 random letters whose end repeats a segment of 4 to 12 distinct letters;
#   the model must predict each next letter;
# - **coreference and context**: templated sentences in English and Chinese built from the seeds' examples: the
#   animal and the street with *tired* / *wide* (and more animals, places, adjectives and frames), 小红 … 她 and
#   小明 … 他, and *bank* / 银行 in two senses. Each sentence has a **Winograd twin** that differs in one word and has
#   the other answer; a fifth of the twins are held out, and so are the seeds' own sentences.

# %% [markdown] lang="zh"
# ## 训练：只做一次，离线完成
#
# 两个模型都由同一条命令 `make train` 训练：在 CPU 上用 torch，随机种子固定，算法确定；权重（几百 KB）随仓库提交，
# 附带一份清单（manifest），记下命令、种子、语料版本、训练步数和最终指标。语料由包里的代码生成，不下载任何东西：
#
# - **induction**：24 个随机字母组成的序列，结尾把一段 4 到 12 个互不相同的字母重复一遍；模型要预测每一个下一个字母；
# - **指代与上下文**：用原教程的例子造出的中英文模板句：动物和街道配上 *tired* / *wide*（还有更多动物、地点、形容词和句式）、
#   小红 … 她和小明 … 他，以及两种词义的 *bank* / 银行。每句话都有一个 **Winograd 孪生句**，只差一个词，答案却相反；
#   五分之一的孪生句对被留作测试，原教程自己的句子也在其中。

# %%
for row in corpora.induction_batch(rng, 3):
    print(" ".join(corpora.INDUCTION_VOCAB[i] for i in row))
split = corpora.coreference_split()
print("[en]sentences: train[zh]句子：训练", len(split.train), "[en] held out[zh] 留作测试", len(split.test),
      "[en] shared sentences:[zh] 两者共有的句子：", len({e.text for e in split.train} & {e.text for e in split.test}))
for a, b in (corpora.twins(split.test, "it", "zh")[0], corpora.twins(split.test, "person", "en")[0],
             corpora.twins(split.test, "bank", "en")[0]):
    print(f"[en]  {' '.join(a.model_input())}  -> {a.answer}   |   twin: ...{b.tokens[-1]}  -> {b.answer}[zh]  {' '.join(a.model_input())}  -> {a.answer}   |   孪生句：...{b.tokens[-1]}  -> {b.answer}")
for m in (induction, coref):
    man = m.manifest
    print(f"[en]{m.name}: `{man['command']}`  seed {man['seed']}, {man['steps']} steps, {man['corpus_version']}, [zh]{m.name}：`{man['command']}`  种子 {man['seed']}，{man['steps']} 步，{man['corpus_version']}，"
          + f"torch {man['torch_version']}")

# %%
ax = figures.plot_loss_curves([induction, coref])

# %% [markdown] lang="en"
# The coreference loss falls to almost zero within a few hundred steps. The induction loss cannot: half of every
# sequence is random and cannot be predicted by anyone, so it levels off near 2.3 nats. Whether the repeated half is
# predicted, and how, is what the next section measures.

# %% [markdown] lang="zh"
# 指代模型的损失在几百步之内就降到几乎为零。induction 模型的损失不可能这样：每条序列有一半是随机的，谁也预测不了，所以它停在
# 2.3 nats 左右。重复的那一半有没有被预测出来、又是怎样预测出来的，正是下一节要量的。

# %% [markdown] lang="en"
# ## Learned heads, measured
#
# Layers and heads are numbered from 0, as in notebook 06 and in the code: L1H0 is head 0 of layer 1, the second
# layer.
#
# The induction model has 2 layers of 4 heads and no feed-forward layers (attention only, the classic setting for this
# experiment). Two kinds of head are known to appear in such models:
#
# - a **previous-token head** puts its weight on key $t - 1$ (a diagonal one step below the main one);
# - an **induction head**, in a later layer, looks for the earlier occurrence of the current token and attends to the
#   token that **followed** it, then copies it: "… A B … A → B". On a random segment of $n$ tokens repeated twice,
#   query $t$ of the second copy weights key $t - n + 1$ (a stripe $n - 1$ steps below the diagonal).
#
# We measure both for every head, averaged over 200 fresh random sequences of 11 letters repeated (22 tokens, never
# seen in training): the previous-token score is the mean weight on key $t-1$, the induction score the mean weight on
# key $t - n + 1$ over the queries of the second copy. A head that spread its weight evenly would score about
# $1/t$, below 0.1 here.

# %% [markdown] lang="zh"
# ## 学出来的头：量一量
#
# 层和头都从 0 开始编号，与 06 节和代码一致：L1H0 指第 1 层（即第二层）的第 0 个头。
#
# induction 模型有 2 层、每层 4 个头，没有前馈层（只有注意力，这是做这个实验的经典设定）。在这类模型里，已知会出现两种头：
#
# - **“前一个 token”头**（previous-token head）把权重放在 Key $t - 1$ 上（主对角线下方错开一格的一条对角线）；
# - **induction head** 出现在更靠后的层，它找到当前 token 上一次出现的位置，关注**紧跟在它后面**的那个 token，再把它复制过来：
#   “… A B … A → B”。在一段重复两遍、长 $n$ 的随机序列上，第二遍的 Query $t$ 会把权重放在 Key $t - n + 1$ 上（主对角线下方 $n - 1$ 格的一条斜线）。
#
# 我们对每个头都量这两个分数，取 200 条新生成的随机序列的平均（11 个字母重复一遍，共 22 个 token，训练时从没出现过）：
# “前一个 token”得分是落在 Key $t-1$ 上的平均权重，induction 得分是第二遍各 Query 落在 Key $t - n + 1$ 上的平均权重。
# 一个把权重平均摊开的头，得分大约是 $1/t$，在这里不到 0.1。

# %%
scores = experiments.head_scores(induction)                # [en] (L, H) each, on 200 fresh sequences [zh] 各为 (L, H)，在 200 条新序列上测得
print("[en]previous-token score[zh]“前一个 token”得分")
print(experiments.head_table(scores["previous"]))
print("[en]\ninduction score[zh]\ninduction 得分")
print(experiments.head_table(scores["induction"]))

# %%
seq = experiments.eval_sequences(1, seed=7)[0]              # [en] 11 random letters, twice [zh] 11 个随机字母，重复两遍
letters = induction.decode(seq)
_, w_ind = induction.forward(seq)                           # (L, H, T, T)
prev_head = int(scores["previous"][0].argmax())
ind_head = int(scores["induction"][1].argmax())
fig, axes = plt.subplots(1, 2, figsize=(11, 5), layout="constrained")
for ax, (layer, head) in zip(axes, ((0, prev_head), (1, ind_head))):
    plots.attention_heatmap(w_ind[layer, head], letters, ax=ax, annotate=False,
                            title=f"[en]layer {layer} · head {head}[zh]第 {layer} 层 · 第 {head} 个头")

# %% [markdown] lang="en"
# The two patterns the definitions predicted, learned from nothing but next-letter prediction: on the left, head 0 of
# layer 0 sits on the diagonal just below the main one (every letter looks at its left neighbour); on the right, the
# best head of layer 1 draws the stripe $n - 1 = 10$ steps below the diagonal in the second copy: each letter looks at
# the letter that followed its earlier occurrence. One previous-token head emerged (score 0.73); the other three
# heads of layer 0 score 0.23–0.30. All four heads of layer 1 became induction heads (0.58–0.76).
#
# Pick any head and compare:

# %% [markdown] lang="zh"
# 两种模式正如定义所预言的那样出现了，而训练只做了“预测下一个字母”这一件事：左边，第 0 层第 0 个头落在主对角线正下方的那条对角线上
# （每个字母都看它左边的邻居）；右边，第 1 层最好的那个头在第二遍里画出一条位于主对角线下方 $n - 1 = 10$ 格的斜线：
# 每个字母都去看它上一次出现时紧跟在后面的那个字母。只长出了一个“前一个 token”头（得分 0.73），第 0 层另外三个头只有 0.23–0.30；
# 第 1 层的四个头全都成了 induction head（0.58–0.76）。
#
# 选任意一个头比较一下：

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
widgets.head_picker_widget(induction)

# %% [markdown] lang="en"
# ### Which heads matter: ablation
#
# A pattern is a clue; importance is what removal measures (as in 06). We switch heads off one at a time (and each
# whole layer) with `head_mask` and measure the loss on the repeated half, the letters an induction head can predict
# (from the second letter of the copy on):

# %% [markdown] lang="zh"
# ### 哪些头重要：消融实验
#
# 模式只是线索；重不重要，要看去掉它之后测出来的结果（和 06 节一样）。我们用 `head_mask` 每次关掉一个头（再分别关掉一整层），
# 测量重复那一半上的损失，也就是 induction head 能预测的那些字母（从第二遍的第二个字母起）：

# %%
rows = experiments.ablation_table(induction)
base = rows[0]["loss"]
print("[en]switched off   loss (nats)   change[zh]关掉的头      损失（nats）     变化")
for r in rows:
    print(f"{r['ablated']:<14}{r['loss']:>12.3f}{r['loss'] - base:>+9.3f}")

# %% [markdown] lang="en"
# Read it against the scores:
# - the **previous-token head L0H0 is essential**: without it the loss jumps from 0.59 to 4.00 nats, worse than
#   guessing uniformly among 26 letters (ln 26 ≈ 3.26): the induction heads still look for "the letter after my
#   earlier occurrence", but no head tells a key what came before it any more;
# - the **other three heads of layer 0 are redundant** for this task: switching any one off changes the loss by less
#   than 0.04;
# - the **induction heads back each other up**: removing one costs 0.10–0.76 nats, removing all four of layer 1 costs
#   2.76. L1H1 and L1H2 matter most, although all four draw the same stripe.
#
# Nothing in the training code named a role for a head: this division of labour, one essential head, several
# redundant ones, was learned.

# %% [markdown] lang="zh"
# 对照上面的得分来读：
# - **“前一个 token”头 L0H0 必不可少**：没有它，损失从 0.59 跳到 4.00 nats，比在 26 个字母里平均乱猜（ln 26 ≈ 3.26）还差：
#   induction head 仍然在找“我上一次出现之后的那个字母”，可是再也没有哪个头告诉 Key 它前面是什么了；
# - **第 0 层的另外三个头在这个任务上是冗余的**：关掉其中任何一个，损失的变化都不到 0.04；
# - **induction head 之间互为备份**：去掉一个，损失增加 0.10–0.76 nats；把第 1 层四个全部去掉，增加 2.76。
#   虽然四个头画出的是同一条斜线，但 L1H1 和 L1H2 最重要。
#
# 训练代码里没有任何地方给某个头指定角色：“一个头不可缺少、几个头互相冗余”这种分工，是学出来的。

# %% [markdown] lang="en"
# ## The trained model resolves the pronoun
#
# The coreference model (2 layers of 2 heads, $d_{model} = 48$, with feed-forward layers) reads a sentence, `|` and
# the pronoun, and predicts the word the pronoun refers to. On the held-out twins, which it never saw:

# %% [markdown] lang="zh"
# ## 训练好的模型会解析代词
#
# 指代模型（2 层、每层 2 个头，$d_{model} = 48$，带前馈层）读入一句话、`|` 和代词，然后预测代词所指的那个词。在它从没见过的测试孪生句上：

# %%
for lang in ("en", "zh"):
    acc = experiments.twin_accuracy(coref, lang)
    print(f"[en]{lang}: {acc['sentences']} held-out pronoun sentences, accuracy {acc['accuracy']:.1%};[zh]{lang}：{acc['sentences']} 个留作测试的代词句，准确率 {acc['accuracy']:.1%}；"
          + f"[en] {acc['twins']} twins, both sentences right in {acc['both_right']:.1%}[zh]{acc['twins']} 对孪生句，两句都对的占 {acc['both_right']:.1%}")
for s in ("The animal didn't cross the street because it was too tired",
          "The animal didn't cross the street because it was too wide",
          "动物 没有 过 马路 ， 因为 它 太 累 了", "动物 没有 过 马路 ， 因为 它 太 宽 了",
          "小红 把 书 递给 小明 ， 因为 她 想 帮忙", "小红 把 书 递给 小明 ， 因为 他 想 帮忙"):
    print(f"  {s}  ->  {coref.referent(s)}")

# %% [markdown] lang="en"
# Every held-out sentence is right, in both languages, including the seed's twins: one word changes (*tired* →
# *wide*, 她 → 他) and the answer flips. The target was 95%; the model reaches 100% on these templated sentences.
# (They are easier than real text: every word of a test sentence was seen in training, in other combinations.)
#
# Which head fetches the answer? For every held-out pronoun sentence we read the weight that the final pronoun puts on
# the right answer, in each head:

# %% [markdown] lang="zh"
# 所有测试句都答对了，中英文都是，包括原教程的孪生句：只改一个词（*tired* → *wide*，她 → 他），答案就跟着翻转。
# 目标是 95%；在这些模板句上，模型达到了 100%。（它们比真实文本容易：测试句里的每个词都在训练中出现过，只是组合不同。）
#
# 是哪个头取回了答案？对每一句测试用的代词句，我们读出最后那个代词在每个头里落在正确答案上的权重：

# %%
rh = experiments.referent_head(coref)
print("[en]mean weight of the final pronoun on the right answer[zh]句末代词落在正确答案上的平均权重")
print(experiments.head_table(rh["mean_weight"]))
print("[en]\nhow often the answer is the word the head weights most[zh]\n头权重最大的词恰好是答案的比例")
print(experiments.head_table(rh["argmax_accuracy"]))

# %% [markdown] lang="en"
# Head 0 of layer 1 is the best candidate (mean weight 0.73 on the answer, the answer is its favourite word in 80% of
# the sentences), but no head does it alone: layer 0 already fetches the answer in some sentences, the other heads in
# others. Here is the pronoun's row in L1H0 for the seed's twins, beside the hand-set model of notebook 01, whose
# matrices we wrote ourselves:

# %% [markdown] lang="zh"
# 第 1 层第 0 个头是最合适的候选（落在答案上的平均权重为 0.73，在 80% 的句子里答案是它最看重的词），但没有哪个头是单独完成的：
# 有些句子里第 0 层就已经取到了答案，另一些句子里则是其他头。下面是原教程那对孪生句里代词在 L1H0 中的那一行，旁边是 01 节的手工模型，
# 它的矩阵是我们自己写的：

# %%
hand = coreference.resolve(coreference.coreference_example("animal_tired"))
rows_fig = [("[en]hand-set model of 01, step 2: “it”[zh]01 节的手工模型，第 2 步：“it”", list(hand.tokens), hand.weights[1][hand.pronoun])]
for s in ("the animal didn't cross the street because it was too tired",
          "the animal didn't cross the street because it was too wide"):
    toks = coref.query_input(s)
    _, w = coref.forward(coref.encode(toks))
    rows_fig.append((f"[en]trained, “…too {toks[-3]}”: L{rh['layer']}H{rh['head']}[zh]训练出来的模型，“…too {toks[-3]}”：L{rh['layer']}H{rh['head']}",
                     toks[:-2], w[rh["layer"], rh["head"], -1, :-2]))
    print(f"[en]{toks[-3]:>6}: L{rh['layer']}H{rh['head']} weight on animal {w[rh['layer'], rh['head'], -1, 1]:.2f},[zh]{toks[-3]:>6}：L{rh['layer']}H{rh['head']} 在 animal 上的权重 {w[rh['layer'], rh['head'], -1, 1]:.2f}，"
          + f"[en] on street {w[rh['layer'], rh['head'], -1, 5]:.2f};  answer {coref.referent(s)}[zh]在 street 上 {w[rh['layer'], rh['head'], -1, 5]:.2f}；答案 {coref.referent(s)}")
axes = figures.plot_rows(rows_fig)

# %% [markdown] lang="en"
# The twin flip, learned: with *tired* the head puts 0.99 on *animal*; with *wide*, 0.53 on *street* and nothing on
# *animal*. The hand-set model of 01 gets the same answer by two explicit steps (read the adjective, then find the
# noun that can have that property). The trained model found its own route, and it is not always the same one: in
# the Chinese twins the decisive head changes from sentence to sentence. All four rows, for all four heads:

# %% [markdown] lang="zh"
# 孪生句的翻转是学出来的：用 *tired* 时，这个头把 0.99 放在 *animal* 上；换成 *wide*，0.53 落在 *street* 上，*animal* 上则几乎为零。
# 01 节的手工模型用两个明确的步骤得到同样的答案（先读形容词，再找能具有这个性质的名词）。训练出来的模型找到了自己的路线，
# 而且并不总是同一条：在中文孪生句里，起决定作用的头会随句子而变。下面是这四句话在全部四个头上的情况：

# %%
for s in ("the animal didn't cross the street because it was too tired",
          "the animal didn't cross the street because it was too wide",
          "动物 没有 过 马路 ， 因为 它 太 累 了", "动物 没有 过 马路 ， 因为 它 太 宽 了"):
    toks = coref.query_input(s)
    _, w = coref.forward(coref.encode(toks))
    looks = [f"L{l}H{h}: {toks[int(w[l, h, -1].argmax())]} {w[l, h, -1].max():.2f}"
             for l in range(coref.n_layers) for h in range(coref.n_heads)]
    print(f"{' '.join(toks[-5:-2]):>14} -> {coref.referent(s):<7}", " | ".join(looks))

# %% [markdown] lang="en"
# With *tired*, layer 0 reads the adjective (L0H0 on *tired*, 1.00) and layer 1 fetches the noun (*animal*, 0.99);
# with *wide*, layer 0 already lands on *street* (0.97). In Chinese the roles swap: with 累, layer 1 fetches 动物
# (0.99 and 1.00); with 宽, L0H1 fetches 马路 (0.98) and both heads of layer 1 look at the adjective 宽 (1.00).
# Attention heads of a trained model are clues to read, not a program we wrote.

# %% [markdown] lang="zh"
# 用 *tired* 时，第 0 层读形容词（L0H0 落在 *tired* 上，1.00），第 1 层取回名词（*animal*，0.99）；用 *wide* 时，第 0 层就已经落在
# *street* 上了（0.97）。中文里分工又换了过来：用“累”时，第 1 层取回“动物”（0.99 和 1.00）；用“宽”时，L0H1 取回“马路”（0.98），
# 第 1 层的两个头反而都看着形容词“宽”（1.00）。训练好的模型里，注意力头是需要解读的线索，而不是我们写下的程序。

# %% [markdown] lang="en"
# ## Context changes the representation: bank and 银行
#
# "银行 should get different representations in 银行倒闭 and 银行对岸": self-attention lets a word take in its
# context. The model was also trained to say which sense *bank* has (*money* or *river*) and which 银行 is meant
# (the institution, 机构, as in 倒闭 "goes bankrupt", or the place, 地点, as in 对岸 "across from"). All the bank
# sentences of a language have the same length, so the restated word sits at the same position: at the embedding its
# vector is **identical** in every sentence. We compare its vectors across sentences, after each layer, by cosine
# similarity: pairs of the same sense against pairs of different senses.

# %% [markdown] lang="zh"
# ## 上下文改变表示：bank 与银行
#
# “‘银行’在‘银行倒闭’和‘银行对岸’中应该得到不同的表示”：自注意力让一个词能吸收它的上下文。这个模型还被训练来判断 *bank* 是哪种意思
# （*money* 还是 *river*），以及“银行”指的是哪一种（机构，如“倒闭”；还是地点，如“对岸”）。同一种语言里所有含 bank / 银行的句子长度相同，
# 所以句末重复的那个词总在同一个位置上：在嵌入层，它的向量在每句话里都**完全相同**。我们逐层比较它在不同句子里的向量的余弦相似度：
# 同一词义的句子对，与不同词义的句子对。

# %%
sims = {}
for lang in ("en", "zh"):
    s = experiments.bank_similarity(coref, lang)
    sims[corpora.BANK[lang]] = s
    print(f"[en]{corpora.BANK[lang]} ({s['n_sentences']} sentences, senses {' / '.join(s['senses'])})[zh]{corpora.BANK[lang]}（{s['n_sentences']} 个句子，词义 {' / '.join(s['senses'])}）")
    for i, (same, other) in enumerate(zip(s["same"], s["other"])):
        where = "[en]embedding[zh]嵌入层" if i == 0 else f"[en]after layer {i - 1}[zh]第 {i - 1} 层之后"   # [en] layers numbered from 0 [zh] 层从 0 开始编号
        print("  " + pad(where, 15), f"[en]same sense {same:.3f}   other sense {other:.3f}[zh]同一词义 {same:.3f}   另一词义 {other:.3f}")
ax = figures.plot_bank_similarity(sims)

# %% [markdown] lang="en"
# At the embedding, every *bank* is the same vector (cosine 1.000 for every pair: a word-level table cannot know the
# context). After one layer, *bank* in two river sentences is still almost the same vector (0.999), while a river
# *bank* and a money *bank* are nearly unrelated (0.150). For 银行 the separation is gradual: 0.545 after layer 0,
# 0.225 after layer 1. Same word, same position, different representations: the context did it, through attention.

# %% [markdown] lang="zh"
# 在嵌入层，每一个 *bank* 都是同一个向量（任意两句之间余弦都是 1.000：按词查表的嵌入不可能知道上下文）。过了一层之后，两个“河岸”
# 句子里的 *bank* 几乎仍是同一个向量（0.999），而“河岸”的 *bank* 与“金融”的 *bank* 几乎不再相关（0.150）。“银行”的分离是逐步完成的：
# 第 0 层之后 0.545，第 1 层之后 0.225。同一个词、同一个位置，表示却不同：这是上下文通过注意力带来的。

# %% [markdown] lang="en"
# ## A weight is not an explanation (Q6), on a trained model
#
# Q6 asks whether a high attention weight explains a prediction. On the trained model we can test it directly: for
# each word of the seed's sentence, compare the weight the pronoun puts on it (in the head of the last section) with
# what happens when the word is **removed** from everyone's view (no query may attend to it, in any layer; every
# other position stays where it was).

# %% [markdown] lang="zh"
# ## 权重不等于解释（Q6）：在训练好的模型上检验
#
# Q6 问的是：注意力权重高，能不能解释一个预测？在训练好的模型上可以直接检验：对原教程那句话里的每个词，比较代词（在上一节那个头里）
# 给它的权重，与把这个词从所有人的视野里**去掉**之后会发生什么（任何 Query 在任何一层都不能关注它；其他位置都保持不动）。

# %%
q6 = experiments.weight_vs_removal(coref, "the animal didn't cross the street because it was too tired")
print(f"[en]answer: {q6['answer']} (p = {q6['p_answer']:.3f}); weights of '| it' in L{q6['layer']}H{q6['head']}[zh]答案：{q6['answer']}（p = {q6['p_answer']:.3f}）；L{q6['layer']}H{q6['head']} 中“| it”的权重")
print("[en]    word   weight  drop of p   answer without the word[zh]      词     权重   p 的下降   去掉这个词后的答案")
for r in q6["rows"]:
    print(f"{r['word']:>8} {r['weight']:>8.2f} {r['effect']:>10.3f}   {r['answer_without']}")
d = experiments.disagreement(q6)
print("[en]largest weight:[zh]权重最大：", d["top_weight"]["word"], "[en]  largest effect:[zh]  影响最大：", d["top_effect"]["word"],
      "[en]  disagree:[zh]  两者不一致：", d["disagree"])
ids_q6 = coref.encode(q6["tokens"])
probs = coref.next_token_probs(ids_q6, attn_mask=experiments.removal_mask(len(ids_q6), 1))   # [en] 'animal' removed [zh] 去掉 'animal'
print("[en]without 'animal', the model's top guesses:[zh]去掉 'animal' 之后，模型最有把握的几个猜测：",
      ", ".join(f"{coref.vocab[i]} {probs[i]:.3f}" for i in np.argsort(-probs)[:4]))

# %%
ax = figures.plot_weight_vs_effect(q6)

# %% [markdown] lang="en"
# They disagree. *tired* gets no weight at all in this head (0.00), yet removing it changes the answer to *street*
# (the probability of *animal* drops by 0.997): the adjective is read earlier, by layer 0 (the table above), and its
# information reaches the pronoun through the residual stream, not through this head's weights. The other way round,
# *animal* gets 0.99 of the weight, yet removing it lowers the probability of *animal* by only 0.041: with the noun
# hidden, the model still knows from *tired* that an animal is wanted, and its guess among the animals it knows
# happens to be this one (the top guesses above). A large
# weight says where a head reads, not what the prediction depends on; a removal measures that.

# %% [markdown] lang="zh"
# 两者并不一致。*tired* 在这个头里完全没有权重（0.00），可是去掉它，答案就变成了 *street*（*animal* 的概率下降 0.997）：这个形容词在更早的
# 第 0 层就被读取了（见上面的表），它的信息是经由残差信息流传到代词那里的，而不是通过这个头的权重。反过来，*animal* 拿到了 0.99 的权重，
# 去掉它却只让 *animal* 的概率下降 0.041：名词被藏起来之后，模型仍然能从 *tired* 知道要找的是一种动物，而它在认识的几种动物里猜的恰好就是这一个（见上面列出的最可能的几个答案）。
# 权重大，只说明一个头在哪里读信息，并不说明预测依赖什么；要回答后者，得把它去掉再测。

# %% [markdown] lang="en"
# ## Explore: a sentence, a layer, a head, and ablations
#
# Pick a held-out sentence, or type your own in the model's vocabulary (words separated by spaces; Chinese words too,
# e.g. `小红 给 小明 打 电话 ， 因为 她 很 忙`). A sentence with a pronoun is answered after `| pronoun`, one without a
# pronoun but with *bank* / 银行 after `| bank`. Choose the layer and the head to show, tick heads to switch them off,
# and watch the prediction. An unknown word gets a red message that names it.

# %% [markdown] lang="zh"
# ## 动手探索：句子、层、头和消融
#
# 选一句测试句，或者用模型词表里的词自己输入一句（词与词之间用空格隔开，中文也一样，例如 `小红 给 小明 打 电话 ， 因为 她 很 忙`）。
# 含代词的句子在 `| 代词` 之后作答；不含代词但含 *bank* / 银行的句子在 `| bank` 之后作答。选择要显示的层和头，勾选要关掉的头，
# 看预测怎样变化。输入词表里没有的词，会出现一行红字指出是哪个词。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
widgets.sentence_widget(coref)

# %% [markdown] lang="en"
# For example, the seed's sentence with heads of layer 1 switched off (the same computation as the widget's):

# %% [markdown] lang="zh"
# 举个例子，把原教程那句话第 1 层的头关掉（和控件里的计算完全相同）：

# %%
for off in ([], [(1, 0)], [(1, 1)], [(1, 0), (1, 1)]):
    st = widgets.sentence_state(coref, "the animal didn't cross the street because it was too tired", 1, 0, off)
    print(f"[en]off {str(off):<18} ->[zh]关掉 {str(off):<18} ->", ", ".join(f"{w} {p:.2f}" for w, p in st["top"]))

# %% [markdown] lang="en"
# Switching off L1H0, the head that fetches *animal*, lowers its probability from 1.00 to 0.74 (*horse* rises to
# 0.17); switching off L1H1 alone changes nothing visible; switching off both leaves 0.53 against 0.35 for *horse*.
# The model now only half knows which noun to name, and L1H1 matters only once L1H0 is gone: redundancy again.

# %% [markdown] lang="zh"
# 关掉取回 *animal* 的 L1H0，它的概率从 1.00 降到 0.74（*horse* 升到 0.17）；只关掉 L1H1，看不出任何变化；两个都关掉，只剩 0.53，
# 而 *horse* 有 0.35。模型这时只能半猜该说哪个名词；而且只有在 L1H0 不在时，L1H1 才显出作用：又是冗余。

# %% [markdown] lang="en"
# ## Self-test (extra questions on learned heads)
#
# These three questions go beyond the eight of the course; they are marked *extra*.

# %% [markdown] lang="zh"
# ## 自测题（关于学出来的头的附加题）
#
# 这三道题超出了课程的八道自测题，标为“附加题”。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
quiz.quiz_widget(questions.EXTRA["x12a"])

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
quiz.quiz_widget(questions.EXTRA["x12b"])

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
quiz.quiz_widget(questions.EXTRA["x12c"])


# %% [markdown] lang="en"
# ## Exercise: compute the induction score of a head
#
# Write `induction_score(w, half)`: given one head's weights `w` $(T, T)$ on a sequence of `half` random tokens
# repeated twice ($T = 2 \cdot$ `half`), return the head's mean weight, over the queries $t$ of the second copy
# ($t$ = `half` … $T - 1$), on the key right after the earlier occurrence, $t -$ `half` $+ 1$. The checker runs your
# function on every head of the trained model, on two sequences, and on a random matrix. A first attempt often looks
# one step too early:

# %% [markdown] lang="zh"
# ## 练习：算出一个头的 induction 得分
#
# 写一个函数 `induction_score(w, half)`：给定某个头在一条序列上的权重 `w` $(T, T)$，这条序列是 `half` 个随机 token 重复两遍（$T = 2 \cdot$ `half`），
# 返回这个头对第二遍的各个 Query $t$（$t$ = `half` … $T - 1$），落在“上一次出现之后那一格”也就是 Key $t -$ `half` $+ 1$ 上的平均权重。
# 检查器会在训练好的模型的每个头、两条序列以及一个随机矩阵上运行你的函数。第一次尝试时，常常会早看了一格：

# %%
def induction_score_first_try(w, half):
    q = np.arange(half, 2 * half)              # [en] the queries of the second copy [zh] 第二遍的 Query
    return w[q, q - half].mean()               # [en] the earlier occurrence itself [zh] 前一次出现的位置本身

checks.check_induction_score(induction_score_first_try)


# %% [markdown] lang="en"
# **Your turn.** Write `induction_score` below and run the cell (until you do, the checker reports the
# `NotImplementedError`; that is expected).

# %% [markdown] lang="zh"
# **轮到你了。** 在下面写出 `induction_score` 并运行（写好之前，检查器会报告 `NotImplementedError`，这是正常的）。

# %%
def induction_score(w, half):
    """[en] w (T, T) weights of one head on `half` tokens repeated twice -> mean weight on key t - half + 1.
    [zh] w：一个头在重复两遍的 `half` 个 token 上的 (T, T) 权重 -> Key t - half + 1 上的平均权重。"""
    raise NotImplementedError("[en]average w[t, t - half + 1] over t = half .. 2 * half - 1[zh]对 t = half .. 2 * half - 1 求 w[t, t - half + 1] 的平均")

checks.check_induction_score(induction_score)

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def induction_score(w, half):
#     q = np.arange(half, 2 * half)              # queries of the second copy
#     return w[q, q - half + 1].mean()           # keys right after the earlier occurrence
# ```
# </details>
#
# The library's own function passes the same checker:

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def induction_score(w, half):
#     q = np.arange(half, 2 * half)              # 第二遍的 Query
#     return w[q, q - half + 1].mean()           # 紧跟在前一次出现之后的 Key
# ```
# </details>
#
# 库里自带的函数也通过同一个检查器：

# %%
checks.check_induction_score(experiments.induction_score)

# %% [markdown] lang="en"
# ## Summary
#
# The measured figures of this notebook, computed again here from the committed weights:

# %% [markdown] lang="zh"
# ## 小结
#
# 本节量到的数字，在这里用提交的权重重新算一遍：

# %%
m = induction.manifest["metrics"]
print(f"[en]induction model: best previous-token score {scores['previous'].max():.2f} (L0H{prev_head}), best induction score {scores['induction'].max():.2f} (L1H{ind_head}); repeated-half loss {base:.2f} nats[zh]induction 模型：最高的“前一个 token”得分 {scores['previous'].max():.2f}（L0H{prev_head}），最高的 induction 得分 {scores['induction'].max():.2f}（L1H{ind_head}）；重复那一半上的损失 {base:.2f} nats")
print("[en]  ablation (loss on the repeated half):[zh]  关掉头（重复那一半上的损失）：", ", ".join(f"{r['ablated']} {r['loss']:.2f}" for r in rows))
for lang in ("en", "zh"):
    a = experiments.twin_accuracy(coref, lang)
    print(f"[en]coreference, held-out twins, {lang}: {a['accuracy']:.1%} of {a['sentences']} sentences[zh]指代模型，留作测试的孪生句，{lang}：{a['sentences']} 个句子中答对 {a['accuracy']:.1%}")
for word, s in sims.items():
    print(f"[en]{word}: cosine same / other sense: embedding {s['same'][0]:.2f} / {s['other'][0]:.2f}, [zh]{word}：同一 / 另一词义的余弦：嵌入层 {s['same'][0]:.2f} / {s['other'][0]:.2f}，"
          + "[en], [zh]，".join(f"[en]layer {i} {a:.3f} / {b:.3f}[zh]第 {i} 层 {a:.3f} / {b:.3f}" for i, (a, b) in enumerate(zip(s['same'][1:], s['other'][1:]), 1)))
print("[en]manifests agree with what was measured:[zh]manifest 与实测结果一致：", np.isclose(m["best_induction_score"], scores["induction"].max(), atol=1e-4),
      coref.manifest["metrics"]["test_pronoun_zh"] == experiments.twin_accuracy(coref, "zh")["accuracy"])

# %% [markdown] lang="en"
# - A **Transformer block** is pre-LN attention and a feed-forward layer, each added to a residual stream:
#   $x + \text{MHA}(\text{LN}(x))$, then $x + \text{FFN}(\text{LN}(x))$. `tr.decoder_forward` returns the logits and
#   every attention map $(L, H, T, T)$, and equals the torch model that was trained.
# - **Heads are learned, not designed.** Trained only to predict the next letter, the induction model grew one
#   previous-token head in layer 0 (score 0.73) and four induction heads in layer 1 (0.58–0.76). Ablation shows the
#   division of labour: the previous-token head is essential (loss 0.59 → 4.00), the other layer-0 heads are
#   redundant (< 0.04), the induction heads back each other up.
# - The coreference model resolves the pronoun on **all held-out Winograd twins**, English and Chinese (100%; target
#   95%), and the twin flip shows in its attention, though its route is its own and changes between sentences.
# - **Context changes the representation**: *bank* / 银行 are identical at the embedding and separate by sense after
#   each layer (other-sense cosine 0.17 / 0.22 after the last layer, same sense above 0.99).
# - **A weight is not an explanation**: *tired* gets weight 0.00 in the head that fetches the answer, yet removing it
#   flips the answer; *animal* gets 0.99, yet removing it barely moves the prediction.
#
# **What was tried and what did not work.** With feed-forward layers in the induction model, 3000 steps gave a low
# loss without clean heads (no head above 0.24 on either score: a bag-of-tokens solution), so that model is attention-only. Training
# it on every one of its 24 positions (sequences of 25 tokens) grew a different circuit: layer-0 heads that find the
# earlier occurrence of the same token, and no previous-token head; the committed run reads 23 tokens and grew the
# textbook pair. The coreference model with 4 heads reached 100% as well, but its attention on the answer was spread
# more thinly (best head 0.57 on average); 2 heads gave clearer heads. `make train` took 37 s (induction) and 18 s
# (coreference) on a quiet 2-core machine, and 110 s for both while other jobs shared the two cores.
#
# **Back to:** [06 · Multi-head attention](06_multi_head_attention.ipynb) (designed heads and ablation) and
# [11 · Review](11_review.ipynb) (the concept map).

# %% [markdown] lang="zh"
# - **Transformer 块** 就是 pre-LN 的注意力和前馈层，各自加回残差信息流：先 $x + \text{MHA}(\text{LN}(x))$，再 $x + \text{FFN}(\text{LN}(x))$。
#   `tr.decoder_forward` 返回 logits 和所有注意力图 $(L, H, T, T)$，与训练用的 torch 模型结果一致。
# - **头的分工是学出来的，不是设计出来的。** 只被训练去预测下一个字母，induction 模型就在第 0 层长出了一个“前一个 token”头（得分 0.73），
#   在第 1 层长出了四个 induction head（0.58–0.76）。消融实验揭示了分工：“前一个 token”头必不可少（损失 0.59 → 4.00），第 0 层其余的头是冗余的
#   （变化不到 0.04），induction head 之间互为备份。
# - 指代模型在**全部测试用的 Winograd 孪生句**上都正确解析了代词，中英文都是（100%，目标 95%）；孪生句的翻转也体现在它的注意力里，
#   只是它走的是自己的路线，而且随句子而变。
# - **上下文改变表示**：*bank* / 银行在嵌入层完全相同，每过一层就按词义分开一些（最后一层之后，不同词义之间的余弦为 0.17 / 0.22，同一词义高于 0.99）。
# - **权重不等于解释**：*tired* 在取回答案的那个头里权重为 0.00，去掉它答案却翻转了；*animal* 拿到 0.99，去掉它预测却几乎不动。
#
# **尝试过什么、哪些没成功。** induction 模型带前馈层时，训练 3000 步损失很低，却没有长出清晰的头（没有哪个头的任一得分超过 0.24：学到的是“数一数出现过哪些 token”
# 的解法），所以这个模型只用注意力。让它在全部 24 个位置上训练（序列长 25）时，长出的是另一种电路：第 0 层的头去找同一个 token 上一次出现的位置，
# 而没有“前一个 token”头；提交的这次训练读入 23 个 token，长出了教科书里的那一对。指代模型用 4 个头时也达到 100%，但落在答案上的注意力摊得更薄
# （最好的头平均只有 0.57）；用 2 个头，头的分工更清楚。`make train` 在一台空闲的 2 核机器上用时 37 秒（induction）和 18 秒（指代）；两个核同时被其他任务占用时，两个模型合计用了 110 秒。
#
# **回到：** [06 · 多头注意力](06_multi_head_attention.ipynb)（设计出来的头与消融）和 [11 · 总复习](11_review.ipynb)（概念图）。
