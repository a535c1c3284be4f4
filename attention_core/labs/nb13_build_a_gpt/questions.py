"""Extra self-test questions of notebook 13, on the GPT the learner built (beyond the quiz bank).

`teaching.quiz.Question` objects, so `quiz.quiz_widget(EXTRA["x13a"])` shows them like the others;
their ids start with x ("extra") and their topics say so.
"""
from __future__ import annotations

from attention_core.teaching.quiz import Option, Pointer, Question

_NB = "13_build_a_gpt"


def _o(en, zh, why_en, why_zh) -> Option:
    return Option({"en": en, "zh": zh}, {"en": why_en, "zh": why_zh})


EXTRA = {
    "x13a": Question(
        id="x13a",
        topic={"en": "Extra · what a context window counts", "zh": "附加题 · 上下文窗口数的是什么"},
        question={"en": "A model reads at most 256 tokens. With one token per character, how much of this course's "
                        "prose fits, and what changes after byte-pair merges?",
                  "zh": "一个模型最多读 256 个 token。每个字符一个 token 时，本课程的文字能放进去多少？做"
                        "了字节对合并之后又有什么变化？"},
        kind="choice",
        options=(
            _o("256 characters in either language; merges pack more characters into each token, so more text fits",
               "两种语言都是 256 个字符；合并让每个 token 装下更多字符，于是能放进更多文字",
               "Yes: the window is counted in tokens. Merges learned on a text make its frequent pairs one token, "
               "so the same 256 tokens cover more characters (and the saving differs by language).",
               "对：窗口按 token 计数。在一段文字上学到的合并把其中常见的字符对变成一个 token，同样 256 个 token "
               "就能覆盖更多字符（而且不同语言节省得不一样）。"),
            _o("256 words in English and 256 characters in Chinese, because English words are separated by spaces",
               "英文是 256 个词，中文是 256 个字，因为英文单词之间有空格",
               "A character tokenizer knows no words: a space is one more character, with an id of its own.",
               "字符级分词器不知道什么是词：空格也只是一个字符，有自己的 id。"),
            _o("256 bytes of UTF-8 in either language, so a Chinese character costs three of the 256 tokens",
               "两种语言都是 256 个 UTF-8 字节，所以一个汉字要占掉 256 个 token 中的三个",
               "That would be a byte-level tokenizer. Here one character is one token, whatever its UTF-8 length.",
               "那是字节级分词器。这里一个字符就是一个 token，不管它的 UTF-8 编码有多长。"),
            _o("It depends on the attention weights: tokens with little weight do not count toward the 256",
               "这取决于注意力权重：权重很小的 token 不计入这 256 个",
               "Every token in the window counts, whatever weight it gets; the mask, not the weights, sets the window.",
               "窗口里的每个 token 都算数，不管它得到多少权重；决定窗口的是掩码，不是权重。"),
        ),
        correct=(0,),
        reference={"en": "Windows are counted in tokens. One character per token: 256 characters of either language. "
                         "Merges make frequent pairs single tokens, so more text fits, by a different factor per "
                         "language.",
                   "zh": "窗口按 token 计数。每个字符一个 token：两种语言都是 256 个字符。合并把常见的字符"
                         "对变成单个 token，"
                         "于是能放进更多文字，两种语言的倍数不同。"},
        pointer=Pointer(_NB, {"en": "Tokens: the course's own text", "zh": "Token：本课程自己的文字"}, None),
    ),
    "x13b": Question(
        id="x13b",
        topic={"en": "Extra · what the KV cache saves", "zh": "附加题 · KV 缓存省下了什么"},
        question={"en": "Generating one more token with a context of T tokens: what does the KV cache change?",
                  "zh": "上下文里已有 T 个 token，再生成一个 token：KV 缓存改变了什么？"},
        kind="choice",
        options=(
            _o("Only the new token goes through the layers; its query attends to the T cached keys and values, so "
               "the step costs about T instead of T² in attention, and the output is the same",
               "只有新 token 要经过各层；它的 Query 对缓存里的 T 个 Key 和 Value 做注意力，所以这一步注意"
               "力的代价约为 T 而不是 "
               "T²，输出完全相同",
               "Yes: the earlier tokens' keys and values do not change (the mask stops them from seeing the new "
               "token), so they are kept instead of recomputed; greedy output is identical.",
               "对：前面 token 的 Key 和 Value 不会变（因果掩码不让它们看到新 token），所以保留下来而不必重算；"
               "贪心输出完全一样。"),
            _o("It keeps the attention weights of earlier steps, so the new token needs no softmax at all and the "
               "step costs a constant amount of work",
               "它保存了之前各步的注意力权重，所以新 token 根本不用做 softmax，每一步的工作量是常数",
               "The new query's weights over all T keys must be computed each step; what is kept are keys and values.",
               "新 Query 对全部 T 个 Key 的权重每一步都要重新算；保存下来的是 Key 和 Value。"),
            _o("It lets the model read more than its context length, because old tokens are compressed into the "
               "cache instead of being dropped from the window",
               "它让模型能读超过上下文长度的内容，因为旧 token 被压缩进缓存，而不是被挤出窗口",
               "The cache holds one K and V per token and layer, uncompressed; the position table still ends at T_max.",
               "缓存为每个 token、每一层存一份未经压缩的 K 和 V；可学习的位置编码照样只到 T_max 为止。"),
            _o("It trades exactness for speed: cached generation is close to, but not the same as, recomputing "
               "everything, which is why sampling needs a seed",
               "它用精确换速度：带缓存的生成与全部重算接近但不相同，所以采样需要种子",
               "The checker of this notebook shows greedy output identical to recomputing; the seed is for sampling.",
               "本节的检查器表明，贪心输出与全部重算完全相同；种子是给采样用的。"),
        ),
        correct=(0,),
        reference={"en": "Keys and values of earlier tokens never change in a causal model, so they are cached; each "
                         "step runs one token through the layers and one query against T keys.",
                   "zh": "在因果模型里，前面 token 的 Key 和 Value 永远不变，所以可以缓存；每一步只让一个"
                         " token 经过各层，"
                         "用一个 Query 去对 T 个 Key。"},
        pointer=Pointer(_NB, {"en": "Let it write", "zh": "让它写"}, None),
    ),
    "x13c": Question(
        id="x13c",
        topic={"en": "Extra · reading a loss against a baseline", "zh": "附加题 · 对照基线看损失"},
        question={"en": "Your model's validation loss is below the bigram baseline's. What does that show?",
                  "zh": "你的模型在验证集上的损失低于 bigram 基线。这说明了什么？"},
        kind="choice",
        options=(
            _o("It predicts the held-out text better than counting which character follows which, so it uses more "
               "than the previous character: the context that attention gives it",
               "它对留出文本的预测好过“数一数哪个字符后面跟哪个字符”，所以它用到的不只是前一个字符，而是注"
               "意力带来的上下文",
               "Yes: a bigram model sees exactly one previous character; doing better on text it never trained on "
               "needs more of the context.",
               "对：bigram 模型只看得到前一个字符；在没训练过的文本上做得更好，就要用到更多的上下文。"),
            _o("It has memorised the training text, because a lower loss always means a model has seen the same "
               "sentences during training",
               "它背下了训练文本，因为损失更低总是意味着模型在训练时见过同样的句子",
               "The loss is measured on the held-out last tenth of each language, never trained on.",
               "损失是在每种语言最后十分之一的留出文本上测的，那部分从来没有参与训练。"),
            _o("It understands the course as a reader does, since perplexity measures how well the meaning of each "
               "paragraph is captured",
               "它像读者一样理解了课程内容，因为困惑度衡量的是每段话的意思被抓住了多少",
               "Perplexity measures next-character prediction, nothing more; the samples show how far that is from "
               "meaning.",
               "困惑度只衡量下一个字符预测得好不好，仅此而已；生成的样本就能看出它离“意思”还有多远。"),
            _o("Nothing yet: a bigram baseline is always beaten by any neural network, even an untrained one with "
               "random weights",
               "什么也说明不了：任何神经网络，哪怕是权重随机、没训练过的，都总能打败 bigram 基线",
               "An untrained model predicts almost uniformly: its loss is near ln V, far above the bigram's.",
               "没训练过的模型几乎是均匀预测：它的损失接近 ln V，远高于 bigram。"),
        ),
        correct=(0,),
        reference={"en": "Below the bigram baseline on held-out text means the model predicts with more than one "
                         "previous character: it uses its context.",
                   "zh": "在留出文本上低于 bigram 基线，说明模型预测时用到的不只是前一个字符：它用上了上下文。"},
        pointer=Pointer(_NB, {"en": "Train it on the course text", "zh": "在课程文字上训练"}, None),
    ),
}
