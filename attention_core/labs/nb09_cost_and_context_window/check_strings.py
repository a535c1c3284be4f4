"""The words of notebook 09's checkers (checks.py), English and Chinese side by side per key.

The shared words (exceptions, time-outs, shapes, values) are teaching.checks's.
"""

STRINGS: dict[str, dict[str, str]] = {
    "exercises.kv.future": {"en": "Step {t} of your decoding sees a future key ({case}): when token t is generated, "
                                  "only keys 0 .. t exist. Attend to the cache, not to the whole k.",
                            "zh": "你解码到位置 {t}（从 0 编号）时看到了未来的 Key（{case}）：生成位置 t 的 token 时，"
                                  "只有位置 0 到 t 的 Key 存在。"
                                  "应该只对缓存做注意力，而不是对整个 k。"},
    "exercises.kv.exclusive": {"en": "Your cache misses the current token ({case}): append k[t] and v[t] to the "
                                     "cache first, then attend, so that step t sees keys 0 .. t (itself included).",
                               "zh": "你的缓存里缺了当前 token（{case}）：要先把 k[t] 和 v[t] 放进缓存，再做注意力，"
                                     "这样位置 t 看到的是位置 0 到 t 的 Key（包括它自己）。"},
    "exercises.kv.newest_only": {"en": "Each of your steps attends only to its own key ({case}): the cache must keep "
                                       "every earlier key and value, so step t sees 0 .. t.",
                                 "zh": "你的每一步只关注了自己的 Key（{case}）：缓存必须保留之前所有的 Key 和 Value，"
                                       "这样位置 t 才能看到位置 0 到 t。"},
    "exercises.kv.all_at_once": {"en": "Your function read all {n} rows of {name} at once ({case}): that is one "
                                       "masked computation over the whole sequence, not decoding with a cache, even "
                                       "when its outputs are right. The tokens arrive one at a time: at step t read "
                                       "q[t], k[t] and v[t], append the key and value to the cache, attend over it.",
                                 "zh": "你的函数一次就读取了 {name} 的全部 {n} 行（{case}）："
                                       "这是对整个序列做一次带掩码的计算，而不是用缓存解码，即使输出是对的。"
                                       "token 是一个一个到来的：第 t 步只读 q[t]、k[t] 和 "
                                       "v[t]，把 Key 和 Value 追加进缓存，再对缓存做注意力。"},
    "exercises.kv.read_ahead": {"en": "At step {t} your function read row {j} of {name}, a future token ({case}): "
                                      "when token t is generated, tokens after it do not exist yet. Read one token "
                                      "per step and attend to the cache, not to the whole k.",
                                "zh": "你的函数在第 {t} 步读取了 {name} 的第 {j} 行，那是一个未来的 token（{case}）："
                                      "生成第 t 个 token 时，它后面的 token 还不存在。每一步只读一个 token，"
                                      "对缓存做注意力，而不是对整个 k。"},
    "exercises.kv.offset": {"en": "Every step attended only to the first key ({case}): a causal mask for one new "
                                  "query over the t + 1 cached keys needs offset = t, causal_mask(1, t + 1, "
                                  "offset=t) (or no mask at all: the cache holds only the past); without the offset "
                                  "the new query counts as position 0.",
                            "zh": "每一步都只关注了第一个 Key（{case}）：一个新 Query 面对缓存里 t + 1 个 Key 时，"
                                  "因果掩码需要 offset = t，即 causal_mask(1, t + 1, offset=t)（或者干脆不用掩码："
                                  "缓存里只有过去）；漏了 offset，新 Query 就被当成了位置 0。"},
    "exercises.kv.reread": {"en": "At step {t} your function read {read}, queries of steps it had already decoded "
                                  "({case}): that recomputes the prefix at every step, (t + 1)² scores where one "
                                  "row of t + 1 suffices, even when the outputs are right. With a KV cache, step t "
                                  "scores only the new query q[t] against the cached keys 0 .. t (a list, a "
                                  "preallocated buffer or k[:t + 1], as you like) and reads no query twice.",
                            "zh": "你的函数在第 {t} 步读取了 {read}，其中有已经解码过的步骤的 Query（{case}）："
                                  "这是每一步都把前缀重算一遍，要算 (t + 1)² 个分数，而 t + 1 个就够了，"
                                  "即使输出是对的。用 KV 缓存时，第 t 步只让新的 Query q[t] 对缓存里位置 0 到 t 的 "
                                  "Key 打分（缓存用列表、预先分配的数组还是 k[:t + 1] 都可以），"
                                  "同一个 Query 不会读第二次。"},
    "exercises.kv.memory": {"en": "Your function's peak memory is {got} for {case}, as much as the whole (T, T) score "
                                  "matrix ({full}): that is one masked computation over the whole sequence, or the "
                                  "prefix recomputed at every step, not decoding with a cache, even when the outputs "
                                  "are right. With a cache, step t scores one query against the t + 1 cached keys: "
                                  "one row of scores, never the whole matrix (the budget here is {budget}).",
                            "zh": "对于 {case}，你的函数峰值内存是 {got}，相当于整个 (T, T) 分数矩阵（{full}）："
                                  "这是对整个序列做一次带掩码的计算，或者每一步都把前缀重算一遍，而不是用缓存解码，"
                                  "即使输出是对的。用缓存时，第 t 步只让一个 Query 对缓存里的 t + 1 个 Key 打分："
                                  "只有一行分数，从不是整个矩阵（这里的预算是 {budget}）。"},
    "exercises.kv.ok": {"en": "All good: step-by-step decoding with your cache gives exactly the outputs of the full "
                              "causal computation, for 1, 5, 12 and 384 tokens, no step reading a future token "
                              "or an earlier query; at 384 tokens its peak memory is {got}, against {full} for the "
                              "whole score matrix.",
                        "zh": "全部通过：用你的缓存逐步解码，1、5、12、384 个 token 时都与完整的因果计算结果完全相同，"
                              "没有哪一步读过未来的 token 或之前的 Query；"
                              "384 个 token 时峰值内存是 {got}，而整个分数矩阵要 {full}。"},
    "exercises.kvbytes.no_two": {"en": "Your count is half the answer ({case}): the cache keeps a Key and a Value "
                                       "for every token, layer and KV head, so there is a factor 2.",
                                 "zh": "你的结果只有正确答案的一半（{case}）：缓存为每个 token、每层、每个 KV 头同时存"
                                       " Key 和 Value，"
                                       "所以要乘 2。"},
    "exercises.kvbytes.squared": {"en": "Your count grows with the square of the context ({case}): that is the score "
                                        "matrix. The cache holds one Key and one Value per token, so it grows "
                                        "linearly.",
                                  "zh": "你的结果随上下文长度的平方增长（{case}）：那是分数矩阵。缓存为每个 token 存一"
                                        "个 Key 和一个 Value，"
                                        "所以它是线性增长的。"},
    "exercises.kvbytes.no_layers": {"en": "Your count is one layer's cache ({case}): every layer keeps its own keys "
                                          "and values; multiply by n_layers.",
                                    "zh": "你算的是一层的缓存（{case}）：每一层都有自己的 Key 和 Value，要乘以 "
                                          "n_layers。"},
    "exercises.kvbytes.bits": {"en": "Your count is 8 times too large ({case}): bytes_per_number is already in "
                                     "bytes (2 for float16), not bits.",
                               "zh": "你的结果大了 8 倍（{case}）：bytes_per_number 的单位已经是字节（float16 是 2），"
                                     "不是比特。"},
    "exercises.kvbytes.wrong": {"en": "For {case} you returned {got} bytes; the cache holds {expected} "
                                      "(2 × layers × KV heads × d_head × tokens × bytes).",
                                "zh": "对于 {case}，你返回了 {got} 字节；缓存实际占 {expected} 字节"
                                      "（2 × 层数 × KV 头数 × d_head × token 数 × 每个数的字节数）。"},
    "exercises.kvbytes.ok": {"en": "All good: Llama-2-7B keeps 0.5 MiB per token (2 GiB at 4,096 tokens); Mistral-7B, "
                                   "with 8 KV heads, a quarter of that per token.",
                             "zh": "全部通过：Llama-2-7B 每个 token 占 0.5 MiB（4,096 个 token 时 2 GiB）；Mistral-7B "
                                   "只有 "
                                   "8 个 KV 头，每个 token 只占它的四分之一。"},
}
