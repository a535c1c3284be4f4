"""No English a Chinese learner would have to read (issue 41): every text of the Chinese edition (edition_text.texts:
markdown, the code's strings, docstrings and comments, printed output, widgets' static views, library code printed
with formula.source, the string tables of widgets, figures and checkers, the quiz bank) is read word by word, and an
English word is accepted only if it is

- one of the few words the course keeps in English (ALLOWED: the three roles, token, softmax, names of models,
  methods, tools, people and units, Python's constants; each group with its reason below), or
- code: inside a code span or formula, a dotted, snake_case or camelCase name, a call, a keyword argument, a format
  field; and, outside markdown (where code goes in backticks), a name of the code the text belongs to (the cell's
  code, a docstring's arguments, the lab of a string table), or
- quoted on purpose: a title in 《》, an English gloss in full-width parentheses right after the Chinese term
  (暂退法（dropout）), the tutorials' English sentences, paper titles and menu items (zh_text.KEPT_PHRASES), a
  library's exception message, and the words of the English sentences the course's models read
  (zh_text.data_words): quoted or in italics in markdown (*wide*), anywhere in what the code prints.

Single words count: the review of 2026-12-07 found "slope", "min", "/ sum", "fit 和 carry", "en：" and "batch", none
of which a three-word-run rule sees. The failure lists each word by notebook, with the text around it.
"""
from __future__ import annotations

import re
from collections import defaultdict
from functools import cache

import edition_text
import pytest
import zh_text

from attention_core.labs.nb00_start_here import glossary

ALLOWED = {
    # The course keeps these in English in both editions (the seed tutorials write them so; 00's glossary says so).
    "kept terms": {"Query", "Key", "Value", "Queries", "Keys", "Values", "token", "tokens", "Token", "softmax",
                   "Softmax", "logit", "logits", "one-hot", "induction", "head", "heads", "FLOPs", "KV", "id", "ID"},
    # Names of architectures, models and methods: a Chinese text names them as they are published.
    "model and method names": {
        "Transformer", "Transformers", "RNN", "RNNs", "GRU", "LSTM", "GPT", "GPT-NeoX", "BERT", "RoPE", "ALiBi",
        "FlashAttention", "Linformer", "Longformer", "BigBird", "Performer", "Llama", "LLaMA", "Mistral", "MQA",
        "GQA", "MHA", "SDPA", "BPE", "LayerNorm", "GELU", "ReLU", "MLP", "Adam", "AdamW", "YaRN", "NTK-aware",
        "RoFormer", "Xavier", "Frobenius", "Winograd", "LLM", "LLMs", "OV", "QK", "pre-LN", "post-LN", "Claude",
        "Gemini", "ChatGPT"},
    # Tools and libraries, as their own documentation spells them.
    "tools": {"NumPy", "PyTorch", "torch", "Python", "Jupyter", "JupyterLab", "JupyterLite", "Voilà", "Voila",
              "Pyodide", "CUDA", "GPU", "GPUs", "CPU", "BLAS", "Hugging", "Face", "TransformerLens", "ARENA",
              "nanoGPT", "tracemalloc", "transformers", "pip", "Chromium", "ipywidgets", "matplotlib", "d2l",
              "d2l-zh", "cpu", "cuda"},            # cpu, cuda: torch's device names
    # Units and encodings: Chinese technical writing uses the symbols.
    "units": {"MiB", "GiB", "TiB", "KiB", "MB", "GB", "KB", "ms", "UTF", "utf", "Markdown", "markdown"},
    # Function names of formulas, left when a formula is written without $...$.
    "maths": {"sin", "cos", "tanh", "exp", "log", "ln", "sqrt", "argmax", "log-sum-exp", "PE", "eps"},
    # Python's constants, and the keywords that are no English word, as a learner types them.
    "python": {"True", "False", "None", "NaN", "nan", "inf", "return", "def", "lambda", "import", "yield", "elif",
               "assert", "raise", "except"},
    # People, organisations and venues of the works the course cites.
    "names": {"Vaswani", "Michel", "Levy", "Neubig", "Press", "Chen", "Peng", "Jiang", "Dao", "Katharopoulos",
              "Wang", "Alammar", "Jay", "Phuong", "Hutter", "Olsson", "Karpathy", "Anthropic", "OpenAI", "DeepMind",
              "NeurIPS", "Google", "Meta"},
    # The project's fixed dimension names (STYLE.md: B batch, H heads, Tq/Tk lengths, Dk/Dv widths), in shapes.
    "dimension names": {"Tq", "Tk", "Dk", "Dv", "Dh", "Ta", "Tb"},
    # Keys of the keyboard, as printed on them.
    "keys": {"Shift", "Enter", "Ctrl"},
}
ALLOWED_WORDS = set().union(*ALLOWED.values())
# Names of several words: a model's size, a lecture's title.
ALLOWED_PHRASES = re.compile(r"GPT-2 (?:small|medium|large)|Let's build GPT|Attention Lab|pip install \S+")
_WORD = re.compile(r"(?<![\w.\-'’/+])[A-Za-z][A-Za-z]*(?:-[A-Za-z]+)*(?:'[a-z]+)?(?![\w(])")
# A quoted English word or phrase in markdown (*wide*, “tired”, "the"): a token of a sentence the models read.
_QUOTED = re.compile(r"[*“\"‘「][\s|\\]*([A-Za-z][A-Za-z' ,.\-]*?)\s*[*”\"’」]")
_GLOSS = re.compile(r"(?<=[\u3400-\u9fff*”」])（[A-Za-z][A-Za-z0-9 \-/'’,.]*）")
_CODE = [
    re.compile(r"\{[^{}\n]*\}"),                                                   # a format field
    re.compile(r"&[a-z]+;|&#x?[0-9a-f]+;", re.I),                                  # an HTML entity
    re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+"),           # a dotted name
    re.compile(r"\b[A-Za-z0-9]*_[A-Za-z0-9_]*\b"),                                 # snake_case
    re.compile(r"\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b"),                    # camelCase, CamelCase
    re.compile(r"\b\w+(?=[(\[])"),                                                  # a call or an index
    re.compile(r"\b\w+=[^\s,)]*"),                                                  # a keyword argument
    re.compile(r"\b[A-Za-z]\w*(?= \((?:\.\.\.|[A-Z][a-z]?\b|\d))"),                      # an array and its shape
    re.compile(r"\((?:\s*[a-z_]\w*\s*,)+\s*[a-z_]\w*\s*\)"),                               # a tuple of names
    re.compile(r"[\"'][A-Za-z_]\w*[\"']"),                                                 # a quoted name: "en"
    re.compile(r"\b\w+\^\S*"),                                                             # a power: XW^Q
    re.compile(r"\b[A-Za-z_]\w*(?=\s*(?:[=!<>]=|[<>=+*]|-\s*\d))|(?<=[<>=+*-] )[A-Za-z_]\w*\b"),  # window + 1
    re.compile(r"(?<=\()\s*[A-Za-z_]\w*\s*(?=\))"),                                          # a name as an argument
]


@cache
def avoided_words() -> frozenset:
    """English words the term list names as variants in the zh edition (notebook, batch, embedding, ...): prose even
    where the code around has a name spelled the same."""
    words = set()
    for term in glossary.load_terms():
        for variant in term["avoid"]["zh"]:
            words.update(re.findall(r"[A-Za-z][A-Za-z\-]+", variant["shows"] if isinstance(variant, dict) else variant))
    return frozenset(words - ALLOWED_WORDS)


def english_words(text: edition_text.Text) -> list[str]:
    """The English words of one text that the rules above do not accept, each with the text around it."""
    prose = _GLOSS.sub(" 。 ", ALLOWED_PHRASES.sub(" 。 ", edition_text.prose(text.text)))
    if text.kind == "markdown":          # the words of the models' sentences, quoted as such; unquoted they are prose
        prose = _QUOTED.sub(lambda m: " 。 " if all(w.lower() in zh_text.data_words()
                                                    for w in re.findall(r"[A-Za-z']+", m.group(1))) else m.group(0),
                            prose)
    for pattern in _CODE:
        prose = pattern.sub(" 。 ", prose)
    found = []
    for m in _WORD.finditer(prose):
        word = m.group(0)
        if len(word) < 2 or word in ALLOWED_WORDS or any(len(part) == 1 for part in word.split("-")):
            continue                         # a one-letter part is a formula: T-s, n-m
        if text.kind != "markdown" and (word in text.names and word not in avoided_words()
                                        or word.lower() in zh_text.data_words()):
            continue                         # printed tokens and the code's names, outside the prose of markdown
        around = prose[max(0, m.start() - 12):m.end() + 12].replace("\n", " ")
        found.append(f"{word!r} in “{' '.join(around.split())}”")
    return found


def report(found, limit: int = 400) -> str:
    by_nb = defaultdict(list)
    for text, hit in found:
        by_nb[text.notebook].append(f"{text.where}: {hit}")
    lines = [f"{len(found)} English words in the Chinese edition:"]
    for nb, hits in sorted(by_nb.items()):
        lines.append(f" notebook {nb} ({len(hits)}):")
        lines += [f"  {h}" for h in hits[:limit]]
    return "\n".join(lines)


def _md(text: str, kind: str = "markdown", names=()) -> edition_text.Text:
    return edition_text.Text("--", "example", kind, zh_text.strip_code(text), frozenset(names))


@pytest.mark.parametrize("written, word", [
    ("偏置斜率 slope", "slope"), ("Q5 (03) ✓ min 1.4e-03 > 0", "min"), ("[1, -1] / sum", "sum"),
    ("fit 和 carry 两类", "fit"), ("bigram 基线，en：每个字符 2.806", "en"), ("手写的 masked softmax", "masked"),
    ("Q/K/V 的来源取决于 attention 的角色", "attention"), ("固定模型权重、batch 和硬件", "batch"),
    ("运行 notebook 后即可操作控件", "notebook"), ("这个 Jacobian 可以从两个方向读", "Jacobian"),
    ("直接 reshape 成目标形状", "reshape"), ("在 layer 0 head 0 上", "layer"),
])
def test_a_single_english_word_is_found(written, word):
    hits = english_words(_md(written, "markdown")) if word == "fit" else english_words(_md(written, "printed"))
    assert any(h.startswith(f"{word!r} ") for h in hits), hits


@pytest.mark.parametrize("written", [
    "Query、Key、Value 与 softmax，KV 缓存和 Transformer 块", "`batch_first=True` 的形状 (B, H, Tq, Tk)",
    "注意力权重上的暂退法（dropout）", "**前瞻掩码**（look-ahead mask）",
    "《Transformer Attention 机制入门：从直觉到公式》",
    "Vaswani et al.，*Attention Is All You Need*", "Vaswani 等 2017 年的论文", "一层的朴素实现要存 2 TiB",
    "“the cat sat on the mat” → “猫坐在垫子上”", "ValueError: key and value: expected the same length",
    "$\\mathrm{softmax}(QK^\\top/\\sqrt{d_k})$", "ac.scaled_dot_product_attention 的结果", "{name} 的形状是 {shape}",
    "先按 <kbd>Shift</kbd>+<kbd>Enter</kbd>", "欢迎来到 **Attention Lab**",
])
def test_kept_words_code_and_quotations_pass(written):
    assert not english_words(_md(written)), written


def test_outside_markdown_a_name_of_the_code_passes_and_in_markdown_it_needs_backticks():
    assert not english_words(_md("x (..., D)，gamma 和 beta 是 (D,) 张量", "docstring", {"gamma", "beta", "x"}))
    # a word the term list keeps out stays prose even where the code has a name spelled the same, but not in code
    assert english_words(_md("如果 notebook 变慢，请重启内核", "string", {"notebook"}))
    assert not english_words(_md("对 T = 6, window = 3 返回，0 <= i - j < window，rng(seed)", "string", {"window"}))
    assert english_words(_md("gamma 和 beta 是 (D,) 张量", "markdown", {"gamma", "beta"}))
    assert not english_words(_md("`gamma` 和 `beta` 是 (D,) 张量", "markdown"))


@pytest.fixture(scope="module")
def zh_texts():
    return list(edition_text.texts("zh"))


def test_no_english_in_the_zh_edition(zh_texts):
    found = [(text, hit) for text in zh_texts for hit in english_words(text)]
    assert not found, report(found)


def test_the_zh_edition_prints_library_code_with_formula_source():
    """inspect.getsource prints a function's English docstring and comments; formula.source prints the body with
    the comments in the edition's language (`# [en] ... [zh] ...`)."""
    found = [f"{path.name} cell {i}" for path in edition_text.notebooks("zh")
             for i, cell in enumerate(edition_text.json.loads(path.read_text(encoding="utf-8"))["cells"])
             if cell["cell_type"] == "code" and "inspect.getsource" in "".join(cell["source"])]
    assert not found, f"cells that print library code with inspect.getsource: {found}"


def test_a_word_of_the_models_sentences_is_data_when_quoted_and_prose_when_not():
    assert not english_words(_md("代词把权重给了 *street*，去掉 “wide” 答案就翻转"))
    assert english_words(_md("fit 和 carry 两类"))
    assert not english_words(_md("animal 1.00, street 0.00", "printed"))


def test_checker_verdicts_built_at_run_time_have_no_english():
    """A checker's zh verdict for a learner that returns None or raises (test_zh_first_edition._zh_verdicts): the
    words a checker builds at run time, which no string table holds; the checker's lab's names pass as code."""
    from test_zh_first_edition import _zh_verdicts
    found = []
    for where, verdict in _zh_verdicts():
        lab = where.split(".")[0]
        text = edition_text.Text(lab[2:4], f"checker {where}", "string", zh_text.strip_code(verdict),
                                 edition_text.folder_names(edition_text.PACKAGE / "labs" / lab)
                                 | edition_text.folder_names(edition_text.PACKAGE / "teaching"))
        found += [(text, hit) for hit in english_words(text)]
    assert not found, report(found)
