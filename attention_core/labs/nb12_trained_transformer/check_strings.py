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

# The three tools the learner writes (tools.py): their cases and verdicts.
STRINGS.update({
    "nb12.tools_report": {"en": "tools in use: ", "zh": "正在使用的工具："},
    "nb12.tool.error": {"en": "your function raised {err} (on {case}).", "zh": "你的函数抛出了异常 {err}（{case}）。"},
    "nb12.tool.shape": {"en": "on {case}: your {what} has shape {got}; expected {want}.{hint}",
                        "zh": "{case}：你的{what}形状是 {got}，应为 {want}。{hint}"},
    "nb12.tool.not_finite": {"en": "on {case}: your {what} holds NaN or inf.",
                             "zh": "{case}：你的{what}里出现了 NaN 或 inf。"},
    "nb12.tool.values": {"en": "on {case}: your {what} differs from the library's by up to {diff} (allowed {tol}).",
                         "zh": "{case}：你的{what}和库里的结果最多相差 {diff}（允许 {tol}）。"},
    "nb12.what.logits": {"en": "logits", "zh": "logits"},
    "nb12.what.attribution": {"en": "attribution", "zh": "归因"},
    "nb12.what.metric": {"en": "metric per position", "zh": "各位置的指标"},
    # mean ablation by position
    "nb12.case.ablate": {"en": "L{layer}H{head}, {n} sequences, {n_ref} reference sequences",
                         "zh": "L{layer}H{head}，{n} 条序列，{n_ref} 条参照序列"},
    "nb12.ablate.ok": {"en": "your mean ablation by position matches the library's on {n} heads and batches "
                             "(largest difference {diff}).",
                       "zh": "你的逐位置均值消融在 {n} 组头和批次上都和库里的一致（最大差 {diff}）。"},
    "nb12.ablate.one_mean": {"en": "on {case}: you replace the head's output with ONE mean vector, averaged over "
                                   "every sequence and every position. That puts at each position an output the head "
                                   "may never write there (the one-vector mean that made L1H3 look costly). Average "
                                   "over the sequences only (axis 0), one mean per position: shape (T, Dh).",
                             "zh": "{case}：你把这个头的输出换成了**一个**平均向量，"
                                   "它是在所有序列、所有位置上平均得到的。"
                                   "这样每个位置上放的都是这个头在那里也许从不会写出的输出（正是这种单一均值让 L1H3 "
                                   "看起来代价很大）。只在序列之间平均（axis 0），每个位置一个均值，形状 (T, Dh)。"},
    "nb12.ablate.per_sequence": {"en": "on {case}: you average over the positions of each sequence (the wrong axis): "
                                       "each sequence gets its own mean, computed from the very input being ablated. "
                                       "Average over the reference sequences (axis 0 of the head's (N, T, Dh) output), "
                                       "keeping the positions.",
                                 "zh": "{case}：你在每条序列内部对各个位置求了平均（轴取错了）："
                                       "每条序列得到自己的均值，"
                                       "而这个均值正是从被消融的输入里算出来的。应该在参照序列之间平均"
                                       "（这个头 (N, T, Dh) 输出的 axis 0），保留位置这一维。"},
    "nb12.ablate.over_heads": {"en": "on {case}: you average over the heads (the wrong axis): the head gets the mean "
                                     "of all the layer's heads. Take this head's output only (z[:, head], shape "
                                     "(N, T, Dh)) and average it over the reference sequences.",
                               "zh": "{case}：你在各个头之间求了平均（轴取错了）：这个头拿到的是这一层所有头的平均。"
                                     "只取这个头的输出（z[:, head]，形状 (N, T, Dh)），再在参照序列之间平均。"},
    "nb12.ablate.every_head": {"en": "on {case}: you replace EVERY head of layer {layer} with its mean, not only head "
                                     "{head}. Write only z[:, {head}] in the hook and leave the other heads as they "
                                     "are.",
                               "zh": "{case}：你把第 {layer} 层的**每个**头都换成了均值，而不只是第 {head} 个头。"
                                     "钩子里只改写 z[:, {head}]，其余的头保持原样。"},
    "nb12.ablate.zero": {"en": "on {case}: you set the head's output to zero: that is zero ablation. Mean ablation "
                               "writes the head's mean output over the reference sequences at each position.",
                         "zh": "{case}：你把这个头的输出置零了，这是置零消融。均值消融写入的是这个头在参照序列上、"
                               "每个位置各自的平均输出。"},
    "nb12.ablate.own_mean": {"en": "on {case}: you average the head's output over the ablated sequences themselves, "
                                   "not over `reference`: the mean then carries the very inputs it should remove. "
                                   "Run the cache on `reference`.",
                             "zh": "{case}：你是在被消融的序列本身上求的平均，而不是在 `reference` 上："
                                   "这样均值里就带着本该去掉的输入信息。请在 `reference` 上运行并缓存。"},
    # direct logit attribution
    "nb12.case.dla": {"en": "model {name}, a sequence of {t} tokens", "zh": "{name} 模型，一条 {t} 个 token 的序列"},
    "nb12.dla.ok": {"en": "your direct logit attribution matches head_logit_attribution on {n} sequences "
                          "(largest difference {diff}).",
                    "zh": "你的直接 logit 归因在 {n} 条序列上都和 head_logit_attribution 一致（最大差 {diff}）。"},
    "nb12.dla.no_scale": {"en": "on {case}: you skip the final layer norm's scale: LN_f divides the whole residual "
                                "stream at each position by its standard deviation, sqrt(var + eps) of "
                                "blocks.{last}.hook_resid_post, before multiplying by lnf_g. Divide each head's "
                                "write by that scale of its position.",
                          "zh": "{case}：你跳过了最后一次层归一化的缩放："
                                "LN_f 在每个位置上先把整个残差流除以它的标准差，"
                                "即 blocks.{last}.hook_resid_post 的 sqrt(var + eps)，再乘上 lnf_g。"
                                "请把每个头写入的内容除以它所在位置的这个缩放值。"},
    "nb12.dla.no_gain": {"en": "on {case}: you leave out lnf_g, the final layer norm's gain: multiply the unembedding "
                               "column by it (or the head's write, after the scale).",
                         "zh": "{case}：你漏掉了最后一次层归一化的增益 lnf_g：请用它乘反嵌入的那一列"
                               "（或者在除以缩放值之后乘头写入的内容）。"},
    "nb12.dla.no_centre": {"en": "on {case}: you do not subtract the mean over d_model: LN_f centres the residual "
                                 "stream first, so each head's write counts minus its own mean over the D axis.",
                           "zh": "{case}：你没有减去 d_model 方向上的均值：LN_f 先把残差流中心化，"
                                 "所以每个头写入的内容要先减去它自己在 D 轴上的均值。"},
    "nb12.dla.wrong_token": {"en": "on {case}: you read the unembedding column of the token AT each position, "
                                   "ids[t]; the answer there is the NEXT token, target[t]: use w_out[:, target].",
                             "zh": "{case}：你读的是每个位置上**当前** token ids[t] 的反嵌入列；"
                                   "那里的答案是**下一个** token，即 target[t]：请用 w_out[:, target]。"},
    "nb12.dla.summed": {"en": "on {case}: you return the sum over the heads of a layer: expected one number per head, "
                              "shape (L, H, T); sum only over the D axis.",
                        "zh": "{case}：你返回的是一层里所有头的总和；应当每个头一个数，形状 (L, H, T)；"
                              "只在 D 轴上求和。"},
    # patching one position at a time
    "nb12.case.patch": {"en": "L{layer}H{head}, {n} clean / corrupted pairs",
                        "zh": "L{layer}H{head}，{n} 对干净 / 被破坏的序列"},
    "nb12.patch.ok": {"en": "your patching loop matches the library's on {n} heads (largest difference {diff}).",
                      "zh": "你的修补循环在 {n} 个头上都和库里的一致（最大差 {diff}）。"},
    "nb12.patch.all_at_once": {"en": "on {case}: every position gives the same number: you patch the head at EVERY "
                                     "position at once. Copy the clean output only at position t "
                                     "(z[:, head, t]) in the run for t.",
                               "zh": "{case}：每个位置的结果都一样：你一次把这个头在**所有**位置上都修补了。"
                                     "第 t 次运行只复制位置 t 上的干净输出（z[:, head, t]）。"},
    "nb12.patch.every_head": {"en": "on {case}: you patch EVERY head of layer {layer} at position t: copy only head "
                                    "{head}'s clean output (z[:, head, t]); the other heads keep the corrupted run's.",
                              "zh": "{case}：你在位置 t 上把第 {layer} 层的**每个**头都修补了；"
                                    "只复制第 {head} 个头的干净输出（z[:, head, t]），其余的头保持被破坏运行的输出。"},
    "nb12.patch.wrong_run": {"en": "on {case}: you run the wrong sequences: the patch goes from the CLEAN cache into "
                                   "the CORRUPTED run (run_with_hooks(corrupted_ids, ...)), not the other way round.",
                             "zh": "{case}：你运行错了序列：修补是把**干净**运行的缓存放进**被破坏**的运行"
                                   "（run_with_hooks(corrupted_ids, ...)），而不是反过来。"},
    "nb12.patch.not_restored": {"en": "on {case}: your patches pile up: at position t the run still carries the "
                                      "patches of positions 0 .. t - 1 (a hook that edits an array kept between "
                                      "runs). Start every position from the corrupted run: copy inside the hook, "
                                      "or build a fresh hook for each t.",
                                "zh": "{case}：你的修补越积越多：到位置 t 时，运行里还留着位置 0 .. t - 1 的修补"
                                      "（钩子改写了一个在多次运行之间共用的数组）。每个位置都要从被破坏的运行重新开始："
                                      "在钩子里先复制，或者为每个 t 新建一个钩子。"},
    "nb12.patch.cache_of_corrupted": {"en": "on {case}: you patch from the corrupted run's own cache: nothing changes. "
                                            "Cache the CLEAN run (run_with_cache(clean_ids)).",
                                      "zh": "{case}：你用的是被破坏运行自己的缓存，所以什么也没变。"
                                            "请缓存**干净**的运行（run_with_cache(clean_ids)）。"},
})
