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
# # 13 · Build your own GPT
#
# So far you have measured attention: a softmax here, a mask there, the heads of a model someone else trained. This
# notebook puts the pieces together. You will turn the course's own prose into tokens, write every part of a small
# GPT in torch (layer norm, the feed-forward layer, the block, the whole decoder, generation with a KV cache), check
# each part against the library, prove that your model *is* the model of notebook 12 by loading its weights, train it
# live on the CPU, let it write, and open it up with notebook 12's tools.
#
# **After this notebook you will be able to**
# - tokenize text by characters, apply byte-pair merges by hand, and say why context windows are counted in tokens;
# - write layer norm, the feed-forward layer, a pre-LN Transformer block and a GPT forward pass that match the library to
#   $10^{-8}$, and generation with a KV cache whose greedy output equals recomputing everything;
# - train the model you wrote with your own training step, and judge a validation loss against a bigram baseline;
# - find a previous-token head and an induction head in your own trained model, at every position of its context;
# - ablate its heads four ways, reporting the method beside each number, read and run one activation patch through a hook point, and
#   say what each measurement shows.
#
# **What you should know first:** the block and the decoder as notebook 12 shows them
# ([12 · Attention inside a trained Transformer](12_trained_transformer.ipynb)), multi-head attention
# ([06 · Multi-head attention](06_multi_head_attention.ipynb)) and the KV cache
# ([09 · Cost and the context window](09_cost_and_context_window.ipynb)). *About 160 minutes, best in two sittings: build and train, then look inside.*

# %% [markdown] lang="zh"
# # 13 · 亲手搭一个 GPT
#
# 到目前为止，我们一直在“量”注意力：这里一个 softmax，那里一个掩码，再看看别人训练好的模型里的头。本节要把这些零件拼起来。
# 你将把本课程自己的文字切成 token，用 torch 写出一个小 GPT 的每一个部分（层归一化、前馈网络、Transformer 块、整个解码器、带 KV 缓存的生成），
# 把每一部分都和库里的实现对一对；再把 12 节模型的权重装进你的模型，证明它**就是**那个模型；然后在 CPU 上现场训练它，
# 让它自己写点东西，再用 12 节的工具打开它看看。
#
# **学完本节，你将能够**
# - 按字符给文本分词，手工做几次字节对合并（byte-pair merge），并说明为什么上下文窗口是按 token 计数的；
# - 写出与库里结果相差不超过 $10^{-8}$ 的层归一化、前馈网络、前置层归一化（pre-LN）Transformer 块和 GPT 前向计算，以及带 KV 缓存的生成，
#   其贪心输出与每步全部重算完全相同；
# - 用你自己写的训练步训练你写的模型，并以二元模型（bigram）为基线评价验证集损失；
# - 在你自己训练的模型里，在上下文的每一个位置上找到“前一个 token”头和 induction head；
# - 用四种方法消融它的头，每个数旁边写明方法；读懂并运行一次经过钩子点的激活修补，并说出每种测量说明了什么。
#
# **需要的基础**：12 节讲的 Transformer 块和解码器（见 [12 · 训练好的 Transformer 里的注意力](12_trained_transformer.ipynb)）、
# 多头注意力（见 [06 · 多头注意力](06_multi_head_attention.ipynb)）和 KV 缓存（见 [09 · 计算代价与上下文窗口](09_cost_and_context_window.ipynb)）。*约 160 分钟，最好分两次学：先搭零件并训练，再打开模型看看。*

# %%
LANG = "[en]en[zh]zh"  # [en] language of this edition: "en" or "zh" [zh] 本版本的语言："en" 或 "zh"
# %matplotlib inline

import numpy as np
import torch

import attention_core as ac
from attention_core.core import transformer as tr
from attention_core.labs.nb12_trained_transformer import experiments as nb12
from attention_core.labs.nb12_trained_transformer import load_trained
from attention_core.labs.nb12_trained_transformer import widgets as nb12_widgets
from attention_core.labs.nb13_build_a_gpt import checks, corpus, experiments, figures, pieces, training
from attention_core.teaching import i18n, quiz
from attention_core.teaching.tables import display_width, pad

i18n.set_language(LANG)
rng = np.random.default_rng(0)  # [en] every random number in this notebook comes from a seed [zh] 本节里的每个随机数都来自一个种子
torch.manual_seed(0)
torch.set_num_threads(1)        # [en] one thread: the same sums in the same order on every run [zh] 单线程：每次运行都按同样的顺序做同样的加法
np.set_printoptions(precision=3, suppress=True)
LANG_NAME = {"en": "[en]English[zh]英文", "zh": "[en]Chinese[zh]中文"}
parts = pieces.Parts()  # [en] the pieces later cells run on: yours once they pass their check, the library's until then [zh] 后面单元格用的零件：你的零件通过检查后就用你的，在此之前用库里的
text = corpus.load_corpus()     # [en] the course's own prose, both languages (package data) [zh] 本课程自己的文字，两种语言（包里的数据）
chars = corpus.vocabulary(text)  # [en] every character of both languages, sorted [zh] 两种语言的所有字符，已排序
stoi = {c: i for i, c in enumerate(chars)}  # [en] character -> id [zh] 字符 -> id
print(f"[en]course text: {text['chars']['en']:,} English and {text['chars']['zh']:,} Chinese characters, {len(chars):,} distinct characters[zh]课程文字：英文 {text['chars']['en']:,} 个字符，中文 {text['chars']['zh']:,} 个字符，共 {len(chars):,} 种不同的字符")
kinds = {lang: set(text[lang]) for lang in ("en", "zh")}   # [en] the distinct characters of each language [zh] 每种语言用到的字符
han = sum("\u4e00" <= c <= "\u9fff" for c in kinds["zh"])
print(f"[en]distinct characters: English {len(kinds['en'])}, Chinese {len(kinds['zh']):,} ({len(kinds['zh']) / len(kinds['en']):.1f} times as many; {han:,} of them Chinese characters)[zh]用到的字符：英文 {len(kinds['en'])} 种，中文 {len(kinds['zh']):,} 种（是英文的 {len(kinds['zh']) / len(kinds['en']):.1f} 倍，其中汉字 {han:,} 种）")

# %% [markdown] lang="en"
# ## Tokens: the course's own text
#
# A language model reads numbers, not letters. The simplest tokenizer gives every character an id: the vocabulary is the
# list of characters that occur, `chars`, and `stoi` maps a character to its position there. The text here is this
# course's own prose, the markdown of all its notebooks in both languages, exported into the package by a build step
# (`python -m attention_core.labs.nb13_build_a_gpt.corpus`, which `make train` runs). Over a thousand of its distinct
# characters are Chinese (counted above): a character tokenizer needs a big vocabulary for Chinese and a small one for English.
#
# **Exercise 1 · ★☆☆ · about 5 min.** Write `encode(text)`, a list with the id of each character, and `decode(ids)`,
# the text back. A character that is not in the vocabulary must raise an error that names it: a tokenizer that drops it
# silently loses text that no one will ever see again.

# %% [markdown] lang="zh"
# ## 把本课程的文字切成 token
#
# 语言模型读的是数字，不是文字。最简单的分词器（tokenizer）给每个字符一个 id：词表就是出现过的字符组成的列表 `chars`，`stoi` 把一个字符映射到它在
# 列表里的位置。这里用的文字是本课程自己的讲解，也就是各节的中英文 Markdown，由一个构建步骤导出到包里
# （`python -m attention_core.labs.nb13_build_a_gpt.corpus`，`make train` 会运行它）。
# 其中一千多种不同的字符是汉字（上面已经数过）：字符级分词器处理中文需要很大的词表，处理英文只要很小的词表。
#
# **练习 1 · ★☆☆ · 约 5 分钟**。写出 `encode(text)`，返回每个字符的 id 组成的列表；再写出 `decode(ids)`，把文字还原回来。词表里没有的字符必须抛出一个
# 错误，指明是哪个字符：悄悄把它丢掉的分词器，会丢失一段谁也不会再看到的文字。

# %%
def encode(text):
    """[en]text -> list of ids, one per character (stoi); an unknown character raises ValueError.[zh]text -> id 列表，每个字符一个 id（查 stoi）；遇到未知字符时抛出 ValueError。"""
    raise NotImplementedError("[en]look each character up in stoi, and raise ValueError for one that is missing[zh]在 stoi 里查每个字符；查不到的字符要抛出 ValueError")


def decode(ids):
    """[en]list of ids -> text (chars[i] for each id, joined).[zh]id 列表 -> text（把每个 id 的 chars[i] 连起来）。"""
    raise NotImplementedError("[en]join chars[i] for each id[zh]把每个 id 对应的 chars[i] 连起来")

checks.check_tokenizer(encode, decode)

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def encode(text):
#     out = []
#     for i, c in enumerate(text):
#         if c not in stoi:
#             raise ValueError(f"unknown character {c!r} at index {i}")
#         out.append(stoi[c])
#     return out
#
#
# def decode(ids):
#     return "".join(chars[i] for i in ids)
# ```
# </details>
#
# The cells below use your `encode` once it passes, and the library's `corpus.CharTokenizer` until then; they say which.

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def encode(text):
#     out = []
#     for i, c in enumerate(text):
#         if c not in stoi:
#             raise ValueError(f"未知字符 {c!r}（位置 {i}）")
#         out.append(stoi[c])
#     return out
#
#
# def decode(ids):
#     return "".join(chars[i] for i in ids)  # 直接连起来，不加分隔符
# ```
# </details>
#
# 下面的单元格在你的 `encode` 通过检查后就用它，在此之前用库里的 `corpus.CharTokenizer`；它们会说明用的是哪一个。

# %% [markdown] lang="en"
# ### A few merges by hand
#
# **Exercise 2 · ★★☆ · about 10 min**
#
# Byte-pair encoding (BPE) starts from characters and repeatedly replaces the most frequent adjacent pair by a new
# token. One step is `merge(ids, pair, new_id)`: scan left to right, and wherever `pair` occurs, emit `new_id` and skip
# both tokens, so merges never overlap (`merge([1, 1, 1], (1, 1), 9)` is `[9, 1]`).

# %% [markdown] lang="zh"
# ### 手工做几次合并
#
# **练习 2 · ★★☆ · 约 10 分钟**
#
# 字节对编码（BPE）从字符出发，一次又一次地把出现最多的相邻一对换成一个新 token。其中一步就是 `merge(ids, pair, new_id)`：从左往右扫，
# 遇到 `pair` 就输出 `new_id`，并跳过这一对的两个 token，所以合并不会重叠（`merge([1, 1, 1], (1, 1), 9)` 的结果是 `[9, 1]`）。

# %%
def merge(ids, pair, new_id):
    """[en]A new list: every occurrence of pair (a, b) in ids replaced by new_id, left to right, non-overlapping.[zh]一个新列表：ids 里每次出现的 pair (a, b) 都换成 new_id，从左往右，互不重叠。"""
    raise NotImplementedError("[en]left to right; two tokens merged into new_id are not looked at again[zh]从左往右；已经并进 new_id 的两个 token 不再参与匹配")

checks.check_bpe_merge(merge)

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def merge(ids, pair, new_id):
#     out, i = [], 0
#     while i < len(ids):
#         if i + 1 < len(ids) and (ids[i], ids[i + 1]) == tuple(pair):
#             out.append(new_id)
#             i += 2                      # skip both tokens of the pair
#         else:
#             out.append(ids[i])
#             i += 1
#     return out
# ```
# </details>
#
# Now 60 merges learned on a sample of both languages (`corpus.train_merges` calls `merge` once per merge), and the same
# paragraph counted in each language: in characters, in UTF-8 bytes, in character tokens and in tokens after the merges.

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def merge(ids, pair, new_id):
#     out, i = [], 0
#     while i < len(ids):
#         if i + 1 < len(ids) and (ids[i], ids[i + 1]) == tuple(pair):
#             out.append(new_id)
#             i += 2                      # 跳过这一对的两个 token
#         else:
#             out.append(ids[i])
#             i += 1
#     return out
# ```
# </details>
#
# 下面在两种语言的一段样本上学 60 次合并（`corpus.train_merges` 每次合并调用一次 `merge`），再把同一段话在两种语言里各数一遍：
# 字符数、UTF-8 字节数、字符级 token 数，以及合并之后的 token 数。

# %%
tok = corpus.CharTokenizer(chars)
mine = checks.check_tokenizer(encode, decode).passed
enc = encode if mine else tok.encode
use_merge = merge if checks.check_bpe_merge(merge).passed else corpus.merge
print("[en]encode in use: [zh]正在使用的 encode：", "[en]yours[zh]你的" if mine else "[en]the library's (corpus.CharTokenizer)[zh]库里的（corpus.CharTokenizer）",
      "[en] | merge in use: [zh] | 正在使用的 merge：", "[en]yours[zh]你的" if use_merge is merge else "[en]the library's (corpus.merge)[zh]库里的（corpus.merge）", sep="")
sample = enc(text["en"][:12000] + text["zh"][:6000])
merges = corpus.train_merges(sample, 60, len(chars), merge_fn=use_merge)
pieces_of = {i: c for i, c in enumerate(chars)}
for (a, b), new in merges:
    pieces_of[new] = pieces_of[a] + pieces_of[b]
print("[en]the first 15 merges:[zh]前 15 次合并：", " | ".join(repr(pieces_of[new]) for _, new in merges[:15]))
para = {"en": next(p for p in text["en"].split("\n\n") if p.startswith("So far you have measured attention")),
        "zh": next(p for p in text["zh"].split("\n\n") if p.startswith("到目前为止，我们一直在“量”注意力"))}   # [en] this notebook's opening paragraph [zh] 本节开头的那一段
head = ("[en]characters[zh]字符", "[en]UTF-8 bytes[zh]UTF-8 字节", "[en]char tokens[zh]字符 token", "[en]after 60 merges[zh]60 次合并后")
print("\n" + " " * 6 + "".join(pad(h, 18, "right") for h in head))   # [en] pad counts a Chinese character as two columns [zh] pad 把一个汉字算作两列
for lang, p in para.items():
    ids = enc(p)
    counts = (len(p), len(p.encode("utf-8")), len(ids), len(corpus.apply_merges(ids, merges, use_merge)))
    print(pad(LANG_NAME[lang], 6) + "".join(f"{n:>18}" for n in counts))

# %% [markdown] lang="en"
# This notebook's opening paragraph needs about twice as many characters in English as in Chinese, yet a similar
# number of UTF-8 bytes: each Chinese character takes three. A model with a context of 64 tokens reads 64 characters of
# either language with this tokenizer. After merges, frequent pairs become one token each and the same window holds
# more text, but not equally: merges learned on a sample that is two thirds English shorten the English paragraph by
# about a third and the Chinese one hardly at all. Real tokenizers (GPT-2's has 50,257 tokens, learned on bytes of mostly
# English text) show the same bias at scale: how much text a window holds depends on the language the merges were
# learned on. **Context windows are counted in tokens, not in characters or
# words.** The model below keeps one token per character: simple, and every exercise stays readable.

# %% [markdown] lang="zh"
# 本节开头的那一段话，英文需要的字符数大约是中文的两倍，UTF-8 字节数却相差不多：每个汉字占三个字节。上下文为 64 个 token 的模型，用这个分词器时，
# 两种语言都只读 64 个字符。做了合并之后，常见的字符对各自变成一个 token，同样的窗口就能装下更多文字，但两种语言并不一样：
# 在三分之二是英文的样本上学到的合并，让英文段落短了大约三分之一，中文段落却几乎没变。真正的分词器规模大得多，也有同样的偏向：
# GPT-2 的词表有 50,257 个 token，主要是在英文文本的字节上学出来的。一个窗口能装多少文字，取决于学合并时用的是哪种语言。
# **上下文窗口按 token 计数，而不是按字符或单词**。下面的模型仍然是一个字符一个 token：简单，而且每个练习都清楚易读。

# %% [markdown] lang="en"
# ## The pieces
#
# Each piece below takes and returns **torch tensors**, so that the same functions can be trained later (torch follows
# every operation and computes the gradients). The parameters come in the library's own structures
# (`tr.BlockParams`, `tr.DecoderParams`, with the flat names of `tr.parameter_shapes`), holding tensors: `block.ln1_g`,
# `block.attn.w_q`, `params.tok_emb`, … Each checker compares your piece with the library's in float64, to $10^{-8}$, on
# random inputs and on the weights of notebook 12's trained models, and names the usual mistakes. Notebook 12's
# coreference model is an encoder, trained without a mask; the checkers borrow its weights as realistic numbers and run
# them here under the causal mask, where they need not make sense, only agree with the library. A piece that passes is
# used by every later cell; until then the library's stands in, and `parts.report()` says which is which.
#
# ### Layer norm
#
# **Exercise 3 · ★☆☆ · about 5 min**
#
# $\text{LN}(x) = \dfrac{x - \mu}{\sqrt{\sigma^2 + \varepsilon}}\,\gamma + \beta$, with the mean $\mu$ and the **biased**
# variance $\sigma^2$ (divided by $D$) of each token's vector, over the last axis.

# %% [markdown] lang="zh"
# ## 零件
#
# 下面每个零件都接收并返回 **torch 张量**，这样同样的函数之后就能拿来训练（torch 会记下每一步运算并算出梯度）。参数放在库自己的结构里
# （`tr.BlockParams`、`tr.DecoderParams`，与 `tr.parameter_shapes` 里的扁平参数名一一对应），里面装的是张量：`block.ln1_g`、`block.attn.w_q`、
# `params.tok_emb` …… 每个检查器都在 float64 下把你的零件和库里的比较，容差 $10^{-8}$，用的是随机输入和 12 节训练好的模型的权重，
# 并会指出常见的错误。12 节的指代模型是编码器，训练时不加掩码；检查器只是借它的权重当作贴近实际的数字，在这里加上因果掩码来运行：
# 这样算出的结果不必有意义，只需与库里的一致。零件通过检查后，之后的每个单元格都会用它；在此之前由库里的零件顶上，`parts.report()` 会说明哪个是哪个。
#
# ### 层归一化
#
# **练习 3 · ★☆☆ · 约 5 分钟**
#
# $\text{LN}(x) = \dfrac{x - \mu}{\sqrt{\sigma^2 + \varepsilon}}\,\gamma + \beta$，其中 $\mu$ 和**有偏**方差 $\sigma^2$（除以 $D$）
# 是每个 token 的向量沿最后一个轴算出来的。

# %%
demo = pieces.torch_params(load_trained("coreference").params)   # [en] notebook 12's coreference encoder: its weights, as float64 tensors [zh] 12 节的指代编码器：只取它的权重，转成 float64 张量
block0 = demo.blocks[0]
print(type(demo).__name__, "[en]holds[zh]装的是", type(demo.tok_emb).__name__, demo.tok_emb.dtype, "| tok_emb", tuple(demo.tok_emb.shape),
      "| block0.attn.w_q", tuple(block0.attn.w_q.shape), "| block0.w_1", tuple(block0.w_1.shape), "[en]| heads[zh]| 头数", block0.attn.n_heads)
print(torch.as_tensor(ac.causal_mask(4)))                 # [en] the causal mask as a tensor, True = may attend [zh] 张量形式的因果掩码，True = 可以关注

# %%
def layer_norm(x, gamma, beta, eps=1e-5):
    """[en]x (..., D), gamma and beta (D,) tensors -> (..., D): normalised over the last axis, then scaled and shifted.[zh]x (..., D)，gamma 和 beta 是 (D,) 张量 -> (..., D)：沿最后一维归一化，再缩放和平移。"""
    raise NotImplementedError("[en]mean and biased variance over dim=-1 (keepdim=True); eps inside the square root[zh]沿 dim=-1 求均值和有偏方差（keepdim=True）；eps 放在根号里面")

checks.check_layer_norm(layer_norm, parts=parts)

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def layer_norm(x, gamma, beta, eps=1e-5):
#     mean = x.mean(-1, keepdim=True)
#     var = ((x - mean) ** 2).mean(-1, keepdim=True)    # biased: divided by D
#     return (x - mean) / torch.sqrt(var + eps) * gamma + beta
# ```
# </details>
#
# ### The feed-forward layer
#
# **Exercise 4 · ★☆☆ · about 5 min**
#
# $\text{FFN}(z) = \text{GELU}(z W_1 + b_1)\,W_2 + b_2$, the same two layers at every token. GELU comes in two forms; the
# library and GPT-2 use the tanh one, `torch.nn.functional.gelu(h, approximate="tanh")`.

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def layer_norm(x, gamma, beta, eps=1e-5):
#     mean = x.mean(-1, keepdim=True)
#     var = ((x - mean) ** 2).mean(-1, keepdim=True)    # 有偏方差：除以 D
#     return (x - mean) / torch.sqrt(var + eps) * gamma + beta
# ```
# </details>
#
# ### 前馈网络
#
# **练习 4 · ★☆☆ · 约 5 分钟**
#
# $\text{FFN}(z) = \text{GELU}(z W_1 + b_1)\,W_2 + b_2$，每个 token 用的都是同样的两层。GELU 有两种写法；库和 GPT-2 用的是 tanh 形式，
# 即 `torch.nn.functional.gelu(h, approximate="tanh")`。

# %%
def feed_forward(x, w_1, b_1, w_2, b_2):
    """x (..., T, D), w_1 (D, F), b_1 (F,), w_2 (F, D), b_2 (D,) -> (..., T, D)."""
    raise NotImplementedError("[en]GELU (tanh form) of x @ w_1 + b_1, then @ w_2 + b_2[zh]先算 x @ w_1 + b_1 的 GELU（tanh 形式），再 @ w_2 + b_2")

checks.check_feed_forward(feed_forward, parts=parts)

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def feed_forward(x, w_1, b_1, w_2, b_2):
#     hidden = torch.nn.functional.gelu(x @ w_1 + b_1, approximate="tanh")   # (..., T, F)
#     return hidden @ w_2 + b_2
# ```
# </details>
#
# ### The block
#
# **Exercise 5 · ★★☆ · about 10 min**
#
# Pre-LN, as in GPT-2: $x \leftarrow x + \text{MHA}(\text{LN}_1(x))$, then $x \leftarrow x + \text{FFN}(\text{LN}_2(x))$.
# Call the layer norm and feed-forward through `parts` (`parts.layer_norm`, `parts.feed_forward`): yours once they pass.
# The multi-head attention in between is the one of notebook 06, with the mask of notebook 04; here it is
# `pieces.self_attention(h, block.attn, mask)` -> `(output, weights (..., H, T, T))`, the library's `multi_head_attention`
# computed in torch (it splits the heads, scales by $1/\sqrt{d_k}$, applies the mask, the softmax and $W_O$, as you wrote
# them in 02–06). Pass the `mask` you are given: the checker also tries a padding mask.

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def feed_forward(x, w_1, b_1, w_2, b_2):
#     hidden = torch.nn.functional.gelu(x @ w_1 + b_1, approximate="tanh")   # (..., T, F)
#     return hidden @ w_2 + b_2
# ```
# </details>
#
# ### Transformer 块
#
# **练习 5 · ★★☆ · 约 10 分钟**
#
# 和 GPT-2 一样用前置层归一化（pre-LN）：先 $x \leftarrow x + \text{MHA}(\text{LN}_1(x))$，再 $x \leftarrow x + \text{FFN}(\text{LN}_2(x))$。
# 层归一化和前馈网络请通过 `parts` 调用（`parts.layer_norm`、`parts.feed_forward`）：它们一旦通过检查，用的就是你写的。
# 中间的多头注意力就是 06 节的那个，配上 04 节的掩码；这里用 `pieces.self_attention(h, block.attn, mask)`，返回
# `(output, weights (..., H, T, T))`，它是库里的 `multi_head_attention` 用 torch 算的版本（拆分多头、乘以 $1/\sqrt{d_k}$、加掩码、
# softmax 和 $W_O$，和你在 02–06 节写的一样）。请把传进来的 `mask` 传下去：检查器还会试一个填充掩码。

# %%
def transformer_block(x, block, mask):
    """[en]x (..., T, D); block a tr.BlockParams of tensors; mask (T, T) boolean, True = may attend.
    Returns (x_out (..., T, D), weights (..., H, T, T)).
    [zh]x (..., T, D)；第二个参数是由张量组成的 tr.BlockParams；第三个参数是 (T, T) 布尔掩码，True = 可以关注。
    返回 (x_out (..., T, D), weights (..., H, T, T))。"""
    raise NotImplementedError("[en]x + attention of LN1(x); then x + feed-forward of LN2(x)[zh]先 x + 注意力(LN1(x))，再 x + 前馈网络(LN2(x))")

checks.check_transformer_block(transformer_block, parts=parts)

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def transformer_block(x, block, mask):
#     h = parts.layer_norm(x, block.ln1_g, block.ln1_b)
#     attn_out, weights = pieces.self_attention(h, block.attn, mask)
#     x = x + attn_out                                                  # residual 1
#     h = parts.layer_norm(x, block.ln2_g, block.ln2_b)
#     x = x + parts.feed_forward(h, block.w_1, block.b_1, block.w_2, block.b_2)   # residual 2
#     return x, weights
# ```
# </details>
#
# ### The whole GPT
#
# **Exercise 6 · ★★☆ · about 15 min**
#
# $x_0 = E_{tok}[\text{ids}] + E_{pos}[0..T-1]$, then the $L$ blocks with the causal mask, the final layer norm and the
# unembedding: $\text{logits} = \text{LN}_f(x)\,W_{out} + b_{out}$. Return the logits and every attention map, stacked
# to $(L, H, T, T)$ (with a batch, $(B, L, H, T, T)$). `ac.causal_mask(T)` is a NumPy array: `torch.as_tensor` turns it
# into a tensor.

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def transformer_block(x, block, mask):
#     h = parts.layer_norm(x, block.ln1_g, block.ln1_b)
#     attn_out, weights = pieces.self_attention(h, block.attn, mask)
#     x = x + attn_out                                                  # 残差 1
#     h = parts.layer_norm(x, block.ln2_g, block.ln2_b)
#     x = x + parts.feed_forward(h, block.w_1, block.b_1, block.w_2, block.b_2)   # 残差 2
#     return x, weights
# ```
# </details>
#
# ### 整个 GPT
#
# **练习 6 · ★★☆ · 约 15 分钟**
#
# $x_0 = E_{tok}[\text{ids}] + E_{pos}[0..T-1]$，然后是带因果掩码的 $L$ 个块、最后的层归一化和反嵌入（unembedding）：
# $\text{logits} = \text{LN}_f(x)\,W_{out} + b_{out}$。返回 logits 和所有注意力图，叠成 $(L, H, T, T)$（有批量维度时是 $(B, L, H, T, T)$）。
# `ac.causal_mask(T)` 是 NumPy 数组，用 `torch.as_tensor` 把它变成张量。

# %%
def gpt_forward(params, ids):
    """[en]params a tr.DecoderParams of tensors; ids (T,) or (B, T) int64.
    Returns (logits (..., T, V), weights (..., L, H, T, T)).
    [zh]params 是由张量组成的 tr.DecoderParams；ids 是 (T,) 或 (B, T) 的 int64。
    返回 (logits (..., T, V), weights (..., L, H, T, T))。"""
    raise NotImplementedError("[en]embed + positions, parts.transformer_block for each block with the causal mask, final LN, @ w_out + b_out[zh]token 嵌入加位置编码，每个块用 parts.transformer_block 并传入因果掩码，最后做层归一化，再 @ w_out + b_out")

checks.check_gpt_forward(gpt_forward, parts=parts)

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def gpt_forward(params, ids):
#     ids = torch.as_tensor(ids)
#     t = ids.shape[-1]
#     x = params.tok_emb[ids] + params.pos_emb[:t]                # (..., T, D)
#     mask = torch.as_tensor(ac.causal_mask(t))                   # (T, T), True = may attend
#     maps = []
#     for block in params.blocks:
#         x, w = parts.transformer_block(x, block, mask)          # w (..., H, T, T)
#         maps.append(w)
#     logits = parts.layer_norm(x, params.lnf_g, params.lnf_b) @ params.w_out + params.b_out
#     return logits, torch.stack(maps, dim=-4)                    # (..., L, H, T, T)
# ```
# </details>

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def gpt_forward(params, ids):
#     ids = torch.as_tensor(ids)
#     t = ids.shape[-1]
#     x = params.tok_emb[ids] + params.pos_emb[:t]                # (..., T, D)
#     mask = torch.as_tensor(ac.causal_mask(t))                   # (T, T)，True = 可以关注
#     maps = []
#     for block in params.blocks:
#         x, w = parts.transformer_block(x, block, mask)          # w (..., H, T, T)
#         maps.append(w)
#     logits = parts.layer_norm(x, params.lnf_g, params.lnf_b) @ params.w_out + params.b_out
#     return logits, torch.stack(maps, dim=-4)                    # (..., L, H, T, T)
# ```
# </details>

# %% [markdown] lang="en"
# ### Generation with a KV cache
#
# **Exercise 7 · ★★★ · about 20 min**
#
# To write, the model predicts the next token, appends it, and goes again. Recomputing the whole sequence at every step
# repeats work: in a causal model the keys and values of earlier tokens never change (notebook 09). So run the prompt
# once, keep each layer's keys and values, and from then on run **only the new token**: at position $t$ it gets
# `pos_emb[t]`, its query attends to the cached keys plus its own, and its key and value join the cache.
#
# `generate(params, ids, n_new, temperature=0.0, top_k=None, seed=0)` returns the prompt followed by `n_new` new ids.
# Temperature 0 is greedy (the argmax). Otherwise divide the logits by the temperature, keep the `top_k` largest (the
# others become $-\infty$), and draw with `torch.multinomial(probs, 1, generator=g)` from one
# `g = torch.Generator().manual_seed(seed)`, so a seed always gives the same text. The tools: `ac.split_heads` and
# `ac.merge_heads` (06), `ac.scaled_dot_product_attention(q, k, v, mask=...)` (02; tensors in, tensors out) and
# `ac.causal_mask(t_new, t_past + t_new, offset=t_past)` (04) for queries that come after the cache. The checker compares
# your greedy output with recomputing everything, up to the full context.

# %% [markdown] lang="zh"
# ### 用 KV 缓存生成
#
# **练习 7 · ★★★ · 约 20 分钟**
#
# 模型要“写”，就要预测下一个 token，把它接上，再继续。每一步都把整个序列重算一遍是在重复劳动：在因果模型里，前面 token 的 Key 和 Value
# 永远不会变（09 节）。所以先把提示词跑一遍，保存每一层的 Key 和 Value，之后**只跑新 token**：它在位置 $t$ 上用 `pos_emb[t]`，它的 Query
# 对缓存里的 Key 加上它自己的 Key 做注意力，然后它的 Key 和 Value 也放进缓存。
#
# `generate(params, ids, n_new, temperature=0.0, top_k=None, seed=0)` 返回提示词加上 `n_new` 个新 id。温度为 0 时是贪心解码（取 argmax）。
# 否则把 logits 除以温度，只保留最大的 `top_k` 个（其余设为 $-\infty$），再用同一个 `g = torch.Generator().manual_seed(seed)` 调用
# `torch.multinomial(probs, 1, generator=g)` 抽样，这样同一个种子总能得到同样的文字。可用的工具：`ac.split_heads` 和 `ac.merge_heads`
# （06 节）、`ac.scaled_dot_product_attention(q, k, v, mask=...)`（02 节；输入张量，输出也是张量），以及给排在缓存之后的 Query 用的
# `ac.causal_mask(t_new, t_past + t_new, offset=t_past)`（04 节）。检查器会把你的贪心输出和每步全部重算的结果比较，一直比到上下文用满。

# %%
def generate(params, ids, n_new, temperature=0.0, top_k=None, seed=0):
    """[en]The prompt ids followed by n_new generated ids (a list), through a KV cache.[zh]提示词的 id 后面接上 n_new 个生成的 id（一个列表），用 KV 缓存来生成。"""
    raise NotImplementedError("[en]run the prompt once keeping each layer's (K, V); then one token at a time: its position, its query against the cache[zh]先把提示词跑一遍并保存每层的 (K, V)；然后一次一个 token：用它自己的位置，让它的 Query 对缓存做注意力")

checks.check_generate(generate, parts=parts)

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def generate(params, ids, n_new, temperature=0.0, top_k=None, seed=0):
#     g = torch.Generator().manual_seed(seed)
#     out = list(ids)
#     cache = [None] * len(params.blocks)             # per layer: (K, V), each (H, T_past, Dh)
#
#     def step(new):                                  # run only the new tokens; returns their logits
#         t0 = 0 if cache[0] is None else cache[0][0].shape[-2]
#         x = params.tok_emb[torch.tensor(new)] + params.pos_emb[t0:t0 + len(new)]
#         mask = torch.as_tensor(ac.causal_mask(len(new), t0 + len(new), offset=t0))
#         for i, b in enumerate(params.blocks):
#             a, h = b.attn, b.attn.n_heads
#             z = parts.layer_norm(x, b.ln1_g, b.ln1_b)
#             q = ac.split_heads(z @ a.w_q + a.b_q, h)
#             k = ac.split_heads(z @ a.w_k + a.b_k, h)
#             v = ac.split_heads(z @ a.w_v + a.b_v, h)
#             if cache[i] is not None:                # the keys and values seen so far
#                 k = torch.cat([cache[i][0], k], dim=-2)
#                 v = torch.cat([cache[i][1], v], dim=-2)
#             cache[i] = (k, v)
#             heads, _ = ac.scaled_dot_product_attention(q, k, v, mask=mask)
#             x = x + ac.merge_heads(heads) @ a.w_o + a.b_o
#             x = x + parts.feed_forward(parts.layer_norm(x, b.ln2_g, b.ln2_b), b.w_1, b.b_1, b.w_2, b.b_2)
#         return parts.layer_norm(x, params.lnf_g, params.lnf_b) @ params.w_out + params.b_out
#
#     with torch.no_grad():
#         logits = step(out)
#         for i in range(n_new):
#             last = logits[-1]
#             if temperature == 0:
#                 nxt = int(torch.argmax(last))
#             else:
#                 last = last / temperature
#                 if top_k is not None:
#                     kth = torch.topk(last, top_k).values[-1]
#                     last = last.masked_fill(last < kth, float("-inf"))
#                 nxt = int(torch.multinomial(torch.softmax(last, -1), 1, generator=g))
#             out.append(nxt)
#             if i < n_new - 1:
#                 logits = step([nxt])
#     return out
# ```
# </details>
#
# The pieces the cells below run on:

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def generate(params, ids, n_new, temperature=0.0, top_k=None, seed=0):
#     g = torch.Generator().manual_seed(seed)
#     out = list(ids)
#     cache = [None] * len(params.blocks)             # 每层一份 (K, V)，形状都是 (H, T_past, Dh)
#
#     def step(new):                                  # 只跑新 token，返回它们的 logits
#         t0 = 0 if cache[0] is None else cache[0][0].shape[-2]
#         x = params.tok_emb[torch.tensor(new)] + params.pos_emb[t0:t0 + len(new)]
#         mask = torch.as_tensor(ac.causal_mask(len(new), t0 + len(new), offset=t0))
#         for i, b in enumerate(params.blocks):
#             a, h = b.attn, b.attn.n_heads
#             z = parts.layer_norm(x, b.ln1_g, b.ln1_b)
#             q = ac.split_heads(z @ a.w_q + a.b_q, h)
#             k = ac.split_heads(z @ a.w_k + a.b_k, h)
#             v = ac.split_heads(z @ a.w_v + a.b_v, h)
#             if cache[i] is not None:                # 之前见过的 Key 和 Value
#                 k = torch.cat([cache[i][0], k], dim=-2)
#                 v = torch.cat([cache[i][1], v], dim=-2)
#             cache[i] = (k, v)
#             heads, _ = ac.scaled_dot_product_attention(q, k, v, mask=mask)
#             x = x + ac.merge_heads(heads) @ a.w_o + a.b_o
#             x = x + parts.feed_forward(parts.layer_norm(x, b.ln2_g, b.ln2_b), b.w_1, b.b_1, b.w_2, b.b_2)
#         return parts.layer_norm(x, params.lnf_g, params.lnf_b) @ params.w_out + params.b_out
#
#     with torch.no_grad():
#         logits = step(out)
#         for i in range(n_new):
#             last = logits[-1]
#             if temperature == 0:
#                 nxt = int(torch.argmax(last))
#             else:
#                 last = last / temperature
#                 if top_k is not None:
#                     kth = torch.topk(last, top_k).values[-1]
#                     last = last.masked_fill(last < kth, float("-inf"))
#                 nxt = int(torch.multinomial(torch.softmax(last, -1), 1, generator=g))
#             out.append(nxt)
#             if i < n_new - 1:
#                 logits = step([nxt])
#     return out
# ```
# </details>
#
# 下面的单元格用的零件：

# %%
print(parts.report())

# %% [markdown] lang="en"
# ## It is the real thing
#
# Your `gpt_forward` has the library's signature and reads the library's structures, so it can run a model that was
# trained elsewhere (until yours passes, the library's runs here, and the cell's labels say so). Load notebook 12's
# trained induction model into it (float32 tensors), run it on notebook 12's 200
# fresh repeated sequences, and compare with the library's NumPy forward: the logits and every attention map should
# agree to about $10^{-5}$ (the rounding of float32), and the heads should show the same previous-token and induction
# scores, measured with notebook 12's `previous_token_score` and `induction_score`. (These match the scores of the
# library's maps on the same sequences; notebook 12's own head table scores repeats at random places, so its numbers
# differ a little.)

# %% [markdown] lang="zh"
# ## 它就是那个模型
#
# 你的 `gpt_forward` 用的是库的函数签名，读的是库的结构，所以它也能运行别处训练出来的模型（你的通过检查之前，这里运行的是库里的，
# 单元格打印的标签会写明）。把 12 节训练好的 induction 模型装进去
# （float32 张量），在 12 节那 200 条新的重复随机序列上运行，再与库里的 NumPy 前向计算比较：logits 和每一张注意力图应当相差不超过约 $10^{-5}$
# （这是 float32 的舍入误差），各个头也应当给出同样的“前一个 token”得分和 induction 得分（用 12 节的 `previous_token_score` 和
# `induction_score` 来量）。这里的“同样”是与库算出的注意力图在这批序列上比；12 节自己的头得分表是在重复片段位置随机的序列上量的，
# 所以那里的数字会略有不同。

# %%
model12 = load_trained("induction")                        # [en] notebook 12's model, trained by `make train` [zh] 12 节的模型，由 `make train` 训练
p12 = pieces.torch_params(model12.params, dtype="float32")  # [en] the same weights, as tensors in DecoderParams [zh] 同样的权重，装进 DecoderParams 的张量
seqs = nb12.eval_sequences()                                # [en] (200, 22): 11 random letters, twice [zh] (200, 22)：11 个随机字母，连写两遍
with torch.no_grad():
    logits_mine, w_mine = parts.gpt_forward(p12, torch.as_tensor(seqs))
logits_lib, w_lib = model12.forward(seqs)                   # [en] the library's NumPy forward [zh] 库里的 NumPy 前向计算
print(parts.report())
FORWARD = parts.label("gpt_forward")                        # [en] whose gpt_forward ran: "gpt_forward (yours)" or "(the library's)" [zh] 运行的是谁的 gpt_forward：“（你的）”或“（库里的）”
d_logits, d_maps = np.abs(logits_mine.numpy() - logits_lib).max(), np.abs(w_mine.numpy() - w_lib).max()
# [en] a bound, not the exact value: float32 rounding differs from one CPU to another; a value over it is printed
# [zh] 打印的是上界而不是精确值：float32 的舍入在不同的 CPU 上不一样；超过上界时才打印具体的值
shown = ["< 1e-5" if d < 1e-5 else f"{d:.1e} (> 1e-5)" for d in (d_logits, d_maps)]
print(f"[en]largest difference: logits {shown[0]}, attention maps {shown[1]}[zh]最大差：logits {shown[0]}，注意力图 {shown[1]}")
half = seqs.shape[1] // 2
prev_mine = nb12.previous_token_score(w_mine.numpy()).mean(axis=0)          # (L, H)
ind_mine = nb12.induction_score(w_mine.numpy(), half).mean(axis=0)          # (L, H)
prev_lib = nb12.previous_token_score(w_lib).mean(axis=0)                    # [en] the same, from the library's maps [zh] 同一个得分，由库里的注意力图算出
ind_lib = nb12.induction_score(w_lib, half).mean(axis=0)
print()
print(f"[en]previous-token score, {FORWARD}[zh]“前一个 token”得分，{FORWARD}")
print(nb12.head_table(prev_mine))
print()
print(f"[en]induction score, {FORWARD}[zh]induction 得分，{FORWARD}")
print(nb12.head_table(ind_mine))
print()
same = (np.allclose(prev_mine, prev_lib, atol=1e-5), np.allclose(ind_mine, ind_lib, atol=1e-5))
print(f"[en]the same scores as from the library's maps: {same[0]} {same[1]}[zh]与库里的注意力图算出的得分相同：{same[0]} {same[1]}")

# %% [markdown] lang="en"
# Nothing here is special to notebook 12's model: the same code runs any decoder of this shape, GPT-2 included.
#
# ## Train it
#
# One training step: run the model on a batch of token windows, score each guess of the next token with the
# cross-entropy, let torch compute the gradients (`loss.backward()`), and let the optimiser (AdamW) move every parameter
# a little against its gradient. Around it, `training.run` draws the batches, sets the learning rate (a linear warm-up,
# then a cosine down to zero), measures the loss on held-out data every 50 steps and draws a progress bar.
#
# **Exercise 8 · ★★☆ · about 10 min.** Write `training_step(forward, params, ids, optimizer)`. `ids` $(B, T + 1)$ holds
# windows one token longer than the model reads: the model reads the first $T$ tokens of each window, and its guess
# at position $t$ is scored on the token that follows it, at $t + 1$; slice the inputs and the answers out of `ids`. `forward(params, x)` returns `(logits, weights)` with logits
# $(B, T, V)$; `torch.nn.functional.cross_entropy` wants one row of logits per answer, so flatten both the same way,
# $(B \cdot T, V)$ and $(B \cdot T)$. Then zero the gradients left by the last step (`optimizer.zero_grad()`: torch adds
# new gradients to old ones until they are zeroed), `loss.backward()`, `optimizer.step()`, and return the loss tensor
# itself (not `loss.item()`). The checker runs your step beside the library's on a random decoder, two steps in a row
# on the same batch: a step that never zeroes the gradients adds the first step's to the second's, while zeroing right
# after `step()`, nanoGPT's order, passes too. It names the usual slips: no shift, a shift the wrong way, logits and
# answers flattened in different orders, a missing `zero_grad`, no update. Once it passes, the two runs below train
# with your step.

# %% [markdown] lang="zh"
# 这段代码并不专为 12 节的模型而写：任何这种结构的解码器都能运行，GPT-2 也不例外。
#
# ## 训练它
#
# 一步训练是这样的：让模型读一批 token 窗口，用交叉熵给它对每个“下一个 token”的猜测打分，让 torch 算出梯度（`loss.backward()`），
# 再让优化器 AdamW 把每个参数朝着让损失变小的方向挪一小步。外面一层 `training.run` 负责抽取批次、安排学习率（先线性预热，再按余弦降到 0）、
# 每 50 步在验证集上量一次损失，并画出进度条。
#
# **练习 8 · ★★☆ · 约 10 分钟**：写出 `training_step(forward, params, ids, optimizer)`。`ids` $(B, T + 1)$ 里的每个窗口比模型读的多一个 token：
# 模型读每个窗口的前 $T$ 个 token，它在位置 $t$ 上的猜测用紧随其后、位置 $t + 1$ 上的 token 打分；据此从 `ids` 里切出输入和答案。`forward(params, x)` 返回
# `(logits, weights)`，logits 的形状是 $(B, T, V)$；`torch.nn.functional.cross_entropy` 要求每个答案对应一行 logits，
# 所以两者要用同一种方式展平，分别成为 $(B \cdot T, V)$ 和 $(B \cdot T)$。然后清掉上一步留下的梯度（`optimizer.zero_grad()`：
# 不清零的话，torch 会把新梯度加到旧梯度上），`loss.backward()`，`optimizer.step()`，最后返回损失张量本身（不是 `loss.item()`）。
# 检查器在一个随机解码器上把你的训练步和库里的并排运行，在同一批数据上连走两步：从不清零梯度的训练步会把第一步的梯度加到第二步上；
# 像 nanoGPT 那样在 `step()` 之后立刻清零，也能通过。它会指出常见的错误：没有错位、错位方向反了、
# logits 和答案按不同的顺序展平、漏了 `zero_grad`、参数没有更新。通过之后，下面的两次训练用的就是你的训练步。

# %%
def training_step(forward, params, ids, optimizer):
    """[en] One step on windows ids (B, T + 1): the loss of the next token, fresh gradients, one update; returns the loss.
    [zh] 在窗口 ids (B, T + 1) 上走一步：给下一个 token 打分，重新算梯度，更新一次；返回损失。"""
    raise NotImplementedError("[en]inputs and answers are ids shifted by one; flatten logits and answers the same way; old gradients cleared, backward, step[zh]输入和答案是同一批 ids 错位一个 token；logits 和答案按同样的方式展平；清掉旧梯度，backward，step")

checks.check_training_step(training_step)

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def training_step(forward, params, ids, optimizer):
#     logits, _ = forward(params, ids[:, :-1])      # (B, T, V): a guess of the next token at every position
#     loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), ids[:, 1:].flatten())  # the answers: ids shifted by one
#     optimizer.zero_grad()                         # the last step's gradients away
#     loss.backward()                               # the gradient of every parameter
#     optimizer.step()                              # AdamW moves every parameter a little
#     return loss
# ```
# </details>

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def training_step(forward, params, ids, optimizer):
#     logits, _ = forward(params, ids[:, :-1])      # (B, T, V)：每个位置上对下一个 token 的猜测
#     loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), ids[:, 1:].flatten())  # 答案就是错开一位的 ids
#     optimizer.zero_grad()                         # 清掉上一步的梯度
#     loss.backward()                               # 每个参数的梯度
#     optimizer.step()                              # AdamW 把每个参数挪一小步
#     return loss
# ```
# </details>

# %%
use_step = training_step if checks.check_training_step(training_step).passed else training.step  # [en] yours once it passes [zh] 通过检查后用你的
STEP_NAME = "[en]training step: [zh]训练步："
print(STEP_NAME + ("[en]yours[zh]你的" if use_step is training_step else "[en]the library's[zh]库里的"))

# %% [markdown] lang="en"
# ### Repeated random letters
#
# First a task with a known answer. Each training sequence is 33 random letters in which a segment of 6 to 16 distinct
# letters occurs twice, at random positions; the model reads 32 and predicts each next one. Random letters cannot be
# predicted, but the second copy can: find the earlier occurrence of the current letter and copy what came after it,
# the induction circuit of notebook 12. The model has attention only (no feed-forward layers, so whatever circuit grows
# is made of heads): 2 layers × 4 heads, $d_{model} = 64$, context 32. The recipe is 600 steps of 64 sequences at a peak
# learning rate of $3 \times 10^{-3}$, on one CPU thread; it trains your pieces where they passed their checks. Watch the
# validation loss: it sits near $\ln 26 \approx 3.26$, the loss of guessing, until the two heads find each other, and
# then it falls. Read the two lines of the curve for what they are: "train" is the running mean of the last 50 batches'
# losses, each taken with the weights of its own step, so while the loss falls it lags behind; "validation" is measured
# once, at the logged step, with that step's weights. That is why validation can sit below train with no leak at all.

# %% [markdown] lang="zh"
# ### 重复的随机字母
#
# 先来一个答案已知的任务。每条训练序列是 33 个随机字母，其中一段 6 到 16 个互不相同的字母出现两次，位置随机；模型读前 32 个，逐个预测下一个。
# 随机字母预测不了，第二遍却可以：找到当前字母上一次出现的地方，把紧跟在后面的那个字母抄过来，这就是 12 节的 induction 电路。
# 模型只有注意力，没有前馈网络，长出来的电路只能由头组成。它有 2 层、每层 4 个头，$d_{model} = 64$，上下文 32。
# 训练方案是 600 步、每批 64 条序列，学习率峰值 $3 \times 10^{-3}$，只用一个 CPU 线程；凡是已经通过检查的零件，用的都是你写的。
# 留意验证集损失：在两个头“找到彼此”之前，它一直停在均匀乱猜的水平 $\ln 26 \approx 3.26$ 附近，之后才降下来。读曲线时要清楚两条线各是什么：
# “训练”是最近 50 个批次损失的滑动平均，每个损失都是用当时那一步的权重算的，所以损失下降时它总落在后面；“验证”是在记录的那一步、
# 用那一步的权重量一次。因此验证损失可以低于训练损失，这并不是数据泄漏。

# %%
# MEASUREMENT
# (a live training run: its last digits depend on the CPU it runs on)
live_ind = training.run("induction", parts.gpt_forward, step_fn=use_step, metrics=False,
                        progress=training.Progress("[en]induction[zh]重复字母"))
print(parts.report())
ax = figures.plot_curve(live_ind["curve"], title="[en]your run: repeated random letters[zh]你的训练：重复的随机字母")

# %% [markdown] lang="en"
# Did the heads grow? A repeat of 8 letters is moved to **every position** of the context. For each query position $t$
# the figure shows the previous-token score of the best previous-token head (its weight on key $t-1$); for each start of
# the repeat, the induction score of the best induction head (its weight on the key after the earlier occurrence). The
# cell first prints one line for your model and one for the same recipe trained on another seed by `make train`,
# shipped with the package: a comparison, and a fallback to load if your run went wrong; then a line of reference points
# for their loss on the repeat. The figure draws your model.

# %% [markdown] lang="zh"
# 头长出来了吗？把一段 8 个字母的重复移到上下文的**每一个位置**。图里画的是：对每个 Query 位置 $t$，最好的“前一个 token”头的得分
# （它放在 Key $t-1$ 上的权重）；对重复片段的每一个起点，最好的 induction head 的得分（它放在前一次出现之后那个 Key 上的权重）。
# 下面先打印两行：一行是你的模型，一行是同一个方案换一个种子、由 `make train` 训练好并随课程附带的模型，它既用来比较，
# 也是你的训练出了问题时可以载入的后备；接着一行给出重复部分损失的参照值。图里画的是你的模型。

# %%
# NBVAL_IGNORE_OUTPUT
# (reads the live run)
mine_ind = training.to_model(live_ind)            # [en] your trained model, a model of notebook 12's kind [zh] 你训练出的模型，与 12 节的模型同类
shipped_ind = training.load_run("induction")      # [en] the same recipe on seed 1 [zh] 同一个方案，种子 1
YOURS = f"[en]yours (seed {live_ind['manifest']['seed']})[zh]你的（种子 {live_ind['manifest']['seed']}）"
runs = {YOURS: experiments.induction_summary(mine_ind),
        f"[en]shipped (seed {shipped_ind.manifest['seed']})[zh]随课程附带（种子 {shipped_ind.manifest['seed']}）": experiments.induction_summary(shipped_ind)}
for label, s in runs.items():
    p, q = s["best"]["previous"], s["best"]["induction"]
    print(f"[en]{label}: previous-token head L{p['layer']}H{p['head']} mean {p['mean']:.2f} (lowest {p['min']:.2f}), induction head L{q['layer']}H{q['head']} mean {q['mean']:.2f} (lowest {q['min']:.2f}), loss on the repeat {s['repeated_half_loss']:.2f} nats[zh]{label}：“前一个 token”头 L{p['layer']}H{p['head']} 平均 {p['mean']:.2f}（最低 {p['min']:.2f}），induction head L{q['layer']}H{q['head']} 平均 {q['mean']:.2f}（最低 {q['min']:.2f}），重复部分的损失 {s['repeated_half_loss']:.2f} 纳特")
# [en] two reference points for the same loss on the same sequences: a uniform guess, and notebook 12's model
# [zh] 同一批序列上同一个损失的两个参照：均匀乱猜，以及 12 节的模型
print(f"[en]for reference, loss on the repeat: a uniform guess over 26 letters ln 26 = {np.log(26):.2f} nats; notebook 12's model ({model12.manifest['steps']:,} training steps, against {live_ind['manifest']['steps']:,} here) {nb12.repeated_half_loss(model12):.3f} nats[zh]作为参照，重复部分的损失：在 26 个字母里均匀乱猜是 ln 26 = {np.log(26):.2f} 纳特；12 节的模型（训练了 {model12.manifest['steps']:,} 步，这里是 {live_ind['manifest']['steps']:,} 步）是 {nb12.repeated_half_loss(model12):.3f} 纳特")
yours = runs[YOURS]
if not yours["found"]:
    print("[en]Your run did not grow both heads (a mean score of 0.4 each). Train it on another seed (seed=2 in training.run), or load the shipped model: mine_ind = training.load_run('induction')[zh]你的训练没有长出这两种头（平均得分都要到 0.4）。换一个种子再训练（在 training.run 里加 seed=2），或者载入随课程附带的模型：mine_ind = training.load_run('induction')")
axes = figures.plot_position_scores(yours["scores"], yours["best"])

# %% [markdown] lang="en"
# The circuit of notebook 12, grown in your run (on your pieces and training step where they passed, the library's
# elsewhere), but not yet as sure of itself. Read the two runs' loss on the repeat against the reference points printed
# on the line after them: a run whose heads grew sits far below a uniform guess, so it copies, and well above notebook 12's model,
# which trained for longer. After 600 steps the circuit is only partly formed: it copies, but puts less probability on
# the right letter than notebook 12's model does. A head counts as one of the kind, as in notebook 12, when its mean
# score reaches 0.4 (the dashed line). Read the curves for where they dip, not only for their mean: a head need not do its
# job equally well everywhere. With four heads in a layer the previous-token job is often shared, so the best single
# previous-token head can fall under the line somewhere in the context while the induction head still copies there.
# Which head does which job depends on the seed: compare your run with the shipped one.

# %% [markdown] lang="zh"
# 这就是 12 节的电路，这回是在你的训练里长出来的（零件和训练步通过检查的用你的，其余用库里的），只是还不够有把握。
# 把两次训练在重复部分的损失和紧接着打印的那一行参照值对比：长出了两种头的训练远低于均匀乱猜，说明它会复制；可它又明显高于训练得更久的
# 12 节模型。训练 600 步之后，这个电路只成形了一部分：它会复制，但放在正确字母上的概率不如 12 节的模型高。
# 和 12 节一样，一个头的平均得分到 0.4（虚线），才算是这一类的头。读曲线时不只看平均，还要看它在哪里往下掉：
# 一个头不必在每个位置上都做得一样好。一层有四个头时，“前一个 token”的工作常常由几个头分担，所以得分最高的那个头
# 可能在上下文的某一段落到线下，而 induction head 在那里照样能复制。哪个头做哪份工作随种子而变，和随课程附带的那次训练比一比。

# %% [markdown] lang="en"
# ### The course text
#
# Now real text: this course's prose, one token per character, both languages mixed in proportion to their length
# (about two English characters for each Chinese one); the last tenth of each language is held out. The model: 2 layers ×
# 4 heads, $d_{model} = 64$, a feed-forward layer of 256, context 64 characters. The baseline to beat is a **bigram**
# model: count how often each character follows each other one in the training text and predict from those counts
# (smoothed in whichever way suits the held-out text best, to give it every chance). A model below that line uses more
# than the previous character.

# %% [markdown] lang="zh"
# ### 课程文字
#
# 现在换成真正的文字：本课程的讲解，一个字符一个 token，两种语言按各自的长度比例混在一起（大约每一个汉字配两个英文字符），每种语言的最后十分之一留作验证。
# 模型有 2 层、每层 4 个头，$d_{model} = 64$，前馈网络的隐藏层维度 256，上下文 64 个字符。要打败的基线是**二元模型**：在训练文字里数一数每个字符后面
# 跟着各个字符的次数，再按这些次数来预测（平滑方式挑在验证文字上效果最好的那种，让它占尽便宜）。低于这条线的模型，用到的就不只是前一个字符了。

# %%
data = training.TextData(text)                    # [en] the text your tokenizer read, split into training and validation parts [zh] 你的分词器读过的文字，分成训练和验证两部分
cfg = training.CONFIGS["text"]
for lang in corpus.LANGS:
    b = data.bigram(lang, cfg["max_len"])
    print(f"[en]bigram baseline, {LANG_NAME[lang]}: {b['loss']:.3f} nats per character (perplexity {b['perplexity']:.1f})[zh]二元模型基线，{LANG_NAME[lang]}：每个字符 {b['loss']:.3f} 纳特（困惑度 {b['perplexity']:.1f}）")

# %% [markdown] lang="en"
# One choice gives a short run a head start: the output bias $b_{out}$ starts at the log-frequency of each character in the
# training text (`training.unigram_bias`) instead of zero. The untrained model then predicts like the unigram model, and
# no step is spent learning that spaces and *e* are common:

# %% [markdown] lang="zh"
# 有一个小设计能让几百步的训练起步更快：输出偏置 $b_{out}$ 不从 0 开始，而是从每个字符在训练文字里的对数频率开始（`training.unigram_bias`）。
# 这样，还没训练的模型就已经像一元模型（unigram）那样预测，不必花好些步去学“空格和‘的’很常见”：

# %%
start = tr.init_decoder(len(chars), cfg["d_model"], cfg["n_heads"], cfg["n_layers"], cfg["d_ff"], cfg["max_len"],
                        seed=0)                   # [en] an untrained model [zh] 一个还没训练的模型
windows = training.text_valid_ids(data)           # [en] the validation windows of the curve below [zh] 下面曲线用的验证窗口
labels = ("[en]b_out = 0:[zh]b_out = 0：", "[en]b_out = log-frequency:[zh]b_out = 对数频率：")   # [en] the colon inside, then padded [zh] 冒号先放进标签，再补齐
width = max(display_width(label) for label in labels)
for label, b_out in zip(labels, (start["b_out"], training.unigram_bias(data))):
    label = pad(label, width)
    untrained = pieces.torch_params({**start, "b_out": b_out}, cfg["n_heads"], dtype="float32")
    print(f"[en]{label} validation loss {training.model_loss(pieces.gpt_forward, untrained, windows):.2f} nats per character before any step[zh]{label}一步都没训练时，验证集损失每个字符 {training.model_loss(pieces.gpt_forward, untrained, windows):.2f} 纳特")
print(f"[en]ln V = {np.log(len(chars)):.2f} (a uniform guess over {len(chars):,} characters)[zh]ln V = {np.log(len(chars)):.2f}（在 {len(chars):,} 个字符里均匀乱猜）")

# %% [markdown] lang="en"
# The recipe: 500 steps of 16 windows of 64 characters, peak learning rate $6 \times 10^{-3}$, one thread. The dashed
# line is the bigram's loss on the same validation windows as the curve. Those windows are the first 2,048 held-out
# characters of each language, half English and half Chinese, while a training batch is about two thirds English; the
# two lines are not measured on the same mix, so read each against its own past and the validation line against the
# bigram, not against the training line. The perplexities after the run use all of the held-out text.

# %% [markdown] lang="zh"
# 训练方案：500 步，每步 16 个 64 字符的窗口，学习率峰值 $6 \times 10^{-3}$，单线程。虚线是二元模型在同一批验证窗口上的损失。这些窗口取自每种语言留作验证的文字的前 2,048 个字符，
# 英文、中文各占一半，而训练批次里约三分之二是英文；两条线量的不是同一种混合，所以各自和自己的过去比，验证线和二元模型比，
# 而不要拿验证线去和训练线比。训练之后的困惑度用的是全部验证文字。

# %%
# MEASUREMENT
# (a live training run: its last digits depend on the CPU it runs on)
live_text = training.run("text", parts.gpt_forward, step_fn=use_step, data=data, metrics=False,
                         progress=training.Progress("[en]text[zh]文字"))
print(parts.report())
ax = figures.plot_curve(live_text["curve"], baseline=data.bigram_of(windows)["loss"],
                        title="[en]your run: the course text[zh]你的训练：课程文字")

# %%
# NBVAL_IGNORE_OUTPUT
# (reads the live run)
mine_text = training.to_model(live_text)
losses = experiments.text_losses(mine_text, data)  # [en] the whole validation text of each language [zh] 每种语言的全部验证文字
shipped = training.load_run("text").manifest["metrics"]
for lang, r in losses.items():
    print(f"[en]{LANG_NAME[lang]}: perplexity {r['perplexity']:.1f} against the bigram's {r['bigram_perplexity']:.1f} ({1 - r['perplexity'] / r['bigram_perplexity']:.0%} lower); the shipped longer run (see below; measured on the copy of the course text it was trained on): {shipped[lang + '_perplexity']:.1f} against its bigram's {shipped[lang + '_bigram_perplexity']:.1f}[zh]{LANG_NAME[lang]}：困惑度 {r['perplexity']:.1f}，二元模型为 {r['bigram_perplexity']:.1f}（低了 {1 - r['perplexity'] / r['bigram_perplexity']:.0%}）；随课程附带的更长训练（见下文；在它训练时读的那份课程文字上量）：{shipped[lang + '_perplexity']:.1f}，同一份文字上的二元模型为 {shipped[lang + '_bigram_perplexity']:.1f}")

# %% [markdown] lang="en"
# Perplexity is $e^{\text{loss}}$: the number of characters the model is, on average, as unsure between as a uniform
# guess would be. Chinese stays far higher than English in both models: it uses about six times as many distinct characters
# as English (counted at the start) and the model read half as many Chinese characters. The two perplexities do not say
# which language the model knows better, though: a perplexity per character depends on how much a character holds, and
# a Chinese character holds more than an English letter (this notebook's opening paragraph takes about twice as many
# characters in English as in Chinese, counted at the start). Compare each language with its own bigram, as the lines
# above do, not with the other language.
#
# ## Let it write
#
# Samples of 200 characters from your text model, with your `generate` (or the library's until yours passes), from an
# English and a Chinese prompt. The context holds only 64 characters, so `experiments.write` calls `generate` until the
# context is full and then starts it again from the last 32 characters. (nanoGPT instead crops
# its input to the last 64 tokens at every step and recomputes everything; restarting from the last half once the
# context is full lets the cache serve the next 32 steps.) The temperature divides the logits before the softmax: at 0.5 every probability is
# squared and renormalised, so likely characters get likelier and rare ones rarer, but the model still samples (only a
# temperature near 0 is greedy); at 1.0 it samples from what it learned, mistakes included. Below each sample, how much
# of it is made of the training text's own pieces: the share of its English words that occur in the text, the share of
# its pairs of adjacent Chinese characters that do (counted only when there are at least 20 of them). A long run of
# spaces and line breaks is printed as a count in brackets.

# %% [markdown] lang="zh"
# 困惑度是 $e^{\text{损失}}$：模型平均来说就像在这么多个字符之间均匀地拿不定主意。两个模型的中文困惑度都比英文高得多：中文用到的字符种数约是英文的六倍（开头数过），
# 模型读到的中文字符又只有英文字符的一半。不过，这两个困惑度并不说明模型更懂哪种语言：每个字符的困惑度取决于一个字符承载多少内容，
# 而一个汉字承载的比一个英文字母多（本节开头那一段，英文用的字符约是中文的两倍，开头数过）。每种语言只和它自己的二元模型比，
# 就像上面几行那样，而不要拿两种语言互相比。
#
# ## 让它写
#
# 用你训练的文字模型生成 200 个字符，用的是你的 `generate`（通过检查之前用库里的），分别从一个英文提示词和一个中文提示词出发。
# 上下文只能放 64 个字符，所以 `experiments.write` 一直调用 `generate` 直到上下文写满，再从最后 32 个字符重新开始。
# （nanoGPT 的做法不同：它每一步都只保留最后 64 个 token，重新计算；这里写满以后才截断一次、留下一半，是为了复用 KV 缓存。）
# 温度是在 softmax 之前除 logits 的那个数：温度 0.5 相当于把每个概率平方后再归一化，常见的字符更常见，少见的更少见，但模型仍然在抽样
# （只有温度接近 0 时才是贪心地挑最可能的）；温度 1.0 时，它按学到的分布抽样，错误也一并抽出来。每个样本下面量一下它有多少是训练文字里现成的片段：
# 英文看它写出的单词有多少出现在文字里，中文看相邻两个汉字组成的字对有多少出现过（至少有 20 个时才算比例）。一长串空格和换行
# 会打印成方括号里的计数。

# %%
# NBVAL_IGNORE_OUTPUT
# (samples of the live run)
p_text = pieces.torch_params(mine_text.params, dtype="float32")
tok_text = corpus.CharTokenizer(mine_text.vocab)
print(parts.report())
for prompt, lang, seed in (("The attention weights ", "en", 0), ("注意力权重", "zh", 100)):   # [en] a seed per prompt, so the two prompts' samples do not share their random draws [zh] 每个开头各用一个种子，两个开头的样本才不会共用同一串随机数
    for temperature in (0.5, 1.0):
        sample = tok_text.decode(experiments.write(parts.generate, p_text, tok_text.encode(prompt), 200,
                                                   temperature=temperature, seed=seed))   # [en] past the context of 64: see above [zh] 超出 64 的上下文：见上文
        print(f"[en]--- temperature {temperature} ---[zh]--- 温度 {temperature} ---")
        print(experiments.sample_report(sample, prompt, data.texts[lang], lang))   # [en] the sample, then its share of known words or pairs [zh] 样本，以及其中现成单词或字对的比例

# %% [markdown] lang="en"
# What comes out is spelling, not language: frequent short words with spaces in the right places, fragments of markdown
# and formulas. Either prompt can wander into the other language, at any temperature: the model read both
# mixed together, often within one paragraph, so a switch is always a likely next character; once one is drawn it sits
# in the context and pulls the next characters its way, and after the restart from the last 32 characters the prompt
# itself is gone. A sample that has left its language has little left to count. The Chinese prompt gets some common
# pairs of characters, then slides into formulas, English or blank lines: two thirds of the training text is English,
# and the Chinese prose is itself full of formulas, English terms and line breaks. At temperature 1.0 it may hop back
# into Chinese and out again; at a low temperature it seldom comes back, and it can fall into a loop, of one symbol or
# of blanks, and a loop holds nothing to count.
# A few hundred steps on a few hundred thousand characters buy exactly that, and a validation loss under the bigram's.

# %% [markdown] lang="zh"
# 它学到的是拼写，还不是语言：常见的短词、位置大致正确的空格、Markdown 和公式的碎片。无论温度高低，两个开头都可能跑到另一种语言里去：
# 模型读的就是两种语言混在一起的文字，常常在同一段里就换了语言，所以换成另一种语言的字符随时都可能是下一个；一旦抽中，它就留在上下文里，
# 把后面的字符往那边拉；而写满上下文、从最后 32 个字符重新开始之后，开头的提示词本身也不在了。样本一旦离开自己的语言，能数的也就不多了。
# 从中文开头出发，它能写出一些常见的字对，但很快就滑进公式、英文或空行：训练文字里英文约占三分之二，中文正文本身也夹着不少公式、英文术语和换行。
# 温度 1.0 时它可能又跳回中文、再跳出去；温度低时往往就回不来了，还容易原地打转，一遍遍写同一个符号，甚至只写空格和换行，
# 这样的样本里就没有什么可数的了。
# 在几十万个字符上训练几百步，换来的正是这些，外加一个低于二元模型的验证集损失。

# %% [markdown] lang="en"
# ### A longer run
#
# What does a longer run buy? nanoGPT's recipe for character-level Shakespeare on a
# laptop CPU (4 layers × 4 heads, $d_{model} = 128$, context 64, batches of 12, 2,000 steps, about three minutes) reaches
# a validation loss near 1.88 nats per character and writes word-like lines. The same model on the course text, trained
# for 1,200 steps at a learning rate of $3 \times 10^{-3}$ instead of 2,000 at $10^{-3}$ (a different text, so compare the
# samples, not the losses), is `training.CONFIGS["text_long"]`; `make train` trained it once (seed 1) and ships it, so
# the cell below loads that model. `make train` saved the course text it trained on beside the model; that copy comes
# from an earlier version of this course, so the cell measures the model on it, bigram baseline included, and its
# bigram numbers differ from the ones above, which are measured on the text as it is now (compare the two bigram
# lines printed). Set
# `LONG_RUN = True` to train it here instead, on today's text, with your pieces and your training step (several minutes
# on one thread; the progress bar says how long). Below it: the validation loss in each language, and samples at
# temperature 0.8 with the share of real words (words that occur in the training text) in English and of known pairs
# of characters in Chinese. These shares are not comparable with the live samples' above, which were drawn at other
# temperatures, and a short word repeated counts each time it occurs: read the samples themselves. The Chinese samples
# still slide into formulas and English, for the reasons given above.

# %% [markdown] lang="zh"
# ### 多训练一会儿
#
# 训练得更久，能换来什么？nanoGPT 在笔记本电脑 CPU 上训练字符级莎士比亚的配方（4 层、每层 4 个头，
# $d_{model} = 128$，上下文 64，每批 12 个窗口，2,000 步，大约 3 分钟）能把验证集损失降到每个字符约 1.88 纳特，写出像单词的句子。
# 同样规模的模型用在课程文字上，训练 1,200 步、学习率 $3\times10^{-3}$（nanoGPT 是 2,000 步、$10^{-3}$；文字也不同，所以比样本，不比损失），
# 就是 `training.CONFIGS["text_long"]`；`make train` 已经用种子 1 训练过一次并随课程附带，所以下面的单元格直接载入它。
# `make train` 把它训练时读的课程文字存在了模型旁边；那一份来自本课程较早的版本，所以下面在那份文字上量这个模型，
# 二元模型基线也在那份文字上算，和上面按现在的文字算出的数字并不相同（可以对照打印出的两行二元模型数字）。把 `LONG_RUN` 改成 `True`，
# 就会在这里用现在的文字、你的零件和你的训练步重新训练（单线程要好几分钟，进度条会显示还要多久）。
# 下面给出每种语言的验证集损失，以及温度 0.8 下的样本：英文统计其中真实单词（在训练文字里出现过的单词）的比例，中文统计见过的字对的比例。
# 这些比例不能和上面现场训练的样本比：那些样本的温度不同，而且一个短词重复出现时每次都算一个。要看样本本身。
# 中文样本照样会滑进公式和英文，原因上面已经说过。

# %%
LONG_RUN = False  # [en] True: train the longer recipe here, on your pieces (several minutes) [zh] True：在这里用你的零件训练更长的配方（要好几分钟）
if LONG_RUN:
    long_run = training.run("text", parts.gpt_forward, config=training.CONFIGS["text_long"], step_fn=use_step,
                            data=data, metrics=False, progress=training.Progress("[en]longer run[zh]更长的训练"))
    long_model, long_data = training.to_model(long_run), data
else:
    long_model = training.load_run("text")                        # [en] the same model, trained by make train [zh] 同一个模型，由 make train 训练
    long_data = training.TextData(training.run_corpus(long_model), chars=long_model.vocab)   # [en] the copy of the text it was trained on [zh] 它训练时读的那份文字
cfg_long = long_model.manifest["config"]
print(f"[en]{cfg_long['n_layers']} layers x {cfg_long['n_heads']} heads, d_model {cfg_long['d_model']}, context {cfg_long['max_len']}, {long_model.manifest['steps']:,} steps[zh]{cfg_long['n_layers']} 层 × {cfg_long['n_heads']} 个头，d_model {cfg_long['d_model']}，上下文 {cfg_long['max_len']}，{long_model.manifest['steps']:,} 步")
for lang, r in experiments.text_losses(long_model, long_data).items():
    print(f"[en]{LANG_NAME[lang]}: validation loss {r['loss']:.2f} nats per character (perplexity {r['perplexity']:.1f}; the bigram model's {r['bigram_perplexity']:.1f} on the same text)[zh]{LANG_NAME[lang]}：验证集损失每个字符 {r['loss']:.2f} 纳特（困惑度 {r['perplexity']:.1f}；同一份文字上的二元模型 {r['bigram_perplexity']:.1f}）")
if long_data.sha256 != data.sha256:               # [en] the shipped run read an earlier copy of the text [zh] 随课程附带的模型读的是较早的一份文字
    now = {lang: data.bigram(lang, cfg_long["max_len"])["perplexity"] for lang in corpus.LANGS}
    print(f"[en](measured on the copy of the course text it was trained on; on the text as it is now, the bigram's perplexity is {now['en']:.1f} in English and {now['zh']:.1f} in Chinese, as above)[zh]（这是在它训练时读的那份课程文字上量的；按现在的文字，二元模型的困惑度英文是 {now['en']:.1f}，中文是 {now['zh']:.1f}，与上文相同）")
p_long = pieces.torch_params(long_model.params, dtype="float32")
tok_long = corpus.CharTokenizer(long_model.vocab)
for prompt, lang, seeds in (("The attention weights ", "en", (0, 1)), ("注意力权重", "zh", (100, 101))):
    for seed in seeds:
        sample = tok_long.decode(experiments.write(parts.generate, p_long, tok_long.encode(prompt), 240,
                                                   temperature=0.8, seed=seed))
        print(f"[en]--- temperature 0.8, seed {seed} ---[zh]--- 温度 0.8，种子 {seed} ---")
        print(experiments.sample_report(sample, prompt, long_data.texts[lang], lang))

# %% [markdown] lang="en"
# Those samples were written through a KV cache, by the `generate` that the report above the first samples names
# (yours once it passes, the library's until then): each step ran one new token through the layers instead of all of
# them. Notebook 09 measured what that saves as the context grows. Your `generate` keeps its cache to itself, so the
# cell below measures the library's (`pieces.forward_cached`, the same step as the library's `generate` takes): its memory
# against notebook 09's formula, for this model's whole context.

# %% [markdown] lang="zh"
# 这些样本是借助 KV 缓存写出来的；用的是哪个 `generate`，第一批样本上方那行报告写得很清楚（你的通过检查后用你的，在此之前用库里的）。
# 每一步只让新来的那个 token 经过各层，而不是全部 token。上下文变长时它能省下多少，09 节已经量过。你的 `generate` 把缓存留在函数内部，
# 所以下面的单元格量的是库里的缓存（`pieces.forward_cached`，与库里的 `generate` 每一步走的是同一步）：核对它占的内存是否符合 09 节的公式，
# 上下文取这个模型的全部 64 个字符。

# %%
_, cache = pieces.forward_cached(p_text, list(range(64)), None)
print(f"[en]the library's KV cache (pieces.forward_cached): {pieces.cache_bytes(cache):,} bytes for 64 tokens, notebook 09's 2 x L x T x D x 4 bytes = {experiments.cache_size(p_text, 64):,}[zh]库里的 KV 缓存（pieces.forward_cached）：64 个 token 用 {pieces.cache_bytes(cache):,} 字节，09 节的公式 2 × L × T × D × 4 字节 = {experiments.cache_size(p_text, 64):,}")

# %% [markdown] lang="en"
# ## Look inside your model
#
# Your induction model is a model of notebook 12's kind, so notebook 12's tools read it, through the same hook points.
# First the head picker: each head's attention on a repeated sequence, with its scores.

# %% [markdown] lang="zh"
# ## 看看你的模型内部
#
# 你的 induction 模型和 12 节的模型是同一类，所以 12 节的工具能通过同样的钩子点读它。先看头选择器：每个头在一条重复序列上的注意力，以及它的得分。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
nb12_widgets.head_picker_widget(mine_ind)

# %% [markdown] lang="en"
# **Ablation, four ways.** Switch one head off and measure the loss on the repeated half, as notebook 12 did. *Zero*
# sets the head's output to zero, a value it may never produce, so the layers after it see something new; *mean at each
# position* sets it, at each position, to its average output there over other sequences, keeping what it always
# contributes at that position and removing only what depends on the input; *one mean* uses a single average vector for
# every position; *resample* puts in its output on another sequence. Notebook 12 showed that one mean vector can mislead
# (L1H3: 0.224 nats zeroed, 1.474 with one mean, 0.174 with the mean at each position): one average is itself an output
# the head never writes at some positions. So the table reports every method, each number with its method beside it;
# when one number is wanted, take the mean at each position, and when the methods disagree, ask patching, which measures
# what the head carries rather than what its absence breaks. An ablation can even lower the loss: a head whose output
# at the repeat is slightly wrong on average helps less than nothing.

# %% [markdown] lang="zh"
# **消融的四种做法**。像 12 节那样关掉一个头，量重复那一半上的损失。*置零*把这个头的输出设成 0，这个值它也许从来没输出过，
# 后面的层看到的是从没见过的东西；*各位置的均值*在每个位置上把它换成它在别的序列上、同一位置的平均输出，保留它在这个位置上一向贡献的部分，
# 只去掉随输入变化的部分；*一个均值*在所有位置上都用同一个平均向量；*重采样*换成它在另一条序列上的输出。12 节已经说明，单一的平均向量会误导人
# （L1H3：置零 0.224 纳特，一个均值 1.474，各位置的均值 0.174）：这个平均值本身，就是这个头在某些位置上从不会写出的输出。
# 所以下表报告每一种方法，每个数旁边都写明方法；只要一个数时，用各位置的均值；几种方法结论不同时，去问激活修补：
# 它量的是这个头携带了什么，而不是少了它什么会坏。消融甚至可能让损失降低：如果一个头在重复片段上的输出平均来说略有偏差，有它还不如没有它。

# %%
# NBVAL_IGNORE_OUTPUT
# (measures the live run)
print("[en]previous-token score of every head, mean over the query positions of the figure above[zh]每个头的“前一个 token”得分，对上面那张图的所有 Query 位置取平均")
print(nb12.head_table(yours["scores"]["previous"].mean(axis=0)))   # [en] (T - 1, L, H) -> (L, H) [zh] (T - 1, L, H) -> (L, H)
print()
rows = nb12.ablation_methods(mine_ind)
base_loss = rows[0]["zero"]
ways = {"mean_by_position": "[en]mean/pos[zh]各位置的均值", "zero": "[en]zero[zh]置零", "mean": "[en]one mean[zh]一个均值", "resample": "[en]resample[zh]重采样"}
print(f"{'':8}" + "".join(pad(name, 14, "right") for name in ways.values()))
for r in rows[1:]:
    print(f"{r['ablated']:8}" + "".join(f"{r[w] - base_loss:>+14.2f}" for w in ways))
costly = max(rows[1:], key=lambda r: r["mean_by_position"])
helps = [r["ablated"] for r in rows[1:] if r["zero"] < base_loss]
print(f"[en]zeroing lowers the loss for: {', '.join(helps) or '—'}[zh]置零后损失反而降低的头：{'、'.join(helps) or '—'}")
print(f"[en]intact loss on the repeat {base_loss:.2f} nats; each column is the change with that method. By the mean at each position the costliest head is {costly['ablated']} (+{costly['mean_by_position'] - base_loss:.2f} nats; zeroed +{costly['zero'] - base_loss:.2f}, one mean +{costly['mean'] - base_loss:.2f}).[zh]完整模型在重复片段上的损失是 {base_loss:.2f} 纳特，每一列是用该方法消融后的变化。按各位置的均值，代价最大的是 {costly['ablated']}（+{costly['mean_by_position'] - base_loss:.2f} 纳特；置零 +{costly['zero'] - base_loss:.2f}，一个均值 +{costly['mean'] - base_loss:.2f}）。")

# %% [markdown] lang="en"
# Read the ablation table beside the patching that follows. The layer-1 head that costs most by the mean at each position is the
# head that carries the copy, and patching singles it out as well. In the run above, layer 0's four heads, L0H0 to L0H3, share the
# previous-token job (the first table above: the best of them puts under half of its weight on the previous token, and
# the others lean on it too), so switching one off costs something by most methods, and patching any one of them alone
# brings back little. A head whose zeroing *lowers* the loss (listed under the table) gets almost nothing back when
# patched. In the run above that head is L1H2, and only zeroing says so: its mean at each position costs almost nothing.
# So what hurts is its average output, the part it writes on every sequence alike. Direct logit attribution cannot say
# how: a fixed preference for some letters adds about zero to "right letter minus mean logit" when the right letter is
# random (its value below is about zero), yet it still raises the loss, since the probability it gives the wrong letters
# is taken from the right one. And in the run above the mean at each position charges more than zeroing for most heads, the other way round from L1H3 in notebook 12: no method always overstates, which is why each number
# goes beside its method.

# %% [markdown] lang="zh"
# 读消融表时，要和后面的激活修补对照着看。按各位置的均值代价最大的第 1 层的头，正是负责复制的那个头，激活修补也会把它挑出来。
# 在上面这次训练里，第 0 层的四个头 L0H0 到 L0H3 分担着“前一个 token”的活（见上面第一张表：得分最高的那个头放在前一个 token 上的权重也不到一半，
# 其余几个头也偏向前一个 token），所以关掉其中一个，大多数方法都显示要付出一些代价，而单独修补任何一个都找不回多少。
# 置零后损失反而**降低**的头（表下列出），修补时几乎什么也找不回。在上面这次训练里，这个头是 L1H2，而且只有置零这样显示：换成各位置的均值几乎没有代价。
# 可见起坏作用的是它的平均输出，也就是它在每条序列上都一样写出的那部分。直接 logit 归因说不清它是怎样起坏作用的：
# 对某些字母的固定偏好，在正确字母随机时给“正确字母的 logit 减平均 logit”加的量平均约为 0（下面它的归因值就约为 0），
# 却照样会让损失升高，因为它分给错误字母的概率是从正确字母那里拿走的。
# 另外，在上面这次训练里，对大多数头来说，各位置的均值比置零代价更大，和 12 节的 L1H3 正好相反：没有哪种方法总是高估，所以每个数旁边都要写明方法。

# %% [markdown] lang="en"
# **Patching, step by step.** Ablation asks what breaks without a head; activation patching asks which head *carries* a piece
# of information. Take a clean sequence (11 letters, then the same 11 again) and a corrupted copy in which letter 4 of
# the first copy (counting from 0) is replaced by one that occurs nowhere else. At letter 4 of the second copy, the clean model finds the
# earlier occurrence and predicts letter 5; the corrupted one cannot. Now run the corrupted sequence, but put back one
# head's clean output through its hook point `blocks.1.attn.hook_z`: if log P of the right letter comes back, that head
# carries the copy. The hook is a function of the activation and its name that returns the replacement.

# %% [markdown] lang="zh"
# **一步步看激活修补**。消融问的是“少了这个头，什么会坏”；激活修补（activation patching）问的是“哪个头*携带*了某条信息”。
# 取一条干净的序列（11 个字母，再连写一遍），再做一条被破坏的序列：把第一遍位置 4 上的字母（从 0 数起）换成别处都没有的字母。
# 在第二遍的位置 4（整条序列的位置 15）上，干净的模型能找到前一次出现，预测出位置 5 上的字母；被破坏的模型做不到。现在运行被破坏的序列，
# 但通过钩子点 `blocks.1.attn.hook_z` 把某一个头的干净输出放回去：如果正确字母的 log P 回来了，复制就是这个头携带的。
# 钩子是一个函数，参数是激活值和钩子点的名字，返回替换后的值。

# %%
# NBVAL_IGNORE_OUTPUT
# (measures the live run)
clean, corrupted = nb12.patching_pairs()          # [en] (200, 22) each; letter 4 of the first copy differs [zh] 各 (200, 22)；只有第一遍位置 4 上的字母不同
query, right = 11 + 4, clean[:, 5]                # [en] the query in the second copy, and the letter it should predict [zh] 第二遍里的 Query，以及它该预测的字母
name = "blocks.1.attn.hook_z"                     # [en] (N, H, T, Dh): each head's output before W_O [zh] (N, H, T, Dh)：每个头在 W_O 之前的输出
_, clean_cache = mine_ind.hooked.run_with_cache(clean, [name])


def log_p_right(logits):
    logp = tr.log_softmax(logits[:, query])       # [en] the max subtracted first, as in notebook 03 [zh] 先减去最大值，和 03 节一样
    return logp[np.arange(len(right)), right].mean()


def put_back(head):
    def hook(z, hook_name):
        z = z.copy()
        z[:, head] = clean_cache[hook_name][:, head]  # [en] this head's clean output, everything else corrupted [zh] 只有这个头用干净的输出，其余都是被破坏的
        return z
    return hook


lo, hi = log_p_right(mine_ind.hooked(corrupted)), log_p_right(mine_ind.hooked(clean))
print(f"[en]log P(right letter): clean {hi:.2f}, corrupted {lo:.2f}[zh]正确字母的 log P：干净 {hi:.2f}，被破坏 {lo:.2f}")
for head in range(mine_ind.n_heads):
    patched = log_p_right(mine_ind.hooked.run_with_hooks(corrupted, {name: put_back(head)}))
    print(f"[en]L1H{head} put back: {patched:.2f}, recovering {(patched - lo) / (hi - lo):.0%} of the difference[zh]放回 L1H{head}：{patched:.2f}，找回了差距的 {(patched - lo) / (hi - lo):.0%}")

# %% [markdown] lang="en"
# Notebook 12's `patching_table` does the same for every head of both layers (and position by position), and its
# layer-1 row is the numbers you just computed. Below it, notebook 12's direct logit attribution (`logit_attribution`):
# what each head's output adds to the right letter's logit, read through the final layer norm, minus what it adds to
# the mean logit, averaged over letters 2 to 11 of the second copy on notebook 12's 200 sequences.

# %% [markdown] lang="zh"
# 12 节的 `patching_table` 对两层的每个头都做同样的事（还会逐个位置地做），它第 1 层那一行就是你刚算出的数。接着是 12 节的直接 logit 归因
# （`logit_attribution`）：每个头的输出经过最后的层归一化之后，给正确字母的 logit 加了多少，再减去它给平均 logit 加的量，
# 在 12 节那 200 条序列第二遍的第 2 到第 11 个字母上取平均。

# %%
# NBVAL_IGNORE_OUTPUT
# (measures the live run)
table = nb12.patching_table(mine_ind)
print("[en]share recovered by patching each head (rows: layers)[zh]修补每个头找回的比例（行：层）")
print(nb12.head_table(table["recovered"]))
print()
la = nb12.logit_attribution(mine_ind)         # [en] (L, H): mean over letters 2..11 of the second copy [zh] (L, H)：第二遍第 2–11 个字母上的平均
print("[en]direct logit attribution: what each head adds to (logit of the right letter - mean logit) on the repeat[zh]直接 logit 归因：在重复片段上，每个头给（正确字母的 logit − 平均 logit）加了多少")
print(nb12.head_table(np.round(la["repeat"], 2) + 0.0))          # [en] + 0.0: no "-0" [zh] + 0.0：不打印“-0”
biases = round(la["feed_forward"] + la["biases"], 2) + 0.0   # [en] no feed-forward layers: hook_mlp_out is the bias b_2 alone [zh] 没有前馈网络：hook_mlp_out 只是偏置 b_2
print(f"[en]sum over the heads {la['repeat'].sum():.2f}, embeddings {la['embeddings']:.2f}, biases {biases:+.2f}: all parts {la['parts']:.2f}; the model's own value {la['logit']:.2f}; on the first copy, largest size for a head {np.abs(la['first_copy']).max():.2f}[zh]所有头之和 {la['repeat'].sum():.2f}，嵌入 {la['embeddings']:.2f}，偏置 {biases:+.2f}：各部分合计 {la['parts']:.2f}；模型自身的值 {la['logit']:.2f}；在第一遍上，单个头的绝对值最大 {np.abs(la['first_copy']).max():.2f}")
pp = nb12.path_patching(mine_ind)             # [en] one layer-0 head's clean output into layer 1's Q, K or V only [zh] 只把第 0 层一个头的干净输出送进第 1 层的 Q、K 或 V
print()
print("[en]path patching: share recovered by one layer-0 head's clean output sent into layer 1's ... only[zh]通路修补：只把第 0 层一个头的干净输出送进第 1 层的……，找回的比例")
for c in "qkv":
    print(f"  {c.upper()}: " + "  ".join(f"L0H{h} {pp[c][h]:+.2f}" for h in range(mine_ind.n_heads)))

# %% [markdown] lang="en"
# A head that writes the answer has a large attribution, and the layer-1 head that patching singles out is the one that
# writes the most. The layer-0 heads write almost nothing toward the answer, yet switching one off costs something (the
# ablation table above): their output is written for layer 1's keys to read, not for the unembedding, and path
# patching shows it: what a layer-0 head gives back comes through layer 1's keys (K), none through its queries or
# values. Patching one of them alone recovers little, as you would expect of a shared job: the other three still pass
# on the corrupted letter. The widget puts the three views of one head side by side: its ablation (pick the method), its direct logit
# attribution and what patching it recovers.

# %% [markdown] lang="zh"
# 直接写出答案的头归因很大，激活修补挑出来的那个第 1 层的头，写得也最多。第 0 层的头几乎不给答案写任何东西，可关掉其中一个仍要付出一些代价
# （见上面的消融表）：它们的输出是写给第 1 层的 Key 读的，不是写给反嵌入的。通路修补证实了这一点：第 0 层的头找回的那一点，全部经由第 1 层的 Key（K），
# 经由 Query 和 Value 的为零。单独修补其中一个找回的很少，这正符合“前一个 token”的活由几个头分担的情形：
# 另外三个头传下去的仍然是被破坏的那个字母。下面的控件把一个头的三种视角放在一起：它的消融（可选做法）、它的直接 logit 归因，以及修补它能找回多少。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
nb12_widgets.intervention_widget(mine_ind)

# %% [markdown] lang="en"
# ## Your code runs GPT-2
#
# GPT-2 is this architecture: learned positions, pre-LN blocks with GELU in its tanh form, a final layer norm and an
# unembedding tied to the token embedding. `ac.load_gpt2` maps Hugging Face's weights into `DecoderParams`, so your
# `gpt_forward` and `generate` (the library's until yours pass; the cell's labels say whose ran) run GPT-2 small
# (124M parameters) unchanged. That needs the network the first time (about
# 500 MB into the Hugging Face cache) or a local folder holding the model **and** its tokenizer, both saved where there
# is network: `transformers.GPT2LMHeadModel.from_pretrained("gpt2").save_pretrained("gpt2-local")` and
# `transformers.AutoTokenizer.from_pretrained("gpt2").save_pretrained("gpt2-local")`. So it is off by default: set
# `ONLINE = True` (and `GPT2_SOURCE` to that folder if you have one) and run the cells again. Offline the cell builds a
# small GPT-2 with random weights (layer norms and biases randomised too) with Hugging Face's `transformers`, loads it
# with `ac.load_gpt2`, and compares `parts.gpt_forward` (torch) and the library's NumPy forward with Hugging Face's own
# forward.

# %% [markdown] lang="zh"
# ## 你的代码能运行 GPT-2
#
# GPT-2 用的就是这个架构：可学习的位置编码、用 tanh 形式 GELU 的前置层归一化 Transformer 块、最后的层归一化，以及与 token 嵌入共享权重的反嵌入。
# `ac.load_gpt2` 把 Hugging Face 的权重映射进 `DecoderParams`，所以你的 `gpt_forward` 和 `generate`（你的通过检查之前用库里的，
# 单元格打印的标签会写明运行的是谁的）不用改就能运行 GPT-2 small（1.24 亿个参数）。
# 第一次运行需要联网（向 Hugging Face 缓存下载约 500 MB），或者有一个本地文件夹，里面**同时**有模型和它的分词器，两者都在能联网的机器上保存：
# `transformers.GPT2LMHeadModel.from_pretrained("gpt2").save_pretrained("gpt2-local")` 和
# `transformers.AutoTokenizer.from_pretrained("gpt2").save_pretrained("gpt2-local")`。所以默认是关闭的：把
# `ONLINE` 设为 `True`（如果有这样的文件夹，再把 `GPT2_SOURCE` 设成它），然后重新运行这些单元格。离线时，这个单元格用 Hugging Face 的 `transformers`
# 在本机建一个权重随机的小 GPT-2（层归一化和偏置也随机化），用 `ac.load_gpt2` 载入，再把 `parts.gpt_forward`（torch）和库里的 NumPy 前向计算
# 与 Hugging Face 自己的前向计算比一比。

# %%
from attention_core.labs.nb13_build_a_gpt import gpt2_tour

ONLINE = False          # [en] True: download GPT-2 small once (about 500 MB) and run it with the pieces in use [zh] True：下载一次 GPT-2 small（约 500 MB），用正在使用的零件运行它
GPT2_SOURCE = "gpt2"    # [en] or a folder holding the model AND its tokenizer (save_pretrained of both) [zh] 或者一个同时存有模型和分词器的文件夹（两者都用 save_pretrained 保存）
if ONLINE:
    g2, g2_numpy, hf_model, hf_tok = gpt2_tour.gpt2_small(GPT2_SOURCE, download=True)
    sentence = "The animal didn't cross the street because it was too tired."
    ids = hf_tok(sentence)["input_ids"]
    with torch.no_grad():
        mine_logits, mine_w = parts.gpt_forward(g2, torch.as_tensor(ids))
    hf_logits, hf_w = gpt2_tour.hf_forward(hf_model, [ids])
    lib_logits, _ = tr.decoder_forward(g2_numpy, ids)
    d_mine, d_lib = np.abs(mine_logits.numpy() - hf_logits[0]).max(), np.abs(lib_logits - hf_logits[0]).max()
    print(parts.report())
    print(f"[en]largest difference from Hugging Face's logits (float32): {parts.label('gpt_forward')} {d_mine:.1e}, the library's NumPy decoder_forward {d_lib:.1e}[zh]与 Hugging Face 的 logits 的最大差（float32）：{parts.label('gpt_forward')} {d_mine:.1e}，库里的 NumPy decoder_forward {d_lib:.1e}")
    print(f"[en]greedy continuation ({parts.label('generate')}, KV cache):[zh]贪心续写（{parts.label('generate')}，带 KV 缓存）：", hf_tok.decode(parts.generate(g2, ids, 20)))
    scores_g2 = gpt2_tour.all_head_scores(parts.gpt_forward, g2)          # [en] (L, H) each, notebook 12's scores [zh] 每种都是 (L, H)，12 节的得分
    for kind, label in (("previous", "[en]previous-token heads[zh]“前一个 token”头"), ("induction", "[en]induction heads[zh]induction head")):
        tops = ", ".join(f"L{l}H{h} {s:.2f}" for l, h, s in gpt2_tour.top_heads(scores_g2[kind]))
        print(f"[en]{label}: {tops}[zh]{label}：{tops}")
    words = [hf_tok.decode([i]).strip() for i in ids]                      # 'Ġit' -> 'it'
    it = words.index("it")
    for layer in range(g2_numpy.n_layers):
        h = int(mine_w[layer, :, it, 1:it].max(-1).values.argmax())
        j = int(mine_w[layer, h, it, 1:it].argmax()) + 1
        print(f"[en]layer {layer}: head {h} looks from 'it' at {words[j]!r} ({float(mine_w[layer, h, it, j]):.2f})[zh]第 {layer} 层：第 {h} 个头从 'it' 看向 {words[j]!r}（{float(mine_w[layer, h, it, j]):.2f}）")
else:
    try:
        diff = gpt2_tour.oracle_differences(parts.gpt_forward)          # [en] a random GPT-2 built here, nothing downloaded [zh] 在本机建的随机 GPT-2，不下载任何东西
    except ImportError:
        diff = None
    if diff is None:
        print("[en]offline, and the transformers package is not installed: install it to compare with Hugging Face[zh]离线，而且没有安装 transformers 包：装上它之后才能与 Hugging Face 比较")
    else:
        config = gpt2_tour.config_label(diff["config"])                  # [en] in this edition's language [zh] 用本版本的语言
        bound = lambda d: "< 1e-12" if d < 1e-12 else f"{d:.1e}"        # [en] float64 rounding differs between CPUs [zh] float64 的舍入在不同 CPU 上略有不同
        print(f"[en]offline: a random GPT-2 ({config}), largest difference from Hugging Face's forward in float64:[zh]离线：随机 GPT-2（{config}）与 Hugging Face 前向计算在 float64 下的最大差：")
        for who, label in (("yours", parts.label("gpt_forward") + "[en], torch[zh]，torch"), ("library", "[en]the library's NumPy decoder_forward[zh]库里的 NumPy decoder_forward")):
            print(f"[en]  {label}: logits {bound(diff[who][0])}, attention maps {bound(diff[who][1])}[zh]  {label}：logits {bound(diff[who][0])}，注意力图 {bound(diff[who][1])}")

# %% [markdown] lang="en"
# Online, the cell scores all 144 heads of GPT-2 small on repeated random tokens and prints the best of each kind;
# offline nothing here computes them. What to expect is what others have measured with the same kind of score (the induction-head tutorials of ARENA
# and TransformerLens): a few heads of layers 5 to 7 are induction heads (L5H1, L5H5, L6H9, L7H2, L7H10), and a
# handful of earlier heads attend to the previous token (L4H11 the clearest): the same two-step circuit your 2-layer
# model grew. Run it online and check.
#
# ## Self-test (extra questions on your model)
#
# Three extra questions on what you built.

# %% [markdown] lang="zh"
# 联网时，上面的单元格会在重复随机 token 上给 GPT-2 small 的全部 144 个头打分，并打印每一类中得分最高的几个头；不联网时，这里没有任何计算给出这些得分。
# 可以拿来对照的，是别人用同类得分量到的结果（ARENA 和 TransformerLens 讲 induction head 的教程）：第 5 到 7 层有几个头是 induction head
# （L5H1、L5H5、L6H9、L7H2、L7H10），更早的几层有少数几个头关注前一个 token（最明显的是 L4H11）：正是你那个 2 层模型长出来的两步电路。
# 联网跑一遍，自己核对。
#
# ## 附加题：你搭出来的模型
#
# 关于你搭出来的模型的三道附加题。

# %%
quiz.quiz_widget("x13a")

# %%
quiz.quiz_widget("x13b")

# %%
quiz.quiz_widget("x13c")

# %% [markdown] lang="en"
# ## Summary
#
# What you built, and what your runs reached, computed again here:

# %% [markdown] lang="zh"
# ## 小结
#
# 下面把你搭出来的零件和两次训练的结果重新算一遍：

# %%
# NBVAL_IGNORE_OUTPUT
# (reads the live runs)
print(parts.report())
print(f"[en]tokens: {len(chars):,} characters; after 60 merges the English paragraph takes {len(corpus.apply_merges(enc(para['en']), merges))} tokens instead of {len(para['en'])}, the Chinese one {len(corpus.apply_merges(enc(para['zh']), merges))} instead of {len(para['zh'])}[zh]分词：{len(chars):,} 种字符；60 次合并之后，英文段落用 {len(corpus.apply_merges(enc(para['en']), merges))} 个 token（原来 {len(para['en'])} 个），中文段落用 {len(corpus.apply_merges(enc(para['zh']), merges))} 个（原来 {len(para['zh'])} 个）")
print(f"[en]notebook 12's model in {FORWARD}: largest logit difference from the library's NumPy forward {shown[0]}[zh]12 节的模型在 {FORWARD} 里运行：logits 与库里的 NumPy 前向计算的最大差 {shown[0]}")
for kind, label in (("previous", "[en]previous-token head[zh]“前一个 token”头"), ("induction", "[en]induction head[zh] induction head")):
    b = yours["best"][kind]
    print(f"[en]your {label} L{b['layer']}H{b['head']}: mean {b['mean']:.2f}, lowest {b['min']:.2f} over the positions[zh]你的{label} L{b['layer']}H{b['head']}：平均 {b['mean']:.2f}，各位置中最低 {b['min']:.2f}")
for lang, r in losses.items():
    print(f"[en]{LANG_NAME[lang]}: perplexity {r['perplexity']:.1f} against the bigram's {r['bigram_perplexity']:.1f}[zh]{LANG_NAME[lang]}：困惑度 {r['perplexity']:.1f}，二元模型为 {r['bigram_perplexity']:.1f}")
print(f"[en]your training runs: {live_ind['seconds']:.0f} s (induction) and {live_text['seconds']:.0f} s (text)[zh]你的两次训练：{live_ind['seconds']:.0f} 秒（重复字母）和 {live_text['seconds']:.0f} 秒（文字）")

# %% [markdown] lang="en"
# - **Tokens.** One token per character over the course's own prose; byte-pair merges pack frequent pairs into single
#   tokens, by a different factor per language. Context windows count tokens.
# - **The pieces.** Layer norm, the feed-forward layer, the pre-LN block and the GPT forward, once they pass, match the
#   library to $10^{-8}$ in float64, and your generation with a KV cache gives exactly the tokens of recomputing
#   everything; until then the library's stand in, and the first line above says whose ran.
# - **It is the real thing.** Notebook 12's trained model runs in your forward (the library's until yours passes) with
#   the same logits and head scores.
# - **You trained it.** Your runs (on your pieces and your `training_step` where they passed) grew a previous-token head
#   and an induction head on repeated letters, and on the course text reached a perplexity under the bigram's in both
#   languages. The heads and the numbers vary with the seed; the shipped induction run is the same recipe on another
#   seed, and the shipped text run the longer recipe, whose English samples are mostly words found in the training
#   text.
# - **You looked inside.** Scores at every position, ablation four ways (the method beside each number), activation patching
#   through a hook point, step by step, and direct logit attribution: the researcher's first tools, on your own model.
#
# **Limits.** Two layers and a few hundred steps: the live text model writes short common words and fragments of
# others; the longer run writes mostly words found in the training text, not yet sense,
# and the live induction circuit copies less surely than notebook 12's longer-trained model. The previous-token job may
# be shared among several heads, as in layer 0 here, so that no single head carries it; a run on another seed can also
# take longer to leave the plateau, and the fallback above loads the shipped model. The live runs are sized to finish
# in under a minute each on one CPU thread; wall time grows with the machine's load.
#
# **Where next.** This is the end of the course. Karpathy's *Let's build GPT* and nanoGPT scale the same model up;
# ARENA's interpretability chapters and TransformerLens go further with the tools of the last section. To review the
# mechanism: [11 · Review](11_review.ipynb); the models measured: [12 · Attention inside a trained Transformer](12_trained_transformer.ipynb).

# %% [markdown] lang="zh"
# - **分词**。在本课程自己的文字上，一个字符一个 token；字节对合并把常见的字符对压成单个 token，两种语言压缩的倍数不同。上下文窗口数的是 token。
# - **零件**。层归一化、前馈网络、前置层归一化的 Transformer 块和 GPT 前向计算通过检查后，在 float64 下与库里的结果相差不超过 $10^{-8}$，
#   你写的带 KV 缓存的生成，得到的 token 与每步全部重算完全相同；在此之前由库里的零件顶上，上面第一行写明了运行的是谁的。
# - **它就是那个模型**。12 节训练好的模型在你的前向计算里（你的通过检查之前用库里的）给出同样的 logits 和头得分。
# - **你训练了它**。你的训练（零件和 `training_step` 通过检查的用你的）在重复字母上长出了“前一个 token”头和 induction head；
#   在课程文字上，两种语言的困惑度都低于二元模型。头和数字都随种子而变；随课程附带的 induction 模型是同样的方案、另一个种子，
#   随课程附带的文字模型用的是更长的配方，它写出的英文样本里大多是训练文字里出现过的单词。
# - **你打开它看了看**。每个位置上的得分、四种消融（每个数旁边都写明方法）、经过钩子点的激活修补，以及直接 logit 归因：研究者最先用的几样工具，用在你自己的模型上。
#
# **局限**。两层、几百步：现场训练的文字模型写出的是常见的短词和单词的碎片；更长的训练写出的大多是训练文字里出现过的单词，但还写不出意思；现场训练出的 induction 电路复制起来也不如训练得更久的
# 12 节模型有把握。“前一个 token”的工作可能由几个头分担，就像这里的第 0 层，没有哪一个头单独承担它；换一个种子，损失还可能在平台期停留更久，
# 上面的后备办法会载入随课程附带的模型。
# 每次现场训练在单线程上一分钟之内就能跑完；机器越忙，实际耗时越长。
#
# **接下来**。课程到这里就结束了。Karpathy 的 *Let's build GPT* 和 nanoGPT 把同一个模型放大；ARENA 的可解释性章节和 TransformerLens
# 把本节后半部分（以及 12 节）的工具用得更深。复习机制请回到 [11 · 总复习](11_review.ipynb)；训练好的模型见 [12 · 训练好的 Transformer 里的注意力](12_trained_transformer.ipynb)。
