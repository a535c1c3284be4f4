"""Extra self-test questions of notebook 12, on learned heads (beyond the eight of the quiz bank).

They are `teaching.quiz.Question` objects, so `quiz.quiz_widget(EXTRA["x12a"])` shows them like the
others; their ids start with x ("extra") and their topics say so.
"""
from __future__ import annotations

from attention_core.teaching.quiz import Option, Pointer, Question

_NB = "12_trained_transformer"


def _o(en, zh, why_en, why_zh) -> Option:
    return Option({"en": en, "zh": zh}, {"en": why_en, "zh": why_zh})


EXTRA = {
    "x12a": Question(
        id="x12a",
        topic={"en": "Extra · what an induction head looks at", "zh": "附加题 · induction head 看哪里"},
        question={"en": "A sequence of 11 random tokens is repeated: token t of the second copy (t = 11 .. 21) is "
                        "token t − 11 of the first. Which key does an **induction head** at query t weight most?",
                  "zh": "一段 11 个随机 token 的序列被重复了一遍：第二遍的第 t 个 token（t = 11 .. 21）就是第一遍的第 "
                        "t − 11 个。位于 Query t 的 **induction head** 把最大的权重给哪个 Key？"},
        kind="choice",
        options=(
            _o("key t − 1, the previous token", "Key t − 1，前一个 token",
               "That is the previous-token head of layer 0. The induction head uses its output, but looks elsewhere.",
               "那是第 0 层的“前一个 token”头。induction head 会用到它的输出，但自己看的是别处。"),
            _o("key t − 11, the earlier occurrence of the same token", "Key t − 11，同一个 token 上一次出现的位置",
               "Close, but that token is the one we already have; the head looks one step later.",
               "接近了，但那个 token 就是我们手里已有的；这个头要再往后看一格。"),
            _o("key t − 10, the token that came right after the earlier occurrence",
               "Key t − 10，上一次出现之后紧跟着的那个 token",
               "Yes: its key carries “my previous token was x” (written there by the previous-token head), it "
               "matches the query “I am x”, and its value is the token to predict next.",
               "对：它的 Key 里写着“我前面的 token 是 x”（由“前一个 token”头写入），正好匹配 Query“我是 x”，"
               "而它的 Value 就是接下来要预测的 token。"),
            _o("key 0, the first token", "Key 0，第一个 token",
               "Some heads park spare weight on the first token, but that predicts nothing.",
               "有些头会把多余的权重停在第一个 token 上，但这预测不了任何东西。"),
        ),
        correct=(2,),
        reference={"en": "Key t − 11 + 1 = t − 10: the token after the previous occurrence of the current token. "
                         "The induction score of a head is its mean weight there.",
                   "zh": "Key t − 11 + 1 = t − 10：当前 token 上一次出现之后的那个 token。"
                         "一个头的 induction 得分就是它在这里的平均权重。"},
        pointer=Pointer(_NB, {"en": "Learned heads, measured", "zh": "学出来的头：量一量"},
                        "widgets.head_picker_widget"),
    ),
    "x12b": Question(
        id="x12b",
        topic={"en": "Extra · which heads matter", "zh": "附加题 · 哪些头重要"},
        question={"en": "In the induction model, switching off the previous-token head of layer 0 raises the loss on "
                        "the repeated half far above the loss with every head on; switching off one of the other "
                        "layer-0 heads changes it much less. What do you conclude?",
                  "zh": "在 induction 模型里，关掉第 0 层的“前一个 token”头，重复那一半上的损失远远高于所有头都开着时；"
                        "关掉第 0 层其他的某一个头，变化则小得多。你能得出什么结论？"},
        kind="choice",
        options=(
            _o("The other layer-0 heads are useless and were never trained.",
               "第 0 层的其他头没用，根本没被训练。",
               "They were trained like every parameter; on this task their removal costs little, which is a "
               "statement about this data, not about their weights.",
               "它们和其他参数一样被训练过；只是在这个任务上去掉它们损失很小，这说的是这批数据，而不是它们的权重。"),
            _o("In this trained model, the induction heads of layer 1 depend on that head; whether any path could "
               "replace it is a question removal alone does not answer.",
               "在这个训练好的模型里，第 1 层的 induction head 依赖这个头；至于有没有别的通路能顶替它，"
               "单靠去掉它是回答不了的。",
               "Yes. One head is essential here and the others matter less; the composition test (remove its output "
               "from layer 1's keys only) shows WHERE it is used, and other seeds may route it otherwise.",
               "对。在这里一个头必不可少，其余的头作用小得多；组合测试（只从第 1 层的 Key 里去掉它的输出）说明它在"
               "哪里被用到，而换一个种子，模型也可能走别的路线。"),
            _o("No other path in any model can carry “my previous token”: this head is the only possible one.",
               "任何模型里都没有别的通路能传递“我前面的 token 是什么”：只有这个头才行。",
               "Too strong: one removal in one model says nothing about every model (a previous-token signal can "
               "also come from other heads or positional tricks, and the seed sweep shows other routes).",
               "说得太绝对了：在一个模型里做一次消融，说明不了所有模型（“前一个 token”的信息也可能来自别的头或"
               "位置上的技巧，换种子的实验就显示了别的路线）。"),
            _o("The head with the largest attention weights is always the most important.",
               "注意力权重最大的头总是最重要的。",
               "Weights do not measure importance (Q6): a removal does.",
               "权重衡量不了重要性（Q6），去掉它再测才行。"),
        ),
        correct=(1,),
        reference={"en": "The previous-token head is essential in this model; the other layer-0 heads matter less "
                         "here. Importance is what removal measures; which path uses the head is what the "
                         "composition test measures.",
                   "zh": "在这个模型里，“前一个 token”头必不可少；第 0 层的其他头在这里作用小得多。"
                         "重要与否，要靠去掉之后测出来；它被哪条通路用到，要靠组合测试量出来。"},
        pointer=Pointer(_NB, {"en": "Which heads matter: ablation", "zh": "哪些头重要：消融实验"}, None),
    ),
    "x12c": Question(
        id="x12c",
        topic={"en": "Extra · learned, not designed", "zh": "附加题 · 学出来的，不是设计出来的"},
        question={"en": "Which of these did the training code of this notebook specify? Select all that apply.",
                  "zh": "下面哪些是本节的训练代码明确规定了的？选出所有正确的选项。"},
        kind="choice",
        options=(
            _o("the architecture: 2 layers, 4 heads, causal mask", "架构：2 层、4 个头、因果掩码",
               "Yes, the code fixes the shapes and the mask.", "对，代码固定了形状和掩码。"),
            _o("the data and the loss: predict the next token", "数据和损失：预测下一个 token",
               "Yes, and the seed.", "对，还有随机种子。"),
            _o("that head 0 of layer 0 attends to the previous token", "第 0 层第 0 个头关注前一个 token",
               "No: nothing in the code names a head's role; that division of labour was learned.",
               "不对：代码里没有任何地方规定某个头的角色，这种分工是学出来的。"),
        ),
        correct=(0, 1),
        reference={"en": "Architecture, data, loss and seed are written down; which head does what is not.",
                   "zh": "架构、数据、损失和种子是写下来的；哪个头做什么则不是。"},
        pointer=Pointer(_NB, {"en": "Training, once, offline", "zh": "训练：只做一次，离线完成"}, None),
    ),
}
