"""The words of notebook 12's checker (checks.py) that name its cases, English and Chinese side by side per key.

The verdicts themselves are in strings.py; the shared words (exceptions, time-outs) are teaching.checks's.
"""

STRINGS: dict[str, dict[str, str]] = {
    "nb12.case.head": {"en": "layer {layer} head {head}, half = {half}",
                       "zh": "第 {layer} 层第 {head} 个头，half = {half}"},
    "nb12.case.random": {"en": "a random causal matrix, half = {half}", "zh": "一个随机的因果矩阵，half = {half}"},
}
