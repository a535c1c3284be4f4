"""The UI strings of notebook 13's pieces, runs and tables, English and Chinese side by side."""
from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "nb13.parts_report": {"en": "pieces in use: ", "zh": "正在使用的零件："},
    "nb13.blank_spaces": {"en": "{n} spaces", "zh": "{n} 个空格"},
    "nb13.blank_space": {"en": "1 space", "zh": "1 个空格"},
    "nb13.blank_breaks": {"en": "{n} line breaks", "zh": "{n} 个换行"},
    "nb13.blank_break": {"en": "1 line break", "zh": "1 个换行"},
    "nb13.blank_and": {"en": " and ", "zh": "、"},
    "nb13.share_words": {"en": "({known} of {total} words occur in the training text: {share:.0%})",
                         "zh": "（{total} 个单词里有 {known} 个出现在训练文字里：{share:.0%}）"},
    "nb13.share_pairs": {"en": "({known} of {total} character pairs occur in the training text: {share:.0%})",
                         "zh": "（{total} 个字对里有 {known} 个出现在训练文字里：{share:.0%}）"},
    "nb13.share_few_words": {"en": "(only {total} words: too few for a share)",
                             "zh": "（只有 {total} 个单词，太少，不算比例）"},
    "nb13.share_few_word": {"en": "(only 1 word: too few for a share)", "zh": "（只有 1 个单词，太少，不算比例）"},
    "nb13.share_few_pairs": {"en": "(only {total} character pairs: too few for a share)",
                             "zh": "（只有 {total} 个字对，太少，不算比例）"},
    "nb13.share_few_pair": {"en": "(only 1 character pair: too few for a share)",
                            "zh": "（只有 1 个字对，太少，不算比例）"},
    "nb13.share_no_word": {"en": "(no words at all: nothing to count)", "zh": "（一个单词也没有，不算比例）"},
    "nb13.share_no_pair": {"en": "(no pair of Chinese characters at all: nothing to count)",
                           "zh": "（一个字对也没有，不算比例）"},
    "nb13.fig_step": {"en": "training step", "zh": "训练步数"},
    "nb13.fig_loss": {"en": "loss (nats per token)", "zh": "损失（每个 token 的纳特数）"},
    "nb13.fig_train": {"en": "train", "zh": "训练集"},
    "nb13.fig_valid": {"en": "validation", "zh": "验证集"},
    "nb13.fig_bigram": {"en": "bigram baseline (same windows)", "zh": "二元模型基线（同一批窗口）"},
    "nb13.fig_query_position": {"en": "query position t (its weight on key t - 1)",
                                "zh": "Query 的位置 t（看它放在 Key t - 1 上的权重）"},
    "nb13.fig_repeat_start": {"en": "where the repeat starts (position)", "zh": "重复片段开始的位置"},
    "nb13.fig_score": {"en": "score", "zh": "得分"},
    "nb13.fig_prev": {"en": "previous-token score, L{layer}H{head}", "zh": "“前一个 token”得分，L{layer}H{head}"},
    "nb13.fig_ind": {"en": "induction score, L{layer}H{head}", "zh": "induction 得分，L{layer}H{head}"},
    "nb13.gpt2_config": {"en": "{n_layers} layers × {n_heads} heads, d_model {d_model}, {vocab} tokens, "
                               "T = {t}, batch {batch}",
                         "zh": "{n_layers} 层 × {n_heads} 个头，d_model {d_model}，词表 {vocab} 个 token，"
                               "T = {t}，批大小 {batch}"},
    "nb13.gpt2_no_tokenizer": {
        "en": "GPT2_SOURCE: the folder {folder!r} holds GPT-2's weights but no tokenizer (tokenizer.json, or "
              "vocab.json and merges.txt), so no sentence can become token ids. Save the tokenizer into the same "
              "folder as the model, on a machine with network: {commands}; then copy the folder here again.",
        "zh": "GPT2_SOURCE：文件夹 {folder!r} 里有 GPT-2 的权重，却没有分词器（tokenizer.json，或 vocab.json "
              "和 merges.txt），所以句子没法变成 token id。请在能联网的机器上把分词器也保存进模型所在的文件夹："
              "{commands}；然后把文件夹重新复制过来。"},
    "nb13.gpt2_vocab_mismatch": {
        "en": "GPT2_SOURCE: the tokenizer of {source!r} has {n_tok} tokens but the model only {vocab}: they do not "
              "belong together. Save the model and the tokenizer of the same name into one folder.",
        "zh": "GPT2_SOURCE：{source!r} 的分词器有 {n_tok} 个 token，模型却只有 {vocab} 个：它们不是一套。"
              "请把同一个名字的模型和分词器保存进同一个文件夹。"},
}
