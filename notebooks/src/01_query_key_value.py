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
# # 01 · Query, Key, Value: the intuition
#
# **After this notebook you will be able to**
# - say what a Query, a Key and a Value are for, and why Key and Value are kept apart;
# - compute one attention step by hand: scores → scaling → softmax → weighted sum of values;
# - explain why attention weights follow **content**, not distance, and watch a pronoun find its noun;
# - say what a large attention weight does, and does not, tell you.
#
# **What you should know first:** the dot product and softmax ([00 · Start here](00_start_here.ipynb)).

# %% [markdown] lang="zh"
# # 01 · Query、Key、Value：直觉
#
# **学完本节，你将能够**
# - 说清 Query、Key、Value 各自的用途，以及为什么要把 Key 和 Value 分开；
# - 手算一步注意力：打分 → 缩放 → softmax → 对 Value 加权求和；
# - 解释为什么注意力权重跟着**内容**走、而不是跟着距离走，并亲眼看到代词找到它指代的名词；
# - 说清注意力权重大时，能说明什么、不能说明什么。
#
# **需要的基础**：点积和 softmax（见 [00 · 从这里开始](00_start_here.ipynb)）。

# %%
LANG = "[en]en[zh]zh"  # [en] language of this edition: "en" or "zh" [zh] 本版的语言："en" 或 "zh"
# %matplotlib inline
import inspect

import numpy as np

import attention_core as ac
from attention_core.labs.nb01_query_key_value import checks, coreference, widgets
from attention_core.teaching import i18n, plots, quiz
from attention_core.teaching.tables import pad

i18n.set_language(LANG)
rng = np.random.default_rng(0)  # [en] every random number in this notebook comes from this seed [zh] 本 notebook 的所有随机数都来自这个种子

# %% [markdown] lang="en"
# ## Three roles: a question, a label, the contents
#
# Picture a noisy coffee shop. A friend tells a story and says "he"; your mind holds an open question:
# *who is "he"?* Six people chat around you, but you do not attend to them equally: you score each person your
# friend mentioned by how well they fit the question, and take mostly (not only) what you know about the best fit.
# Or picture a library:
#
# | role | in the coffee shop | in the library | in attention |
# |---|---|---|---|
# | **Query** | "who is 'he'?" | the question you walk in with | what this token is looking for |
# | **Key** | each name your friend mentioned | the label on each book's spine | how each token can be matched |
# | **Value** | what you know about that person | the contents of the book | what each token hands over once matched |
#
# The query is compared with every **key**; the comparison decides *how much* to take from each position;
# the **values** decide *what* is taken. Why two vectors per token instead of one? Because "how I am found" and
# "what I give" are different jobs. The experiment below shows the split: change only the values and the weights
# stay put; change only the keys and the weights move.

# %% [markdown] lang="zh"
# ## 三种角色：问题、标签、内容
#
# 想象一间嘈杂的咖啡馆。朋友讲故事时说到“他”，你脑中冒出一个悬而未决的问题：*“他”是谁*？
# 周围有六个人在同时聊天，但你不会平均分配注意力：你拿这个问题给朋友提到过的每个人打分，
# 看谁最符合，然后主要（而不是只）从最符合的那个人身上取信息。也可以想象一座图书馆：
#
# | 角色 | 在咖啡馆里 | 在图书馆里 | 在注意力里 |
# |---|---|---|---|
# | **Query（查询）** | “‘他’是谁？” | 你带着进门的问题 | 当前 token 想找什么 |
# | **Key（键）** | 朋友提到的每个名字 | 每本书书脊上的标签 | 每个 token 凭什么被匹配 |
# | **Value（值）** | 你对那个人的了解 | 书里的内容 | 匹配上之后，每个 token 交出什么 |
#
# Query 与每个 **Key** 比较，比较结果决定从每个位置取**多少**；**Value** 决定取的是**什么**。
# 为什么每个 token 要用两个向量，而不是一个？因为“我凭什么被找到”和“我能提供什么”是两件不同的事。
# 下面的实验把这种分工摆在眼前：只改 Value，权重纹丝不动；只改 Key，权重随之改变。

# %%
q = np.array([[1.0, 0.0]])                        # [en] one query, Dk = 2 [zh] 一个 Query，Dk = 2
k = np.array([[1.0, 0.0], [0.0, 1.0]])            # [en] two keys [zh] 两个 Key
v = np.array([[2.0, 0.0], [0.0, 4.0]])            # [en] two values, Dv = 2 [zh] 两个 Value，Dv = 2

out, w = ac.scaled_dot_product_attention(q, k, v)
out_new_v, w_new_v = ac.scaled_dot_product_attention(q, k, v * 10)                  # [en] change only the values [zh] 只改 Value
out_new_k, w_new_k = ac.scaled_dot_product_attention(q, k[::-1], v)                # [en] swap only the keys [zh] 只交换 Key
show = lambda x: np.array2string(np.asarray(x)[0], precision=3, floatmode="fixed", separator=", ")
for key, (w_, out_) in (("[en]original[zh]原始", (w, out)), ("[en]values x 10[zh]Value × 10", (w_new_v, out_new_v)),
                        ("[en]keys swapped[zh]交换 Key", (w_new_k, out_new_k))):
    print(pad(key, 14), "[en]weights[zh]权重", show(w_), "  " + "[en]output[zh]输出", show(out_))

# %% [markdown] lang="en"
# ## The worked example, step by step
#
# Here is the smallest complete attention computation (the worked example of the tutorial “注意力机制”):
# one query $q = [1, 0]$, two keys $k_1 = [1, 0]$ and $k_2 = [0, 1]$ of width $d = 2$, and their values
# $v_1 = [2, 0]$, $v_2 = [0, 4]$. Each step below is one line of the formula
# $\text{Attention}(Q, K, V) = \text{softmax}\left(QK^\top / \sqrt{d}\right)V$.

# %% [markdown] lang="zh"
# ## 一步一步算一遍
#
# 下面是最小的一次完整注意力计算（来自《注意力机制》一文的例子）：一个 Query $q = [1, 0]$，两个维度 $d = 2$ 的 Key
# $k_1 = [1, 0]$、$k_2 = [0, 1]$，以及它们对应的 Value $v_1 = [2, 0]$、$v_2 = [0, 4]$。
# 下面每一步，都对应公式 $\text{Attention}(Q, K, V) = \text{softmax}\left(QK^\top / \sqrt{d}\right)V$ 里的一小段。

# %%
scores = q @ k.T                                   # [en] 1. match: one dot product per key [zh] 1. 匹配：每个 Key 一个点积
scaled = scores / np.sqrt(q.shape[-1])            # [en] 2. scale by sqrt(d) = sqrt(2) [zh] 2. 除以 sqrt(d) = sqrt(2) 来缩放
weights = ac.softmax(scaled)                      # [en] 3. softmax: non-negative, sums to 1 [zh] 3. softmax：非负，和为 1
output = weights @ v                              # [en] 4. mix the values with the weights [zh] 4. 用权重混合各个 Value
print(pad("[en]scores[zh]分数" + "  [q·k1, q·k2]", 24), "=", show(scores))
print(pad("[en]scaled[zh]缩放" + "  / sqrt(2)", 24), "=", show(scaled))
print(pad("[en]weights[zh]权重" + "  softmax", 24), "=", show(weights), f"[en]  sum = {weights.sum():.3f}[zh]  和 = {weights.sum():.3f}")
print(pad("[en]output[zh]输出" + "  α1·v1 + α2·v2", 24), "=", show(output))
print("[en]same as the library:[zh]与库的结果相同：", np.allclose(output, ac.scaled_dot_product_attention(q, k, v)[0]))

# %% [markdown] lang="en"
# The numbers match the tutorial: scores $[1, 0]$, scaled $[0.707, 0]$, weights $[0.670, 0.330]$.
# The output prints as $[1.340, 1.321]$: the tutorial's $[1.340, 1.320]$ mixes the values with the weights
# already rounded to three digits ($0.330 \times 4 = 1.320$), while the exact weight is $0.33024$ and
# $0.33024 \times 4 = 1.321$. The output is **not** a copy of the best match $v_1$: it is a blend, mostly $v_1$,
# partly $v_2$.
#
# The library computes the same thing. Its readable version, `ac.reference_attention`, is printed below: after
# checking the inputs it is the four lines above (plus a mask, which notebook 04 explains). The function you call,
# `ac.scaled_dot_product_attention`, is a faster path (it works on blocks of query rows, in place) that the tests
# hold equal to this reference.

# %% [markdown] lang="zh"
# 这些数与原教程一致：分数 $[1, 0]$，缩放后 $[0.707, 0]$，权重 $[0.670, 0.330]$。
# 输出显示为 $[1.340, 1.321]$：原教程的 $[1.340, 1.320]$ 是用已经四舍五入到三位的权重去混合 Value 的
# （$0.330 \times 4 = 1.320$），而精确的权重是 $0.33024$，$0.33024 \times 4 = 1.321$。
# 注意输出**不是**把最匹配的 $v_1$ 原样复制过来，而是一种混合：大部分来自 $v_1$，一部分来自 $v_2$。
#
# 库里算的是同一件事。下面打印的是它的可读版本 `ac.reference_attention`：检查完输入之后，就是上面那四行（外加一个掩码，第 04 节会讲）。平时调用的 `ac.scaled_dot_product_attention` 是一条更快的路径（按 Query 行分块、原地计算），测试保证它与这个参考实现的结果相同。

# %%
print(inspect.getsource(ac.reference_attention))

# %% [markdown] lang="en"
# Now take the controls. Move $q$ and watch every intermediate number change together; move the values and see
# that only the output moves. Try: point $q$ at $k_2$; make $q$ twice as long (the weights get sharper);
# set $q = [0, 0]$ (both keys score 0, so the weights are exactly half and half).

# %% [markdown] lang="zh"
# 现在轮到你动手。拖动 $q$，看每个中间结果一起变化；再拖动 Value，会发现只有输出在变。
# 试试看：让 $q$ 指向 $k_2$；把 $q$ 拉长一倍（权重会变得更“尖”）；把 $q$ 设为 $[0, 0]$
# （两个 Key 的分数都是 0，权重正好各一半）。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
widgets.attention_step_widget(q=[1.0, 0.0], keys=k, values=v)

# %% [markdown] lang="en"
# ## Weights follow content, not distance
#
# A query does not prefer its neighbours. Below, one key matches the query and eight keys do not; we put the
# matching key first, in the middle, and last. Its weight is the same wherever it sits, because nothing in the
# formula looks at positions. (Notebook 07 shows how position is added back when it matters.)

# %% [markdown] lang="zh"
# ## 权重跟着内容走，不跟着距离走
#
# Query 并不偏爱离自己近的位置。下面有一个 Key 与 Query 匹配，另外八个不匹配；我们把匹配的 Key
# 分别放在最前、中间和最后。无论它在哪里，权重都一样——公式里根本没有任何一项在看位置。
# （07 节会讲需要位置信息时如何把它加回来。）

# %%
query = np.array([[2.0, 0.0]])
neutral = np.tile([[0.0, 1.0]], (8, 1))                 # [en] eight keys that do not match [zh] 八个不匹配的 Key
match = np.array([[2.0, 0.0]])
for where in (0, 4, 8):
    keys = np.insert(neutral, where, match, axis=0)     # (9, 2)
    _, w = ac.scaled_dot_product_attention(query, keys, keys)
    print(f"[en]matching key at position {where}: its weight = {w[0, where]:.3f}, each other key = {np.delete(w[0], where).max():.3f}[zh]匹配的 Key 在位置 {where}：它的权重 = {w[0, where]:.3f}，其他每个 Key = {np.delete(w[0], where).max():.3f}")

# %% [markdown] lang="en"
# ## Who does "it" refer to?
#
# *"The animal didn't cross the street because it was too tired."* A reader knows that *it* is the animal:
# animals get tired, streets do not. Change one word, *"... because it was too **wide**"*, and *it* becomes the
# street. This pair (a *Winograd* pair) is a real test: a rule like "pick the nearest noun" or "pick the subject"
# gets one of the two wrong.
#
# Can attention do it? We build a tiny model whose every number has a name, so we can see **why** it works.
# Each word is a vector of named features (`animate`, `place`, `can_be_tired`, `can_be_wide`, ...):

# %% [markdown] lang="zh"
# ## “it”指的是谁？
#
# *"The animal didn't cross the street because it was too tired."*（动物没有过马路，因为它太累了。）
# 读者知道 *it* 指动物：动物会累，街道不会。只改一个词，*"... because it was too **wide**"*（因为它太宽了），
# *it* 就变成了街道。这样的一对句子（Winograd 句对）是真正的考验：“选最近的名词”或“选主语”
# 这类固定规则，总会在其中一句上出错。
#
# 注意力能做到吗？我们搭一个极小的模型，里面每个数字都有明确含义，这样就能看清它**为什么**能做到。
# 每个词都表示成一个向量，每一维是一个有名字的特征（`animate` 有生命、`place` 地点、`can_be_tired` 会累、`can_be_wide` 能用“宽”形容……）：

# %%
tired = coreference.coreference_example("animal_tired")
wide = coreference.coreference_example("animal_wide")
coreference.feature_table(tired)

# %% [markdown] lang="en"
# The model runs two attention steps with fixed, readable matrices (print them with
# `coreference.matrix_table(coreference.default_params(), "w_q2")`):
#
# 1. **What is said about me?** The pronoun's query asks for a predicate adjective; the adjective's key answers,
#    and its value copies what it says (`pred_tired` or `pred_wide`) into the pronoun's vector.
# 2. **Who can that be?** Now the pronoun's query says "I need something that can be tired" (or wide); each noun's
#    key says what it can be; the best match hands over its identity.
#
# Here is step 1 at work, and the two matrices of step 2 that do the matching: the query matrix turns
# `pred_tired` into "looking for `tired`", the key matrix turns `can_be_tired` into "I answer to `tired`".

# %% [markdown] lang="zh"
# 这个模型用固定且可读的矩阵做两步注意力（可以用
# `coreference.matrix_table(coreference.default_params(), "w_q2")` 把矩阵打印出来）：
#
# 1. **别人怎么说我**？代词的 Query 去找作表语的形容词；形容词的 Key 回应，它的 Value 把自己说的内容
#    （`pred_tired` 或 `pred_wide`）复制进代词的向量。
# 2. **这会是谁**？此时代词的 Query 变成“我要找一个会累的东西”（或“能用‘宽’形容的东西”）；每个名词的 Key
#    说明自己可能是什么；最匹配的那个名词交出自己的身份信息。
#
# 下面先看第 1 步的效果，再看第 2 步负责匹配的两个矩阵：Query 矩阵把 `pred_tired` 变成“在找 `tired`”，
# Key 矩阵把 `can_be_tired` 变成“我能回应 `tired`”。

# %%
params = coreference.default_params()
step1 = coreference.resolve(tired).pronoun_weights(step=1)
print("[en]step 1, 'it' attends to:[zh]第 1 步，“it”关注的是：", {token: round(w, 2) for token, w in step1.items() if w > 0.05})
coreference.matrix_table(params, "w_q2")

# %%
coreference.matrix_table(params, "w_k2")

# %% [markdown] lang="en"
# No line of code looks at the words: only the feature vectors and these matrices. Here is the pronoun's row of
# step-2 weights for both sentences of the twin, in English and in Chinese, with the same matrices:

# %% [markdown] lang="zh"
# 没有任何一行代码在看具体的词，只有特征向量和这些矩阵。下面是孪生句中代词在第 2 步的那一行权重，
# 英文、中文各一对，用的是同一组矩阵：

# %%
twins = [(tired, wide), (coreference.coreference_example("zh_animal_tired"),
                         coreference.coreference_example("zh_animal_wide"))]
for first, second in twins:
    changed = [a != b for a, b in zip(first.tokens, second.tokens)].index(True)   # [en] the one word that differs [zh] 唯一不同的那个词
    rows, row_names = [], []
    for example in (first, second):
        result = coreference.resolve(example)
        rows.append(result.weights[1][result.pronoun])          # [en] the pronoun's step-2 weights (T,) [zh] 代词在第 2 步的权重 (T,)
        row_names.append(f"{example.tokens[result.pronoun]} (... {example.tokens[changed]})")
        print(f"{example.tokens[changed]:>5s}: {example.tokens[result.pronoun]} -> "
              f"{example.tokens[result.antecedent]} ({rows[-1].max():.2f})")
    columns = [a if a == b else f"{a}/{b}" for a, b in zip(first.tokens, second.tokens)]
    ax = plots.attention_heatmap(np.stack(rows), x_labels=columns, y_labels=row_names)

# %% [markdown] lang="en"
# The same mechanism works in Chinese. In *小红把书递给小明，因为她想帮忙* ("Xiaohong handed the book to Xiaoming,
# because she wanted to help"), 她 (*she*) looks for a female person; 小红 is one, 小明 is not and the book is not a
# person. Change the clause to 因为他想看 (*because he wanted to read it*): 他 looks for a male, and the same
# matrices send it to 小明.

# %% [markdown] lang="zh"
# 同样的机制在中文里也成立。在“小红把书递给小明，因为她想帮忙”里，“她”要找一位女性：小红是，小明不是，
# 书更不是人。把后半句换成“因为他想看”：“他”要找男性，同样的矩阵就会让它指向小明。

# %%
for name in ("xiaohong_she", "xiaoming_he", "zh_animal_tired", "zh_animal_wide"):
    example = coreference.coreference_example(name)
    result = coreference.resolve(example)
    weight = result.weights[1][result.pronoun].max()
    print(f"{example.tokens[result.pronoun]} -> {example.tokens[result.antecedent]}   "
          f"[en](weight {weight:.2f})   {''.join(example.tokens)}[zh]（权重 {weight:.2f}）   {''.join(example.tokens)}")

# %% [markdown] lang="en"
# **Is it real?** Flip one feature and the attention must follow. Below we claim that 小明 is female too:
# now two keys match the query of 她 equally, and its attention splits between them. Try other flips in the cell:
# give `street` the feature `can_be_tired`, or take `can_be_tired` away from `animal`.

# %% [markdown] lang="zh"
# **这个演示靠得住吗**？翻转一个特征，注意力就必须跟着变。下面我们假设小明也是女性：这时有两个 Key
# 同样匹配“她”的 Query，注意力就在两人之间平分。你也可以在这个单元格里试试别的改法：
# 给 `street` 加上 `can_be_tired`，或者去掉 `animal` 的 `can_be_tired`。

# %%
she = coreference.coreference_example("xiaohong_she")
both_female = coreference.with_feature(she, "小明", "female", 1.0)
for example in (she, both_female):
    row = coreference.resolve(example).pronoun_weights()
    print({token: round(weight, 2) for token, weight in row.items() if weight > 0.05})

# %% [markdown] lang="en"
# The widget does the same for every sentence: pick one, flip features of any word, and watch the pronoun's
# weights of both steps. Reset brings the sentence back.

# %% [markdown] lang="zh"
# 下面的控件可以对每个句子做同样的实验：选一个句子，翻转任意词的特征，观察代词在两步中的权重。点“复原”即可回到原句。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
coreference.coreference_widget()   # [en] opens on a sentence in this edition's language [zh] 打开时显示一个本版语言的句子


# %% [markdown] lang="en"
# This toy model was written by hand; a real Transformer **learns** its matrices from data, and nothing
# guarantees that it learns the right ones ([12 · Attention inside a trained Transformer](12_trained_transformer.ipynb)
# trains a small one on the same twins, in both languages, and measures what it learned). Attention is the mechanism that makes such a lookup possible in one
# step, wherever the noun is. The chain is always the same:
#
# **representation → compare the query with every key → weights → weighted sum of values → new representation.**

# %% [markdown] lang="zh"
# 这个小模型的矩阵是手工设定的；真正的 Transformer 会从数据中**学习**这些矩阵，而且并不保证一定能学对（[12 · 训练好的 Transformer 里的注意力](12_trained_transformer.ipynb)
# 在同样的孪生句上训练了一个小模型，中英文都有，并测量它到底学到了什么）。
# 注意力提供的是一种机制：无论名词在句子的什么位置，都能一步完成这样的查找。因果链始终是：
#
# **词的表示 → 用 Query 与每个 Key 比较 → 权重 → 对 Value 加权求和 → 带上下文的新表示。**

# %% [markdown] lang="en"
# ## Exercise 1: mix the values
#
# The last step of attention is a weighted sum: output row $i$ is $\sum_j \alpha_{ij} v_j$. Write it for any number
# of queries (and a batch in front): `weights` has shape $(\dots, T_q, T_k)$, `v` has shape $(\dots, T_k, D_v)$, and
# the result $(\dots, T_q, D_v)$. The checker starts with the worked example, $0.670 \cdot [2, 0] + 0.330 \cdot [0, 4]$.

# %% [markdown] lang="zh"
# ## 练习 1：混合 Value
#
# 注意力的最后一步是加权求和：第 $i$ 行输出是 $\sum_j \alpha_{ij} v_j$。请写一个对任意多个 Query
# （前面还可以有批量维度）都适用的版本：`weights` 的形状是 $(\dots, T_q, T_k)$，`v` 的形状是 $(\dots, T_k, D_v)$，
# 结果的形状是 $(\dots, T_q, D_v)$。检查器先用上面的例题 $0.670 \cdot [2, 0] + 0.330 \cdot [0, 4]$ 来试。

# %%
def my_weighted_sum(weights, v):
    """[en] weights (..., Tq, Tk), v (..., Tk, Dv) -> (..., Tq, Dv): row i is sum_j weights[i, j] * v[j]
    [zh] weights (..., Tq, Tk)，v (..., Tk, Dv) -> (..., Tq, Dv)：第 i 行是 sum_j weights[i, j] * v[j]"""
    raise NotImplementedError("[en]one line is enough[zh]一行就够了")

checks.check_weighted_sum(my_weighted_sum)


# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def my_weighted_sum(weights, v):
#     return weights @ v                             # (..., Tq, Tk) @ (..., Tk, Dv) -> (..., Tq, Dv)
# ```
# `@` multiplies the last two axes and broadcasts the ones in front, so the batch comes for free.
# </details>

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def my_weighted_sum(weights, v):
#     return weights @ v                             # (..., Tq, Tk) @ (..., Tk, Dv) -> (..., Tq, Dv)
# ```
# `@` 只在最后两个轴上做矩阵乘法，前面的轴自动广播，所以批量维度不用另外处理。
# </details>

# %% [markdown] lang="en"
# ## Exercise 2: write attention yourself
#
# A common first attempt forgets the scaling. The checker runs it on the worked example and on edge cases and says
# what is wrong, in plain words:

# %% [markdown] lang="zh"
# ## 练习 2：亲手写一个注意力
#
# 初学者第一次写时，常常忘了缩放。下面就是这样一个版本；检查器会用上面的例题和几种边界情况运行它，并用大白话指出哪里不对：

# %%
def attention_without_scale(q, k, v):             # [en] a common first attempt [zh] 常见的第一次尝试
    weights = ac.softmax(q @ k.T)
    return weights @ v, weights

checks.check_attention(attention_without_scale)


# %% [markdown] lang="en"
# **Your turn.** Edit `my_attention` below (keep the signature: it returns `(output, weights)`), run the cell, and
# read the verdict. Until you write it, the checker says the function is not implemented; that is expected.
# Once it passes, break it on purpose: use `k @ q.swapaxes(-1, -2)`, or drop the softmax, and read what the checker says.

# %% [markdown] lang="zh"
# **轮到你了**。修改下面的 `my_attention`（保持函数签名不变：返回 `(output, weights)`），运行单元格，
# 看检查结果。还没写之前，检查器会提示函数尚未实现，这是正常的。
# 通过之后，再故意改错试试：换成 `k @ q.swapaxes(-1, -2)`，或者去掉 softmax，看看检查器怎么说。

# %%
def my_attention(q, k, v):
    """[en] q (..., Tq, Dk), k (..., Tk, Dk), v (..., Tk, Dv) -> (output (..., Tq, Dv), weights (..., Tq, Tk))
    [zh] q (..., Tq, Dk)，k (..., Tk, Dk)，v (..., Tk, Dv) -> (output (..., Tq, Dv)，weights (..., Tq, Tk))"""
    # [en] 1. scores: compare every query with every key (hint: k.swapaxes(-1, -2) works for batches, k.T does not)
    # [zh] 1. 分数：每个 Query 与每个 Key 比较（提示：k.swapaxes(-1, -2) 对批量也适用，k.T 不行）
    # [en] 2. scale the scores by 1 / sqrt(d_k) [zh] 2. 把分数乘以 1 / sqrt(d_k) 来缩放
    # [en] 3. softmax over the last axis (ac.softmax) [zh] 3. 在最后一个轴上做 softmax（ac.softmax）
    # [en] 4. mix the values with the weights; return (output, weights) [zh] 4. 用权重混合各个 Value；返回 (output, weights)
    raise NotImplementedError("[en]write the four steps above[zh]写出上面的四步")

checks.check_attention(my_attention)

# %% [markdown] lang="en"
# <details><summary>Show a solution (try first!)</summary>
#
# ```python
# def my_attention(q, k, v):
#     d_k = q.shape[-1]
#     scores = q @ k.swapaxes(-1, -2)                # (..., Tq, Tk)
#     weights = ac.softmax(scores / np.sqrt(d_k))    # each row sums to 1
#     return weights @ v, weights                    # (..., Tq, Dv), (..., Tq, Tk)
# ```
# </details>
#
# This is what a pass looks like: the library's own function, judged by the same checker.

# %% [markdown] lang="zh"
# <details><summary>查看参考答案（先自己试试！）</summary>
#
# ```python
# def my_attention(q, k, v):
#     d_k = q.shape[-1]
#     scores = q @ k.swapaxes(-1, -2)                # (..., Tq, Tk)
#     weights = ac.softmax(scores / np.sqrt(d_k))    # 每一行的和为 1
#     return weights @ v, weights                    # (..., Tq, Dv), (..., Tq, Tk)
# ```
# </details>
#
# 通过检查时是这个样子：用同一个检查器来评判库里自带的函数。

# %%
checks.check_attention(ac.scaled_dot_product_attention)

# %% [markdown] lang="en"
# ## What a weight does and does not mean
#
# A weight $\alpha_{ij}$ says how much of position $j$'s **value** goes into position $i$'s new vector, in this
# head, this layer, for this input. It is not a probability that $j$ "explains" $i$. Watch: below, the first key
# matches the query strongly and takes most of the weight, yet its value is zero, so it contributes **nothing**
# to the output. Everything in the output comes from the token with the small weight.

# %% [markdown] lang="zh"
# ## 权重说明什么，不说明什么
#
# 权重 $\alpha_{ij}$ 表示：在这个头、这一层、这次输入里，位置 $j$ 的 **Value** 有多少进入了位置 $i$ 的新向量。
# 它不是“$j$ 解释了 $i$”的概率。看下面的例子：第一个 Key 与 Query 高度匹配，拿走了大部分权重，
# 但它的 Value 是零，所以它对输出**毫无**贡献；输出里的一切都来自权重很小的那个 token。

# %%
q6 = np.array([[1.5, 0.0]])
k6 = np.array([[1.5, 0.0], [0.0, 1.5]])
v6 = np.array([[0.0, 0.0], [5.0, 5.0]])               # [en] the heavily weighted token carries a zero value [zh] 权重大的那个 token，Value 是零
out6, w6 = ac.scaled_dot_product_attention(q6, k6, v6)
for key, value in (("[en]weights[zh]权重", w6.round(3)), ("[en]contributions[zh]各自的贡献", (w6[0][:, None] * v6).round(3).tolist()),
                   ("[en]output[zh]输出", out6.round(3))):
    print(pad(key, 16) + ":", value)

# %% [markdown] lang="en"
# And attention is only one step: residual connections, other heads and later layers keep changing the vector.
# A heatmap is a clue for analysis, not a proof of why a model decided something.
#
# ### Self-test (Q6)

# %% [markdown] lang="zh"
# 而且注意力只是其中一步：残差连接、其他注意力头和后续的层都还在不断改变这个向量。
# 注意力热图可以作为分析线索，但不能证明模型为什么做出某个决定。
#
# ### 自测题（Q6）

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
quiz.quiz_widget("q6")

# %% [markdown] lang="en"
# ## Summary
#
# - **Query** = what I look for, **Key** = how I can be matched, **Value** = what I hand over.
#   Keys decide *how much*, values decide *what*.
# - One attention step: scores $qk^\top$ → divide by $\sqrt{d}$ → softmax → weighted sum of values.
#   The worked example gives weights $[0.670, 0.330]$ and output $[1.340, 1.321]$ (the tutorial's $1.320$ rounds the weights first).
# - Weights follow content, not distance; with the right features, a pronoun's query finds its noun, and the
#   Winograd twin flips the answer.
# - A large weight means "much of this value was mixed in here", not "this token explains the decision".
#
# **Next:** [02 · Scaled dot-product attention and the √d_k](02_scaled_dot_product.ipynb): why that division matters as vectors grow wider.

# %% [markdown] lang="zh"
# ## 小结
#
# - **Query** = 我在找什么，**Key** = 我凭什么被匹配，**Value** = 我交出什么。Key 决定取**多少**，Value 决定取**什么**。
# - 一步注意力：打分 $qk^\top$ → 除以 $\sqrt{d}$ → softmax → 对 Value 加权求和。
#   本节的例子得到权重 $[0.670, 0.330]$，输出为 $[1.340, 1.321]$（原教程的 $1.320$ 是先把权重四舍五入再算的）。
# - 权重跟着内容走，不跟着距离走；有了合适的特征，代词的 Query 能找到它指代的名词，而 Winograd 孪生句会让答案翻转。
# - 权重大意味着“这个 Value 在这里混入得多”，而不是“这个 token 解释了模型的决定”。
#
# **下一节**：[02 · 缩放点积注意力与 √d_k](02_scaled_dot_product.ipynb)——为什么向量维度越高，这个除法越重要。
