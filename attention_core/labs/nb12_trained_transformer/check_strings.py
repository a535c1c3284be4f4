"""The words of notebook 12's checker (checks.py) that name its cases, English and Chinese side by side per key.

The verdicts themselves are in strings.py; the shared words (exceptions, time-outs) are teaching.checks's.
"""

STRINGS: dict[str, dict[str, str]] = {
    "nb12.case.head": {"en": "layer {layer} head {head}, half = {half}",
                       "zh": "第 {layer} 层第 {head} 个头，half = {half}"},
    "nb12.case.random": {"en": "a random causal matrix, half = {half}", "zh": "一个随机的因果矩阵，half = {half}"},
    "nb12.check_model_kind": {"en": "check_induction_score scores the heads of an induction model on repeated "
                                    "random letters; it got the {name} model. Pass load_trained(\"induction\") "
                                    "(the default when you pass no model) or another model trained on that task.",
                              "zh": "check_induction_score 要在重复的随机字母序列上给 induction 模型的头打分；"
                                    "收到的却是 {name} 模型。请传入 load_trained(\"induction\")"
                                    "（不传 model 时默认就是它），或者另一个在这个任务上训练的模型。"},
    "nb12.check_model_type": {"en": "check_induction_score takes a trained induction model as its second argument, "
                                    "load_trained(\"induction\") (the default when you pass none); it got a {got}.",
                              "zh": "check_induction_score 的第二个参数应该是训练好的 induction 模型，"
                                    "即 load_trained(\"induction\")（不传时默认就是它）；收到的却是 {got}。"},
}
