"""The words of notebook 13's checkers (checks.py), English and Chinese side by side per key.

The shared words (exceptions, time-outs, shapes, values) are teaching.checks's.
"""

STRINGS: dict[str, dict[str, str]] = {
    # shared by the pieces
    "nb13.check.not_tensor": {"en": "Your function returned a {got} for {case}; expected a torch tensor "
                                    "(training needs "
                                    "autograd: compute with torch operations, not NumPy).",
                              "zh": "你的函数对 {case} 返回了 {got}；这里应该返回 torch 张量（训练要用自动"
                                    "求导：请用 torch "
                                    "运算，不要用 NumPy）。"},
    "nb13.check.detached": {"en": "Your output for {case} is cut off from autograd (no grad_fn although the input "
                                  "requires a gradient): a `.detach()`, `.numpy()`, `torch.tensor(...)` or "
                                  "`torch.no_grad()` inside the function stops training from reaching the weights.",
                            "zh": "你对 {case} 的输出与自动求导断开了（输入需要梯度，输出却没有 grad_fn）：函数里的 "
                                  "`.detach()`、`.numpy()`、`torch.tensor(...)` 或 `torch.no_grad()` 会让"
                                  "训练无法更新权重。"},
    "nb13.check.shape": {"en": "Your {what} has shape {got}, expected {expected} ({case}).",
                         "zh": "你的{what}形状是 {got}，应该是 {expected}（{case}）。"},
    "nb13.check.values": {"en": "Your {what} and the library's differ by up to {diff} ({case}; tolerance {tol}).",
                          "zh": "你的{what}与库里的结果最多相差 {diff}（{case}；容差 {tol}）。"},
    "nb13.check.pair": {"en": "Your function returned {got} for {case}; expected a pair ({first}, weights).",
                        "zh": "你的函数对 {case} 返回了 {got}；应该返回一对结果（{first}, weights）。"},
    "nb13.check.internal": {"en": "The check itself could not run ({exc}); this is not your mistake: restart the "
                                  "kernel, and if it stays, report it.",
                            "zh": "检查器自己没能运行（{exc}）；这不是你的错：请重启内核，如果问题依旧，请报告它。"},
    "nb13.what.output": {"en": "output", "zh": "输出"},
    "nb13.what.x_out": {"en": "x_out", "zh": " x_out"},
    "nb13.what.logits": {"en": "logits", "zh": " logits"},
    "nb13.what.weights": {"en": "attention weights", "zh": "注意力权重"},
    # the tokenizer
    "nb13.tok.not_list": {"en": "encode returned a {got} for {case}; expected a list of integer ids.",
                          "zh": "encode 对 {case} 返回了 {got}；应该返回由整数 id 组成的列表。"},
    "nb13.tok.length": {"en": "encode gave {got} ids for {case}, which has {expected} characters: one id per "
                              "character.",
                        "zh": "encode 对 {case} 给出了 {got} 个 id，而它有 {expected} 个字符：每个字符一个 id。"},
    "nb13.tok.shifted": {"en": "encode's ids are the vocabulary's plus {shift} ({case}): the first character of "
                               "`chars` has id 0.",
                         "zh": "encode 给出的 id 比词表里的多了 {shift}（{case}）：`chars` 的第一个字符的 id 是 0。"},
    "nb13.tok.wrong_id": {"en": "encode gave id {got} for the character {char!r} at index {index} ({case}), expected "
                                "{expected} (its index in `chars`).",
                          "zh": "encode 把第 {index} 个字符（从 0 编号）{char!r} 编成了 {got}（{case}），"
                                "应该是 {expected}（它在 `chars` 里的位置）。"},
    "nb13.tok.not_str": {"en": "decode returned a {got} for {case}; expected a string.",
                         "zh": "decode 对 {case} 返回了 {got}；应该返回字符串。"},
    "nb13.tok.spaces": {"en": "decode put separators between the characters ({case}): join them with \"\" (the "
                              "spaces are characters of the text, with ids of their own).",
                        "zh": "decode 在字符之间加了分隔符（{case}）：请用 \"\" 把它们连起来（空格本身也是"
                              "文本里的字符，"
                              "有自己的 id）。"},
    "nb13.tok.decode_wrong": {"en": "decode(ids) differs from the text from index {index} on ({case}): got {got!r}, "
                                    "expected {expected!r}.",
                              "zh": "decode(ids) 从第 {index} 个字符（从 0 编号）起与原文不同（{case}）：得到 {got!r}，"
                                    "应为 {expected!r}。"},
    "nb13.tok.dropped": {"en": "encode dropped the unknown character {char!r} ({case}): a tokenizer must never lose "
                               "text silently. Raise an error that names the character.",
                         "zh": "encode 悄悄丢掉了未知字符 {char!r}（{case}）：分词器绝不能无声无息地丢失文本。"
                               "请抛出一个指明该字符的错误。"},
    "nb13.tok.mapped": {"en": "encode returned ids for the unknown character {char!r} ({case}) instead of raising an "
                              "error: nothing in the vocabulary stands for it, so decode could not give it back.",
                        "zh": "encode 为未知字符 {char!r} 返回了 id（{case}），而没有报错：词表里没有代表它的 id，"
                              "decode 也就还原不了它。"},
    "nb13.tok.ok": {"en": "encode and decode are right on {n} paragraphs of both languages ({chars} characters), "
                          "round trips included, and an unknown character raises an error.",
                    "zh": "encode 和 decode 在两种语言的 {n} 个段落（共 {chars} 个字符）上都正确，来回转换无损，"
                          "未知字符会报错。"},
    # byte-pair merges
    "nb13.bpe.not_list": {"en": "merge returned a {got} for {case}; expected a list of ids.",
                          "zh": "merge 对 {case} 返回了 {got}；应该返回 id 列表。"},
    "nb13.bpe.overlap": {"en": "merge({case}) gave {got}: your merges overlap. After replacing a pair, "
                               "skip BOTH of its "
                               "tokens (i += 2) so that one token is never used twice; expected {expected}.",
                         "zh": "merge({case}) 得到 {got}：你的合并互相重叠了。替换一对之后，要跳过这一对的两个 token"
                               "（i += 2），同一个 token 不能用两次；应为 {expected}。"},
    "nb13.bpe.right_to_left": {"en": "merge({case}) gave {got}, merging from the right; merges go left to right: "
                                     "expected {expected}.",
                               "zh": "merge({case}) 得到 {got}，这是从右往左合并的结果；合并应当从左往右进行："
                                     "应为 {expected}。"},
    "nb13.bpe.first_only": {"en": "merge({case}) gave {got}: only the first occurrence was replaced; replace every "
                                  "one: expected {expected}.",
                            "zh": "merge({case}) 得到 {got}：只替换了第一次出现；每一次出现都要替换：应为"
                                  " {expected}。"},
    "nb13.bpe.wrong": {"en": "merge({case}) gave {got}, expected {expected}.",
                       "zh": "merge({case}) 得到 {got}，应为 {expected}。"},
    "nb13.bpe.mutated": {"en": "merge changed the list it was given ({case}); build a new list.",
                         "zh": "merge 修改了传进来的列表（{case}）；请新建一个列表。"},
    "nb13.bpe.ok": {"en": "merge is right on {n} cases (overlaps, ends, absent pairs, the empty list).",
                    "zh": "merge 在 {n} 个用例上都正确（重叠、开头结尾、不存在的一对、空列表）。"},
    # the case names of the layer-norm and GPT checkers
    "nb13.case.ln_random": {"en": "x (2, 5, 8), random gamma, beta", "zh": "x (2, 5, 8)，随机的 gamma 与 beta"},
    "nb13.case.ln_tiny": {"en": "x (4, 6), rows of tiny variance", "zh": "x (4, 6)，每行方差都极小"},
    "nb13.case.ln_nb12": {"en": "x (7, {d}), notebook 12's ln1 (layer 0)",
                          "zh": "x (7, {d})，12 节的 ln1（第 0 层）"},
    "nb13.case.ln_final": {"en": "x (3, {d}), notebook 12's final LN", "zh": "x (3, {d})，12 节最后的层归一化"},
    "nb13.case.gpt_coref": {"en": "notebook 12's coreference encoder, run with the causal mask, ids (9,)",
                            "zh": "12 节的指代编码器，加上因果掩码运行，ids (9,)"},
    "nb13.case.gpt_induction": {"en": "notebook 12's induction model, ids (2, 22)",
                                "zh": "12 节的 induction 模型，ids (2, 22)"},
    "nb13.case.gpt_random": {"en": "a random model, ids ({n},)", "zh": "一个随机模型，ids ({n},)"},
    "nb13.case.block_nb12": {"en": "block {i} of notebook 12's coreference encoder, x {shape}, causal mask",
                             "zh": "12 节指代编码器的第 {i} 个 Transformer 块，x {shape}，因果掩码"},
    "nb13.case.block_random": {"en": "a random block, x (6, 16), {kind}",
                               "zh": "一个随机的 Transformer 块，x (6, 16)，{kind}"},
    "nb13.case.paragraph_en": {"en": "English paragraph {i}", "zh": "英文第 {i} 段"},
    "nb13.case.paragraph_zh": {"en": "Chinese paragraph {i}", "zh": "中文第 {i} 段"},
    "nb13.case.gen": {"en": "prompt ({p},), n_new = {n}", "zh": "提示词 ({p},)，n_new = {n}"},
    "nb13.case.gen_full": {"en": "prompt (1,), n_new = {n} (the full context)",
                           "zh": "提示词 (1,)，n_new = {n}（用满上下文）"},
    "nb13.case.gen_sample": {"en": "prompt (3,), n_new = 12, temperature = {t}, seed = {s}",
                             "zh": "提示词 (3,)，n_new = 12，温度 {t}，种子 {s}"},
    "nb13.case.gen_twice": {"en": "prompt (3,), n_new = 12, temperature = {t}, seed = {s} (twice)",
                            "zh": "提示词 (3,)，n_new = 12，温度 {t}，种子 {s}（运行两次）"},
    "nb13.case.gen_seeds": {"en": "prompt (3,), n_new = 12, temperature = {t}, seeds 0 .. {last}",
                            "zh": "提示词 (3,)，n_new = 12，温度 {t}，种子 0 .. {last}"},
    "nb13.case.gen_top_k": {"en": "prompt (3,), n_new = 12, temperature = {t}, top_k = {k}, seed = {s}",
                            "zh": "提示词 (3,)，n_new = 12，温度 {t}，top_k = {k}，种子 {s}"},
    "nb13.case.mask_causal": {"en": "causal mask", "zh": "因果掩码"},
    "nb13.case.mask_padding": {"en": "a padding mask", "zh": "填充掩码"},
    # layer norm
    "nb13.ln.unbiased": {"en": "Your layer norm uses the unbiased variance (divided by D - 1; torch.var's default) "
                               "({case}); layer norm divides by D: `x.var(-1, unbiased=False, keepdim=True)` or the "
                               "mean of the squared deviations.",
                         "zh": "你的层归一化用的是无偏方差（除以 D - 1，这是 torch.var 的默认做法）（{case}）；"
                               "层归一化要除以 D：用 `x.var(-1, unbiased=False, keepdim=True)`，或者偏差平"
                               "方的平均值。"},
    "nb13.ln.eps_outside": {"en": "Your layer norm adds eps outside the square root, sqrt(var) + eps ({case}); it "
                                  "belongs inside: (x - mean) / sqrt(var + eps). Rows with a tiny variance show the "
                                  "difference.",
                            "zh": "你的层归一化把 eps 加在了平方根外面，即 sqrt(var) + eps（{case}）；它应"
                                  "该在根号里面："
                                  "(x - mean) / sqrt(var + eps)。方差很小的行能看出差别。"},
    "nb13.ln.no_eps": {"en": "Your layer norm leaves eps out ({case}): (x - mean) / sqrt(var + eps).",
                       "zh": "你的层归一化漏掉了 eps（{case}）：应为 (x - mean) / sqrt(var + eps)。"},
    "nb13.ln.eps_ignored": {"en": "Your layer norm ignores its eps argument ({case}, eps = 1e-3): use the eps it is "
                                  "given.",
                            "zh": "你的层归一化没有用传进来的 eps 参数（{case}，eps = 1e-3）：请使用传入的 eps。"},
    "nb13.ln.axis": {"en": "Your layer norm normalises over the wrong axis ({case}): the statistics are per token, "
                           "over the last axis (dim=-1, keepdim=True).",
                     "zh": "你的层归一化在错误的轴上归一化（{case}）：统计量是按 token 算的，沿最后一个轴"
                           "（dim=-1, keepdim=True）。"},
    "nb13.ln.no_affine": {"en": "Your layer norm forgets gamma and beta ({case}): multiply by gamma, then add beta.",
                          "zh": "你的层归一化忘了 gamma 和 beta（{case}）：先乘 gamma，再加 beta。"},
    "nb13.ln.ok": {"en": "your layer norm matches the library's on {n} inputs (random ones, rows of tiny variance, "
                         "notebook 12's trained gains; largest difference {diff}), and autograd goes through it.",
                   "zh": "你的层归一化在 {n} 个输入上与库里的结果一致（随机输入、方差极小的行、12 节训练好的增益；"
                         "最大差 {diff}），并且自动求导能穿过它。"},
    # feed-forward
    "nb13.ffn.erf": {"en": "Your feed-forward uses the exact (erf) GELU ({case}); the library and GPT-2 use the tanh "
                           "form: `torch.nn.functional.gelu(h, approximate=\"tanh\")`.",
                     "zh": "你的前馈网络用的是精确（erf）形式的 GELU（{case}）；库和 GPT-2 用的是 tanh 形式："
                           "`torch.nn.functional.gelu(h, approximate=\"tanh\")`。"},
    "nb13.ffn.relu": {"en": "Your feed-forward uses ReLU ({case}); this model uses GELU in the tanh form: "
                            "`torch.nn.functional.gelu(h, approximate=\"tanh\")`.",
                      "zh": "你的前馈网络用的是 ReLU（{case}）；这个模型用的是 tanh 形式的 GELU："
                            "`torch.nn.functional.gelu(h, approximate=\"tanh\")`。"},
    "nb13.ffn.no_b2": {"en": "Your feed-forward leaves out b_2 ({case}): GELU(x W_1 + b_1) W_2 + b_2.",
                       "zh": "你的前馈网络漏掉了 b_2（{case}）：应为 GELU(x W_1 + b_1) W_2 + b_2。"},
    "nb13.ffn.no_b1": {"en": "Your feed-forward leaves out b_1 ({case}): GELU(x W_1 + b_1) W_2 + b_2.",
                       "zh": "你的前馈网络漏掉了 b_1（{case}）：应为 GELU(x W_1 + b_1) W_2 + b_2。"},
    "nb13.ffn.gelu_twice": {"en": "Your feed-forward applies GELU after the second layer too ({case}); only the hidden "
                                  "layer gets it.",
                            "zh": "你的前馈网络在第二层之后也用了 GELU（{case}）；只有隐藏层才需要它。"},
    "nb13.ffn.ok": {"en": "your feed-forward matches the library's on {n} inputs (random weights, notebook 12's "
                          "trained layers, an attention-only block with F = 0; largest difference {diff}).",
                    "zh": "你的前馈网络在 {n} 个输入上与库里的结果一致（随机权重、12 节训练好的层、F = "
                          "0 的纯注意力 Transformer 块；"
                          "最大差 {diff}）。"},
    # the block
    "nb13.block.post_ln": {"en": "Your block normalises after adding (post-LN, the 2017 paper's order) ({case}); this "
                                 "model is pre-LN like GPT-2: x + MHA(LN1(x)), then x + FFN(LN2(x)).",
                           "zh": "你的 Transformer 块是先相加再归一化（post-LN，2017 年论文的顺序）（{case}）；这"
                                 "个模型和 GPT-2 一样是 "
                                 "pre-LN：先 x + MHA(LN1(x))，再 x + FFN(LN2(x))。"},
    "nb13.block.no_res1": {"en": "Your block drops the first residual connection ({case}): x = x + MHA(LN1(x)), not "
                                 "x = MHA(LN1(x)).",
                           "zh": "你的 Transformer 块漏掉了第一个残差连接（{case}）：应为 x = x + MHA(LN1(x))，而不是 "
                                 "x = MHA(LN1(x))。"},
    "nb13.block.no_res2": {"en": "Your block drops the second residual connection ({case}): x = x + FFN(LN2(x)).",
                           "zh": "你的 Transformer 块漏掉了第二个残差连接（{case}）：应为 x = x + FFN(LN2(x))。"},
    "nb13.block.no_ln2": {"en": "Your block feeds the feed-forward x itself ({case}); it reads LN2(x) (with ln2_g, "
                                "ln2_b).",
                          "zh": "你的 Transformer 块把 x 本身送进了前馈网络（{case}）；"
                                "前馈网络读的是 LN2(x)（用 ln2_g、ln2_b）。"},
    "nb13.block.ln1_twice": {"en": "Your block uses LN1's gain and bias before the feed-forward too ({case}); that one "
                                   "is LN2 (ln2_g, ln2_b).",
                             "zh": "你的 Transformer 块在前馈网络之前也用了 LN1 的增益和偏置（{case}）；那里应该用 LN2"
                                   "（ln2_g、ln2_b）。"},
    "nb13.block.mask": {"en": "Your block does not honour the mask it is given ({case}): query {q} puts weight {w} on "
                              "key {k}, which the mask forbids. Pass `mask` to the attention.",
                        "zh": "你的 Transformer 块没有遵守传进来的掩码（{case}）：Query {q}（从 0 编号）"
                              "把 {w} 的权重放在了掩码禁止的 Key {k} 上。请把 `mask` 传给注意力。"},
    "nb13.block.ok": {"en": "your block matches the library's on {n} inputs (notebook 12's trained block, random "
                            "blocks, a batch, a padding mask; largest difference {diff}).",
                      "zh": "你的 Transformer 块在 {n} 个输入上与库里的结果一致（12 节训练好的 Transformer 块、"
                            "随机的 Transformer 块、一个批次、"
                            "一个填充掩码；最大差 {diff}）。"},
    # the decoder
    "nb13.gpt.no_pos": {"en": "Your model forgets the position embeddings ({case}): x0 = tok_emb[ids] + "
                              "pos_emb[:T].",
                        "zh": "你的模型忘了位置编码（{case}）：x0 = tok_emb[ids] + pos_emb[:T]。"},
    "nb13.gpt.no_lnf": {"en": "Your model skips the final layer norm ({case}): logits = LN_f(x) W_out + b_out "
                              "(lnf_g, lnf_b).",
                        "zh": "你的模型跳过了最后的层归一化（{case}）：logits = LN_f(x) W_out + b_out（"
                              "lnf_g、lnf_b）。"},
    "nb13.gpt.no_mask": {"en": "Your model lets tokens see the future ({case}): pass the causal mask "
                               "(ac.causal_mask(T), as a torch tensor) to every block.",
                         "zh": "你的模型让 token 看到了未来（{case}）：要把因果掩码（ac.causal_mask(T)，转成 torch "
                               "张量）传给每一个块。"},
    "nb13.gpt.weights_order": {"en": "Your attention weights are stacked heads first, (H, L, T, T) ({case}): stack "
                                     "the layers' (H, T, T) maps on dim -4 to get (L, H, T, T).",
                               "zh": "你的注意力权重是“头在前”的顺序 (H, L, T, T)（{case}）：要把每层的 (H, T, T) 沿 "
                                     "dim -4 叠起来，得到 (L, H, T, T)。"},
    "nb13.gpt.no_bout": {"en": "Your model leaves out b_out ({case}): logits = LN_f(x) W_out + b_out.",
                         "zh": "你的模型漏掉了 b_out（{case}）：logits = LN_f(x) W_out + b_out。"},
    "nb13.gpt.ok": {"en": "your GPT matches the library's forward on {n} inputs (notebook 12's two trained models, a "
                          "random model, a batch; logits and every attention map, largest difference {diff}).",
                    "zh": "你的 GPT 在 {n} 个输入上与库里的前向计算一致（12 节的两个训练好的模型、一个"
                          "随机模型、一个批次；"
                          "logits 和每一张注意力图，最大差 {diff}）。"},
    # generation
    "nb13.gen.not_ids": {"en": "generate returned a {got} for {case}; expected a list of token ids (the prompt, then "
                               "the new tokens).",
                         "zh": "generate 对 {case} 返回了 {got}；应该返回 token id 列表（先是提示，再是新"
                               "生成的 token）。"},
    "nb13.gen.only_new": {"en": "generate returned only the {n} new tokens ({case}); return the prompt followed by "
                                "them.",
                          "zh": "generate 只返回了 {n} 个新 token（{case}）；请返回提示加上新 token。"},
    "nb13.gen.length": {"en": "generate returned {got} ids for {case}; expected {expected} (the prompt and n_new new "
                              "tokens).",
                        "zh": "generate 对 {case} 返回了 {got} 个 id；应为 {expected} 个（提示加上 n_new "
                              "个新 token）。"},
    "nb13.gen.prompt": {"en": "generate changed the prompt ({case}): the first ids of the result must be the prompt "
                              "itself.",
                        "zh": "generate 改动了提示（{case}）：结果开头的 id 必须就是提示本身。"},
    "nb13.gen.greedy": {"en": "Greedy generation differs from recomputing the whole sequence at new token {step} "
                              "(counting from 0) ({case}): got id {got}, expected {expected}. Check that a new token "
                              "gets its own position (pos_emb[t], t = the number of tokens before it) and that each "
                              "step appends its keys and values to every layer's cache before attending.",
                        "zh": "贪心生成在第 {step} 个新 token（从 0 编号）处与每步全部重算的结果不同（"
                              "{case}）：得到 id "
                              "{got}，应为 {expected}。请检查新 token 是否用了自己的位置（pos_emb[t]，t 是"
                              "它前面的 token 数），"
                              "以及每一步是否先把自己的 Key 和 Value 放进每一层的缓存，再做注意力。"},
    "nb13.gen.no_cache": {"en": "Your generate gives the right text without a KV cache ({case}): to write {n} tokens "
                                "after a prompt of {p}, it sent {got} token positions through the blocks, where a "
                                "cache needs {want} (the prompt once, then only the new token at each step). It "
                                "recomputes the whole sequence at every step, a cost that grows with the square of "
                                "the length: keep each layer's keys and values, and from then on run only the new "
                                "token, at its own position, against the cache.",
                          "zh": "你的 generate 不用 KV 缓存也给出了正确的文字（{case}）：在 {p} 个 token 的提示后面写 "
                                "{n} 个 token，它让 {got} 个 token 位置经过了各个块，而用缓存只需要 {want} 个"
                                "（提示跑一遍，之后每一步只跑新 token）。它每一步都把整个序列重算一遍，代价随长度的"
                                "平方增长：要保存每一层的 Key 和 Value，之后只让新 token 在它自己的位置上"
                                "对缓存做注意力。"},
    "nb13.gen.not_reproducible": {"en": "Sampling with the same seed gave two different results ({case}): make a "
                                        "`torch.Generator().manual_seed(seed)` and pass it to every torch.multinomial.",
                                  "zh": "同一个种子采样两次得到了不同的结果（{case}）：请创建 "
                                        "`torch.Generator().manual_seed(seed)`，并把它传给每一次 torch.multinomial。"},
    "nb13.gen.not_random": {"en": "Sampling at temperature 2 gave the same text for five seeds ({case}): does "
                                  "temperature > 0 really sample (torch.multinomial), with the seed?",
                            "zh": "温度为 2 时，五个不同的种子采样得到了同样的结果（{case}）：温度大于 "
                                  "0 时是否真的在采样"
                                  "（torch.multinomial），并且用了种子？"},
    "nb13.gen.temperature": {"en": "At temperature 1e-4, sampling should equal greedy decoding ({case}), but it "
                                   "differs: divide the logits by the temperature before the softmax.",
                             "zh": "温度为 1e-4 时，采样结果应该与贪心解码一样（{case}），却不一样：在 "
                                   "softmax 之前要把 "
                                   "logits 除以温度。"},
    "nb13.gen.top_k": {"en": "With top_k = {k}, new token {step} (id {got}) is not among the {k} most likely ones "
                             "({case}): set every logit below the k-th largest to -inf before sampling.",
                       "zh": "top_k = {k} 时，第 {step} 个新 token（id {got}）不在最可能的 {k} 个之中（{case}）："
                             "采样之前，要把小于第 k 大的 logit 都设为 -inf。"},
    "nb13.gen.ok": {"en": "your generate is right: greedy output equals recomputing the whole sequence (up to the "
                          "full context), sampling is reproducible from the seed, follows the temperature and keeps to "
                          "the top k.",
                    "zh": "你的 generate 是对的：贪心输出与每步全部重算的结果相同（一直到上下文用满），采"
                          "样可以由种子复现，"
                          "遵守温度，并且只在前 k 个里选。"},
    # the training step
    "nb13.case.step": {"en": "a random decoder, a batch of {b} windows of {t} + 1 tokens",
                       "zh": "一个随机解码器，一批 {b} 个窗口，每个 {t} + 1 个 token"},
    "nb13.case.step_again": {"en": "the same {b} windows again, one step later (as the next step of a training loop)",
                             "zh": "同样的 {b} 个窗口，紧接着再走一步（就像训练循环里的下一步）"},
    "nb13.step.not_loss": {"en": "Your training step returned a {got} for {case}; return the batch's loss itself, "
                                 "a 0-d torch tensor (the `loss` that cross_entropy gave you).",
                           "zh": "你的训练步返回了 {got}（{case}）；请返回这一批的损失本身，"
                                 "也就是一个 0 维的 torch 张量（cross_entropy 给你的那个 `loss`）。"},
    "nb13.step.no_shift": {"en": "Your loss scores each position on the token it is reading, not on the next one "
                                 "({case}): the model would learn to copy its input. The answers are the ids "
                                 "shifted by one: the model reads ids[:, :-1] and is scored on ids[:, 1:].",
                           "zh": "你的损失拿每个位置自己正在读的 token 当答案，而不是下一个 token（{case}）："
                                 "这样模型学会的只是照抄输入。答案是错开一位的 ids：模型读 ids[:, :-1]，"
                                 "用 ids[:, 1:] 来打分。"},
    "nb13.step.wrong_way": {"en": "Your loss scores each position on the token BEFORE it ({case}): the shift goes "
                                  "the wrong way. The model reads ids[:, :-1] and is scored on ids[:, 1:].",
                            "zh": "你的损失拿每个位置**前面**的那个 token 当答案（{case}）：错位的方向反了。"
                                  "模型读 ids[:, :-1]，用 ids[:, 1:] 来打分。"},
    "nb13.step.mixed_batch": {"en": "Your loss pairs the logits with the wrong answers ({case}): the logits (B, T, V) "
                                    "and the targets (B, T) were flattened in different orders (a transpose, or "
                                    "a view across the batch). Flatten both the same way: logits.flatten(0, 1) "
                                    "(B*T, V) and targets.flatten() (B*T,).",
                              "zh": "你的损失把 logits 和错误的答案配成了对（{case}）：logits (B, T, V) 和答案 (B, T) "
                                    "按不同的顺序展平了（多了一次转置，或者跨批次用 `.view()` 改了形状）。"
                                    "两者要用同一种方式展平：logits.flatten(0, 1) 得到 (B*T, V)，"
                                    "targets.flatten() 得到 (B*T,)。"},
    "nb13.step.no_zero_grad": {"en": "Your step adds this batch's gradients to the last step's ({case}): call "
                                     "optimizer.zero_grad() before loss.backward(); torch accumulates gradients in "
                                     ".grad until they are zeroed.",
                               "zh": "你的训练步把这一批的梯度加到了上一步的梯度上（{case}）：请在 loss.backward() "
                                     "之前调用 optimizer.zero_grad()；torch 会把梯度一直累加在 .grad 里，直到清零。"},
    "nb13.step.no_update": {"en": "Your step did not move the parameters ({case}): call optimizer.step() after "
                                  "loss.backward(), and zero the gradients before backward, not between backward "
                                  "and step.",
                            "zh": "你的训练步没有更新参数（{case}）：请在 loss.backward() 之后调用 optimizer.step()；"
                                  "梯度要在 backward 之前清零，而不是在 backward 和 step 之间。"},
    "nb13.step.loss_wrong": {"en": "Your loss is {got}, the library's {expected} ({case}): score the logits of "
                                   "ids[:, :-1] on ids[:, 1:] with cross_entropy over the flattened logits "
                                   "(the mean over every position of the batch).",
                             "zh": "你的损失是 {got}，库里的是 {expected}（{case}）：用 cross_entropy 给 ids[:, :-1] "
                                   "的 logits 打分，答案是 ids[:, 1:]，logits 先展平（对整批的每个位置取平均）。"},
    "nb13.step.params_wrong": {"en": "Your loss is right, but after your step the parameters differ from the "
                                     "library's by up to {diff} ({case}): one backward, then one optimizer.step().",
                               "zh": "你的损失是对的，可是走完这一步，参数和库里的结果最多相差 {diff}（{case}）："
                                     "应该是一次 backward，再一次 optimizer.step()。"},
    "nb13.step.ok": {"en": "Your training step matches the library's on {n} steps: the loss of the next token, "
                           "fresh gradients, one update (largest difference {diff}).",
                     "zh": "你的训练步在 {n} 步上都和库里的一致：给下一个 token 打分，每步重新算梯度，更新一次"
                           "（最大差 {diff}）。"},
}
