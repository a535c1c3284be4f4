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
# - compute one attention step by hand;
# - explain why attention follows **content**, not distance, and watch a pronoun find its noun;
# - say what a large attention weight does, and does not, tell you.
#
# **What you should know first:** the dot product and softmax ([00](00_start_here.ipynb)). *About 50 minutes.*

# %% [markdown] lang="zh"
# # 01 · Query、Key、Value：直观理解
#
# **学完本节，你将能够**
# - 说清 Query、Key、Value 各自的用途，以及为什么要把 Key 和 Value 分开；
# - 手算一步注意力；
# - 解释为什么注意力跟着**内容**走而不是跟着距离走，并亲眼看到代词找到它指代的名词；
# - 说清注意力权重大能说明什么，不能说明什么。
#
# **需要的基础**：点积和 softmax，见 [00 节](00_start_here.ipynb)。*约 50 分钟。*

# %%
LANG = "[en]en[zh]zh"  # [en] language of this edition: "en" or "zh" [zh] 本版的语言："en" 或 "zh"
# %matplotlib inline
import numpy as np

import attention_core as ac
from attention_core.labs.nb01_query_key_value import checks, coreference, widgets
from attention_core.teaching import formula, i18n, plots, quiz
from attention_core.teaching.tables import pad

i18n.set_language(LANG)
rng = np.random.default_rng(0)  # [en] every random number in this notebook comes from this seed [zh] 本节的所有随机数都来自这个种子

# %% [markdown] lang="en"
# ## Three roles: a question, a label, the contents
#
# In a noisy coffee shop a friend says "he", and you hold an open question: *who is "he"?* You score each person
# mentioned by how well they fit, and take mostly (not only) what you know about the best fit. Or picture a library:
#
# | role | in the coffee shop | in the library | in attention |
# |---|---|---|---|
# | **Query** | "who is 'he'?" | the question you walk in with | what this token is looking for |
# | **Key** | each name mentioned | the label on each book's spine | how each token can be matched |
# | **Value** | what you know about that person | the contents of the book | what each token hands over |
#
# Keys decide *how much* to take from each position, values decide *what*. Two vectors, because "how I am found" and
# "what I give" are different jobs: change only the values and the weights stay put; change the keys and they move.

# %% [markdown] lang="zh"
# ## 三种角色：问题、标签、内容
#
# 在嘈杂的咖啡馆里，朋友说到“他”，你心里冒出一个问题：“他”是谁？你给朋友提到的每个人打分，主要从最符合的那个人身上取信息，
# 但也不完全忽略其他人。也可以想象一座图书馆：
#
# | 角色 | 在咖啡馆里 | 在图书馆里 | 在注意力里 |
# |---|---|---|---|
# | **Query（查询）** | “他”是谁 | 你带着进门的问题 | 当前 token 想找什么 |
# | **Key（键）** | 提到的每个名字 | 书脊上的标签 | 每个 token 凭什么被匹配 |
# | **Value（值）** | 你对那个人的了解 | 书里的内容 | 每个 token 交出什么 |
#
# Key 决定从每个位置取**多少**，Value 决定取**什么**。之所以要两个向量，是因为“我凭什么被找到”和“我能提供什么”是两件事。
# 只改 Value，权重纹丝不动；只改 Key，权重随之改变。

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
# The smallest complete attention computation, the worked example of the tutorial *The attention mechanism*
# [“注意力机制”]: one query $q = [1, 0]$, two keys $k_1 = [1, 0]$, $k_2 = [0, 1]$ of width $d_k = 2$ (the tutorial writes
# $d$), and their values $v_1 = [2, 0]$, $v_2 = [0, 4]$. Each line below is one step of
# $\text{Attention}(Q, K, V) = \text{softmax}\left(QK^\top / \sqrt{d_k}\right)V$.

# %% [markdown] lang="zh"
# ## 逐步算一遍例题
#
# 下面是一次最小的完整注意力计算，取自《注意力机制》一文的例题：一个 Query $q = [1, 0]$，两个维度 $d_k = 2$ 的 Key（原教程记作 $d$）
# $k_1 = [1, 0]$、$k_2 = [0, 1]$，以及对应的 Value $v_1 = [2, 0]$、$v_2 = [0, 4]$。代码的每一行对应公式
# $\text{Attention}(Q, K, V) = \text{softmax}\left(QK^\top / \sqrt{d_k}\right)V$ 中的一步。

# %%
scores = q @ k.T                                   # [en] 1. match: one dot product per key [zh] 1. 匹配：每个 Key 一个点积
scaled = scores / np.sqrt(q.shape[-1])            # [en] 2. scale by sqrt(d_k) = sqrt(2) [zh] 2. 除以 sqrt(d_k) = sqrt(2) 来缩放
weights = ac.softmax(scaled)                      # [en] 3. softmax: non-negative, sums to 1 [zh] 3. softmax：非负，和为 1
output = weights @ v                              # [en] 4. mix the values with the weights [zh] 4. 用权重混合各个 Value
print(pad("[en]scores[zh]分数" + "  [q·k1, q·k2]", 24), "=", show(scores))
print(pad("[en]scaled[zh]缩放" + "  / sqrt(2)", 24), "=", show(scaled))
print(pad("[en]weights[zh]权重" + "  softmax", 24), "=", show(weights), f"[en]  sum = {weights.sum():.3f}[zh]  和 = {weights.sum():.3f}")
print(pad("[en]output[zh]输出" + "  α1·v1 + α2·v2", 24), "=", show(output))
print("[en]same as the library:[zh]与库的结果相同：", np.allclose(output, ac.scaled_dot_product_attention(q, k, v)[0]))

# %% [markdown] lang="en"
# The numbers match the tutorial: scores $[1, 0]$, scaled $[0.707, 0]$, weights $[0.670, 0.330]$. The output is
# $[1.340, 1.321]$; the tutorial's $1.320$ comes from the rounded weight ($0.330 \times 4$), the exact one being
# $0.33024$. The output is **not** a copy of the best match $v_1$ but a blend: mostly $v_1$, partly $v_2$.
#
# The library's readable version, `ac.reference_attention`, is the same four lines plus a mask (notebook 04). Below
# is its body. When you call it, its entry first checks the inputs and fills in `scale` $= 1/\sqrt{d_k}$ unless you
# pass one, so `* scale` in the body is step 2, the division by $\sqrt{d_k}$. `softmax_rows` is the library's
# softmax, `ac.reference_softmax`, without its entry checks. The function you call, `ac.scaled_dot_product_attention`, is a faster path with the same results.

# %% [markdown] lang="zh"
# 这些数与原教程一致：分数 $[1, 0]$，缩放后 $[0.707, 0]$，权重 $[0.670, 0.330]$。输出是 $[1.340, 1.321]$，
# 原教程的 $1.320$ 是用四舍五入后的权重算的（$0.330 \times 4$），精确的权重是 $0.33024$。
# 输出**不是**把最匹配的 $v_1$ 原样复制过来，而是两者的混合：大部分来自 $v_1$，一部分来自 $v_2$。
#
# 库里的可读版本 `ac.reference_attention` 就是这四行，外加一个掩码（04 节会讲）。下面打印的是它的函数体。
# 调用它时，入口会先检查输入；如果你没有传 `scale`，入口会把它设为 $1/\sqrt{d_k}$。所以函数体里的 `* scale`
# 就是第 2 步，即除以 $\sqrt{d_k}$。`softmax_rows` 就是库里的 softmax，即 `ac.reference_softmax` 去掉入口检查后的版本。
# 平时调用的 `ac.scaled_dot_product_attention` 是它的快速实现，结果相同。

# %%
print(formula.source(ac.reference_attention))

# %% [markdown] lang="en"
# Now take the controls. Move $q$ and every intermediate number changes; move the values and only the output moves.
# Try: point $q$ at $k_2$; make $q$ twice as long (the weights get sharper); set $q = [0, 0]$ (half and half).

# %% [markdown] lang="zh"
# 现在轮到你动手。拖动 $q$，每个中间结果都跟着变；拖动 Value，只有输出在变。试试让 $q$ 指向 $k_2$，
# 把 $q$ 拉长一倍（权重会变得更尖），或者把 $q$ 设为 $[0, 0]$（权重各占一半）。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
widgets.attention_step_widget(q=[1.0, 0.0], keys=k, values=v)

# %% [markdown] lang="en"
# ## Weights follow content, not distance
#
# A query does not prefer its neighbours. One key matches the query, eight do not; put the matching key first, in
# the middle, last: its weight is the same, because nothing in the formula looks at positions (notebook 07 adds them).

# %% [markdown] lang="zh"
# ## 权重跟着内容走，不跟着距离走
#
# Query 并不偏爱离自己近的位置。下面有九个 Key，只有一个与 Query 匹配。不论把它放在最前、中间还是最后，它得到的权重都一样，
# 因为公式里没有任何一项在看位置（07 节会把位置加进来）。

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
# *"The animal didn't cross the street because it was too tired."* *It* is the animal: animals get tired, streets do
# not. Change one word, *"... because it was too **wide**"*, and *it* becomes the street. Such a *Winograd* pair is a
# real test: "pick the nearest noun" or "pick the subject" gets one of the two wrong.
#
# We build a tiny model whose every number has a name, to see **why** attention can do it. Each word is a vector of
# named features (`animate`, `place`, `can_be_tired`, `can_be_wide`, ...; features that are 0 in this sentence are not shown):

# %% [markdown] lang="zh"
# ## “它”指的是谁？
#
# “动物没有过马路，因为它太累了。”这里的“它”指动物，因为动物会累，马路不会。只改一个字，“……因为它太**宽**了”，
# “它”就变成了马路。这样只差一个词、指代却相反的两句话叫孪生句（Winograd 句对），正好用来检验模型会不会指代消解：
# “选最近的名词”或“选主语”这类规则，总有一句会选错。原教程用的是英文句子
# *The animal didn't cross the street because it was too tired*，道理完全相同，下面也会用同一组矩阵算它。
#
# 我们搭一个极小的模型，它的每个参数都有明确含义，好看清注意力**为什么**能做到这一点。每个词是一个向量，
# 每一维是一个有名字的特征，比如“有生命”“地点”“会累”“可形容为宽”（在这句话里为 0 的特征不列出）：

# %%
tired = coreference.coreference_example("[en]animal_tired[zh]zh_animal_tired")
wide = coreference.coreference_example("[en]animal_wide[zh]zh_animal_wide")
coreference.feature_table(tired)

# %% [markdown] lang="en"
# The model runs two attention steps with fixed, readable matrices:
#
# 1. **What is said about me?** The pronoun's query asks for a predicate adjective; the adjective's value copies
#    `pred_tired` or `pred_wide` into the pronoun's vector.
# 2. **Who can that be?** Now the pronoun's query says "I need something that can be tired" (or wide); each noun's
#    key says what it can be; the best match hands over its identity.
#
# Step 1 at work, then the two matrices of step 2: $W^Q$ turns `pred_tired` into "looking for `tired`", $W^K$ turns
# `can_be_tired` into "I can be `tired`".

# %% [markdown] lang="zh"
# 这个模型用固定且可读的矩阵做两步注意力。
#
# 1. **句子怎么描述我**？代词的 Query 去找描述它的形容词，形容词的 Value 把特征“被形容为累”或“被形容为宽”复制进代词的向量。
# 2. **这会是谁**？这时代词的 Query 变成“我要找一个会累的东西”（或“可形容为宽的东西”），每个名词的 Key 说明自己可能是什么，
#    最匹配的名词交出自己的身份。
#
# 先看第 1 步的效果，再看第 2 步的两个矩阵：$W^Q$ 把“被形容为累”变成“我在找会累的东西”，$W^K$ 把“会累”变成“我是会累的”。

# %%
params = coreference.default_params()
step1 = coreference.resolve(tired).pronoun_weights(step=1)
print("[en]step 1, 'it' attends to:[zh]第 1 步，“它”关注的是：", {token: round(w, 2) for token, w in step1.items() if w > 0.05})
coreference.matrix_table(params, "w_q2")

# %%
coreference.matrix_table(params, "w_k2")

# %% [markdown] lang="en"
# No line of code looks at the words, only at the features and these matrices. The pronoun's step-2 weights for both
# sentences of each twin, English and Chinese, with the same matrices:

# %% [markdown] lang="zh"
# 没有一行代码在看具体的词，只有特征和这些矩阵。下面是每组孪生句中代词在第 2 步的权重，中文、英文各一组，用的是同一组矩阵：

# %%
twins = [(tired, wide), (coreference.coreference_example("[en]zh_animal_tired[zh]animal_tired"),     # [en] the other language's twin [zh] 另一种语言的孪生句
                         coreference.coreference_example("[en]zh_animal_wide[zh]animal_wide"))]
for first, second in twins:
    changed = [a != b for a, b in zip(first.tokens, second.tokens)].index(True)   # [en] the one word that differs [zh] 唯一不同的那个词
    rows, row_names = [], []
    for example in (first, second):
        result = coreference.resolve(example)
        rows.append(result.weights[1][result.pronoun])          # [en] the pronoun's step-2 weights (T,) [zh] 代词在第 2 步的权重 (T,)
        row_names.append(f"{example.tokens[result.pronoun]} (... {example.tokens[changed]})")
        print(f"{pad(example.tokens[changed], 5, 'right')}: {example.tokens[result.pronoun]} -> "
              f"{example.tokens[result.antecedent]} ({rows[-1].max():.2f})")
    columns = [a if a == b else f"{a}/{b}" for a, b in zip(first.tokens, second.tokens)]
    ax = plots.attention_heatmap(np.stack(rows), x_labels=columns, y_labels=row_names)

# %% [markdown] lang="en"
# In Chinese, in 小红把书递给小明，因为她想帮忙 (*Xiaohong handed the book to Xiaoming, because she wanted to help*),
# 她 (*she*) looks for a female person: 小红. Change the clause to 因为他想看 (*because he wanted to read it*) and
# 他 (*he*) finds 小明.

# %% [markdown] lang="zh"
# 在“小红把书递给小明，因为她想帮忙”里，“她”要找一位女性，找到的是小红。把后半句换成“因为他想看”，“他”找到的就是小明。

# %%
for name in ("xiaohong_she", "xiaoming_he", "zh_animal_tired", "zh_animal_wide"):
    example = coreference.coreference_example(name)
    result = coreference.resolve(example)
    weight = result.weights[1][result.pronoun].max()
    print(f"{example.tokens[result.pronoun]} -> {example.tokens[result.antecedent]}   "
          f"[en](weight {weight:.2f})   {''.join(example.tokens)}[zh]（权重 {weight:.2f}）   {''.join(example.tokens)}")

# %% [markdown] lang="en"
# **Is it real?** Flip one feature and the attention must follow. Make 小明 female too: two keys now match 她 equally
# and the attention splits. Try other flips in the cell: give `street` the feature `can_be_tired`, or take it from
# `animal`.

# %% [markdown] lang="zh"
# **这个演示靠得住吗**？翻转一个特征，注意力就必须跟着变。假设小明也是女性，两个 Key 同样匹配“她”，注意力就在两人之间平分。
# 你也可以在这个单元格里试试别的改法，比如在“它太累了”那句里给“马路”加上会累（`can_be_tired`），或者去掉“动物”的这个特征。

# %%
she = coreference.coreference_example("xiaohong_she")
both_female = coreference.with_feature(she, "小明", "female", 1.0)
for example in (she, both_female):
    row = coreference.resolve(example).pronoun_weights()
    print({token: round(weight, 2) for token, weight in row.items() if weight > 0.05})

# %% [markdown] lang="en"
# The widget does this for every sentence: pick one, flip features, and watch the pronoun's weights in both steps.

# %% [markdown] lang="zh"
# 下面的控件对每个句子都能这样做。选一个句子，翻转特征，观察代词在两步中的权重。

# %%
# NBVAL_IGNORE_OUTPUT
# (a live widget)
coreference.coreference_widget()   # [en] opens on a sentence in this edition's language [zh] 打开时显示一个本版语言的句子


# %% [markdown] lang="en"
# A real Transformer **learns** such matrices from data, and nothing guarantees it learns the right ones
# ([12 · Attention inside a trained Transformer](12_trained_transformer.ipynb) trains one on these twins and measures
# it). Attention is what makes the lookup possible in one step, wherever the noun is:
#
# **representation → compare the query with every key → weights → weighted sum of values → new representation.**

# %% [markdown] lang="zh"
# 真正的 Transformer 要从数据中**学**出这样的矩阵，而且不保证学对。[12 · 训练好的 Transformer 里的注意力](12_trained_transformer.ipynb)
# 会在这些孪生句上训练一个模型并测量它。注意力提供的是一种机制：无论名词在哪里，一步就能查到它。整个过程是
#
# **词的表示 → 用 Query 与每个 Key 比较 → 权重 → 对 Value 加权求和 → 带上下文的新表示。**

# %% [markdown] lang="en"
# ## Exercise 1 · ★☆☆ · about 5 min: mix the values
#
# The last step of attention is a weighted sum: output row $i$ is $\sum_j \alpha_{ij} v_j$. Write it for `weights`
# $(\dots, T_q, T_k)$ and `v` $(\dots, T_k, D_v)$, returning $(\dots, T_q, D_v)$. The checker starts with the worked example.

# %% [markdown] lang="zh"
# ## 练习 1 · ★☆☆ · 约 5 分钟：混合 Value
#
# 注意力的最后一步是加权求和，第 $i$ 行输出是 $\sum_j \alpha_{ij} v_j$。请对形状为 $(\dots, T_q, T_k)$ 的 `weights`
# 和 $(\dots, T_k, D_v)$ 的 `v` 写出它，返回 $(\dots, T_q, D_v)$。检查器先用上面的例题来试。

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
# ## Exercise 2 · ★★☆ · about 15 min: write attention yourself
#
# A common first attempt forgets the scaling. Here is one; the checker runs it on the worked example and on edge cases:

# %% [markdown] lang="zh"
# ## 练习 2 · ★★☆ · 约 15 分钟：亲手写一个注意力
#
# 初学者第一次写时常常忘了缩放。下面就是这样一个版本，检查器会用上面的例题和几种边界情况来运行它：

# %%
def attention_without_scale(q, k, v):             # [en] a common first attempt [zh] 常见的第一次尝试
    weights = ac.softmax(q @ k.T)
    return weights @ v, weights

checks.check_attention(attention_without_scale)


# %% [markdown] lang="en"
# **Your turn.** Write `my_attention` below (it returns `(output, weights)`) and run the cell. Once it passes, break
# it on purpose, with `k @ q.swapaxes(-1, -2)` or without the softmax, and read what the checker says.

# %% [markdown] lang="zh"
# **轮到你了**。写出下面的 `my_attention`（返回 `(output, weights)`）并运行。通过之后再故意改错，
# 比如换成 `k @ q.swapaxes(-1, -2)`，或者去掉 softmax，看看检查器怎么说。

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
# A pass looks like this (the library's own function):

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
# 通过检查时是这样的（检查的是库里自带的函数）：

# %%
checks.check_attention(ac.scaled_dot_product_attention)

# %% [markdown] lang="en"
# ## What a weight does and does not mean
#
# A weight $\alpha_{ij}$ says how much of position $j$'s **value** goes into position $i$'s new vector, in this head,
# layer and input. It is not a probability that $j$ "explains" $i$. Below, the first key matches strongly and takes
# most of the weight, yet its value is zero: it contributes **nothing**, and the whole output comes from the token
# with the small weight.

# %% [markdown] lang="zh"
# ## 权重说明什么，不说明什么
#
# 权重 $\alpha_{ij}$ 表示在这个头、这一层、这次输入里，位置 $j$ 的 **Value** 有多少进入了位置 $i$ 的新向量，
# 它不是“$j$ 解释了 $i$”的概率。下面第一个 Key 高度匹配，拿走了大部分权重，可它的 Value 是零，对输出**毫无**贡献，
# 输出全部来自权重很小的那个 token。

# %%
q6 = np.array([[1.5, 0.0]])
k6 = np.array([[1.5, 0.0], [0.0, 1.5]])
v6 = np.array([[0.0, 0.0], [5.0, 5.0]])               # [en] the heavily weighted token carries a zero value [zh] 权重大的那个 token，Value 是零
out6, w6 = ac.scaled_dot_product_attention(q6, k6, v6)
for key, value in (("[en]weights[zh]权重", w6.round(3)), ("[en]contributions[zh]各自的贡献", (w6[0][:, None] * v6).round(3).tolist()),
                   ("[en]output[zh]输出", out6.round(3))):
    print(pad(key, 16) + ":", value)

# %% [markdown] lang="en"
# And attention is one step among many: residual connections, other heads and later layers keep changing the vector.
# A heatmap is a clue, not a proof of why a model decided something.
#
# ### Self-test (Q6)

# %% [markdown] lang="zh"
# 而且注意力只是其中一步，残差连接、其他头和后面的层还在不断改变这个向量。注意力热图是分析的线索，不能证明模型为什么这样决定。
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
# - One step: scores $qk^\top$ → divide by $\sqrt{d_k}$ → softmax → weighted sum of values; the worked example gives
#   weights $[0.670, 0.330]$ and output $[1.340, 1.321]$.
# - Weights follow content, not distance; with the right features a pronoun's query finds its noun.
# - A large weight means "much of this value was mixed in here", not "this token explains the decision".
#
# **Next:** [02 · Scaled dot-product attention and √d_k](02_scaled_dot_product.ipynb).

# %% [markdown] lang="zh"
# ## 小结
#
# - **Query** 是我在找什么，**Key** 是我凭什么被匹配，**Value** 是我交出什么。
# - 一步注意力就是打分 $qk^\top$、除以 $\sqrt{d_k}$、softmax、对 Value 加权求和。本节的例题得到权重 $[0.670, 0.330]$，输出 $[1.340, 1.321]$。
# - 权重跟着内容走，不跟着距离走；有了合适的特征，代词的 Query 能找到它指代的名词。
# - 权重大意味着这个 Value 在这里混入得多，并不意味着这个 token 解释了模型的决定。
#
# **下一节**：[02 · 缩放点积注意力与 √d_k](02_scaled_dot_product.ipynb)。
