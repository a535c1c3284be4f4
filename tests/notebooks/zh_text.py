"""What the Chinese edition shows a learner, gathered in one place for the first-edition tests (issue 16).

`zh_texts()` yields (where, text) for every learner-visible Chinese text: the zh markdown cells of the sources,
the string literals of the zh-resolved code cells, the code comments of notebooks/zh, the stored outputs of notebooks/zh
(stream, text/plain, text/html, the widgets' static fallbacks; not the cells that print library source with
inspect.getsource or formula.source),
the zh side of every registered string table (labs, checkers, teaching) and the zh side of the quiz bank.
`english_runs(text)` finds English prose in such a text: three or more English words in a row outside code,
identifiers and the short list of terms the course keeps in English (KEPT_TERMS) and of quoted English
examples (KEPT_PHRASES: the tutorials' English sentences, paper titles, JupyterLab menu items).
"""
from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import re
from pathlib import Path

from attention_core.teaching import i18n
from attention_core.teaching import notebook_source as ns

REPO = Path(__file__).resolve().parents[2]
SOURCES = sorted((REPO / "notebooks" / "src").glob("[0-9][0-9]_*.py"))
ZH_NOTEBOOKS = sorted((REPO / "notebooks" / "zh").glob("[0-9][0-9]_*.ipynb"))
QUIZ = REPO / "attention_core" / "data" / "quiz" / "questions.json"

# Terms the course keeps in English in the Chinese edition (names, acronyms, the three roles, tools).
KEPT_TERMS = {
    "Query", "Key", "Value", "Queries", "Keys", "Values", "Transformer", "Transformers", "Softmax", "softmax",
    "token", "tokens", "RNN", "GRU", "LSTM", "GPT", "BERT", "RoPE", "ALiBi", "KV", "FlashAttention", "Linformer",
    "Longformer", "BigBird", "Performer", "NumPy", "numpy", "PyTorch", "torch", "GPU", "CPU", "CUDA", "FLOPs",
    "notebook", "Notebook", "Jupyter", "JupyterLab", "Lab", "Voila", "Voilà", "Python", "Chromium", "reveal",
    "dtype", "float", "float16", "float32", "float64", "int", "bool", "True", "False", "None", "NaN", "nan", "inf",
    "ReLU", "GELU", "LayerNorm", "MQA", "GQA", "MHA", "SDPA", "Adam", "seed", "nats", "d2l", "zh", "en", "Lin",
    "Llama", "LLaMA", "Mistral", "BPE", "MiB", "GiB", "KiB", "MB", "GB", "KB", "ms",
    "Tq", "Tk", "Dk", "Dv", "Dh", "cos", "sin", "log", "exp", "std", "var", "argmax", "reshape", "transpose",
}
# English the zh edition quotes on purpose: the tutorials' example sentences (data the models read),
# titles of papers and posts in the reading list, and JupyterLab's own English menu items.
KEPT_PHRASES = [
    r"the (?:cat|dog) sat (?:on|under) the (?:mat|table)(?: because it was (?:comfortable|tired))?",
    r"the cat (?:on the mat sat|sat because it was tired)",
    r"on sat mat the the cat",
    r"the animal didn'?t cross the street because it was too (?:tired|wide)",
    r"(?:dog bites man|man bites dog)",
    r"anna (?:gave the book to tom because she wanted to help|saw the loans at the bank)",
    r"Attention Is All You Need", r"Are Sixteen Heads Really Better than One",
    r"The Illustrated Transformer", r"Formal Algorithms for Transformers",
    r"Attention in transformers, visually explained", r"Vaswani et al",
    r"Restart Kernel and Run All Cells", r"because it was too",
    r"A Mathematical Framework for Transformer Circuits", r"In-context [Ll]earning and [Ii]nduction [Hh]eads",
]
_KEPT_PHRASE = re.compile("|".join(f"(?:{p})" for p in KEPT_PHRASES), re.I)
# Literals of the zh code that are data, not prose (source, literal): notebook 13's English prompt for its text model
# (it is given an English and a Chinese prompt in both editions) and the opening words it finds a paragraph of the
# English course text by.
DATA_LITERALS = {("13_build_a_gpt.py", "The attention weights "),
                 ("13_build_a_gpt.py", "So far you have measured attention")}
# Cells whose printout is text a model wrote (notebook, a line of the cell's code): notebook 13's samples, in which the
# character model writes English and Chinese by design. Each sample (the lines after a "--- ... ---" header) is data;
# what the cell prints before the first header, and the headers, are still read.
GENERATED_SAMPLES = {("13_build_a_gpt.ipynb", "experiments.write(parts.generate")}     # the text model writes
_SAMPLE_HEADER = re.compile(r"--- .* ---")
_WORD = r"(?<![\w.\-'])[A-Za-z][a-z]+(?:'[a-z]+)?(?![\w(])"        # two letters or more
# Between two words of a run: spaces, hyphens, slashes, commas, digits and the signs of a label (one line).
_SEP = r"(?:[ \t\-/,:;=|+×·%()0-9.]|\\n)+"
_RUN = re.compile(f"{_WORD}(?:{_SEP}{_WORD}){{2,}}")


def strip_code(text: str) -> str:
    """Markdown or HTML without what is code, formula, link target or tag."""
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    text = re.sub(r"\$[^$\n]*\$", " ", text)
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", text, flags=re.S | re.I)
    text = re.sub(r"<[^>]+>", " ", text)
    text = re.sub(r"\]\([^)]*\)", "] ", text)
    text = re.sub(r"https?://\S+", " ", text)
    return text.replace("&#x27;", "'").replace("&quot;", '"').replace("&amp;", "&")


_DATA_WORDS: set[str] = set()


def data_words() -> set[str]:
    """English words that are data or identifiers, not prose: the words of the English sentences the course's models
    read (notebooks 01, 05, 06, 12) and the names of the hand-set models' features and slots (printed as code)."""
    if not _DATA_WORDS:
        from attention_core.labs.nb01_query_key_value import coreference
        from attention_core.labs.nb05_self_and_cross_attention import context_lab, cross_lab
        from attention_core.labs.nb06_multi_head_attention import heads_lab
        from attention_core.labs.nb12_trained_transformer import corpora
        split = corpora.coreference_split()
        for example in split.train + split.test:
            if example.lang == "en":
                _DATA_WORDS.update(t.lower() for t in example.tokens)
        names = (coreference.FEATURES + coreference.STEP2_AXES + tuple(coreference.LEXICON) + cross_lab.FEATURES
                 + cross_lab.SELF_AXES + tuple(cross_lab.LEXICON) + context_lab.FEATURES + heads_lab.VOCAB
                 + heads_lab.ROLES + tuple(heads_lab.FEATURES) + heads_lab.HEAD_KEYS)
        for name in names:
            _DATA_WORDS.update(w.lower() for w in re.split(r"[^A-Za-z']+", name) if w)
        for phrase in ("the cat sat on the mat", "the dog sat under the table", "dog bites man", "subj prev"):
            _DATA_WORDS.update(phrase.split())
    return _DATA_WORDS


def english_runs(text: str) -> list[str]:
    """Runs of three or more English words (kept terms and quoted phrases set aside) in one text; a run made only of
    data words (`data_words`) is the data itself (a table of the toy model's features, a sentence's tokens)."""
    runs = [run for run in _english_runs(text)
            if not all(w.lower() in data_words() for w in re.findall(_WORD, run))]
    return runs


def _english_runs(text: str) -> list[str]:
    text = re.sub(r"(?m)\b[A-Z]\w*(?:Error|Exception): .*$", " 。 ", text)           # a library's exception, quoted
    text = _KEPT_PHRASE.sub(" 。 ", text)
    text = re.sub(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+", " 。 ", text)   # dotted names: code
    text = re.sub(r"\b[A-Za-z]+_[A-Za-z0-9_]*\b|\b[a-z]+[A-Z]\w*\b", " 。 ", text)      # snake_ / camelCase
    text = re.sub(r"\b\w+=[^\s,)]+", " 。 ", text)                                    # keyword arguments
    text = re.sub(r"\b(?:" + "|".join(sorted(KEPT_TERMS, key=len, reverse=True)) + r")\b", " 。 ", text)
    return [m.group(0) for m in _RUN.finditer(text)]


def _register_strings() -> None:
    import attention_core.labs
    import attention_core.teaching
    for pkg in (attention_core.labs, attention_core.teaching):
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            importlib.import_module(info.name)


def _literals(code: str) -> list[str]:
    try:
        tree = ast.parse(code)
    except SyntaxError:                       # IPython magics: no literals to read there
        return []
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _cells(src):
    """The cells of one source; one that breaks the format is left to tests/notebooks/test_notebook_editions.py."""
    try:
        return ns.parse_source(src.read_text(encoding="utf-8"), src.name)
    except ns.SourceFormatError:
        return []


def markdown_cells(lang: str = "zh"):
    """(where, markdown) of every `lang` markdown cell of the sources."""
    for src in SOURCES:
        for i, (kind, cell_lang, text) in enumerate(_cells(src)):
            if kind == "md" and cell_lang == lang:
                yield f"{src.name} cell {i} (markdown)", text


def code_cells(lang: str = "zh"):
    """(where, code) of every code cell of the sources, resolved for `lang`."""
    for src in SOURCES:
        for i, (kind, _lang, text) in enumerate(_cells(src)):
            if kind == "code":
                try:
                    yield f"{src.name} cell {i}", ns.resolve_code(text, lang, f"{src.name} cell {i}")
                except ns.SourceFormatError:
                    continue


def output_texts(notebooks=ZH_NOTEBOOKS):
    """(where, text) of every stored text output of the built notebooks (library source printouts left out)."""
    for path in notebooks:
        nb = json.loads(path.read_text(encoding="utf-8"))
        for i, cell in enumerate(nb["cells"]):
            source = "".join(cell["source"])
            if cell["cell_type"] != "code" or "inspect.getsource" in source or "formula.source(" in source:
                continue
            samples = any(name == path.name and code in "".join(cell["source"]) for name, code in GENERATED_SAMPLES)
            for out in cell.get("outputs", []):
                if out.get("output_type") == "stream":            # an object's <repr> is code, not prose
                    printed = "".join(out["text"])
                    printed = _without_samples(printed) if samples else printed
                    yield f"{path.name} cell {i} (printed)", re.sub(r"<[^<>\n]+>", " ", printed)
                data = out.get("data", {})
                for mime in ("text/plain", "text/html", "text/markdown"):
                    if mime in data:
                        yield f"{path.name} cell {i} ({mime})", strip_code("".join(data[mime]))


def code_comments(notebooks=ZH_NOTEBOOKS):
    """(where, comment) of every comment in the code cells of the built notebooks (magics and shell lines aside)."""
    import io
    import tokenize
    for path in notebooks:
        nb = json.loads(path.read_text(encoding="utf-8"))
        for i, cell in enumerate(nb["cells"]):
            if cell["cell_type"] != "code":
                continue
            code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                             for line in "".join(cell["source"]).split("\n"))
            try:
                tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
            except (tokenize.TokenError, SyntaxError):
                continue
            for tok in tokens:
                if tok.type == tokenize.COMMENT:
                    yield f"{path.name} cell {i} (comment)", tok.string.lstrip("#").strip()


def _without_samples(printed: str) -> str:
    """A sample cell's printout without its samples: the lines before the first header, and the headers."""
    kept, in_sample = [], False
    for line in printed.split("\n"):
        if _SAMPLE_HEADER.fullmatch(line):
            kept.append(line)
            in_sample = True
        elif not in_sample:
            kept.append(line)
    return "\n".join(kept)


def string_tables(lang: str = "zh"):
    """(key, text) of every registered UI string (labs, checkers, teaching) in `lang`."""
    _register_strings()
    for key, entry in sorted(i18n.STRINGS.items()):
        yield f"string {key}", entry[lang]


def quiz_texts(lang: str = "zh"):
    """(where, text) of every question, option, feedback and note of the quiz bank in `lang`."""
    bank = json.loads(QUIZ.read_text(encoding="utf-8"))

    def walk(node, where):
        if isinstance(node, dict):
            if set(node) >= {"en", "zh"} and isinstance(node.get(lang), str):
                yield where, node[lang]
                return
            for k, v in node.items():
                yield from walk(v, f"{where}.{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                yield from walk(v, f"{where}[{i}]")
    for q in bank["questions"]:
        yield from walk(q, f"quiz {q['id']}")


def zh_texts():
    """Every learner-visible text of the Chinese edition, as (where, text)."""
    for where, text in markdown_cells("zh"):
        yield where, strip_code(text)
    for where, code in code_cells("zh"):
        for literal in _literals(code):
            if (where.split(" cell ")[0], literal) not in DATA_LITERALS:
                yield f"{where} (literal)", literal
    yield from output_texts()
    yield from code_comments()
    yield from string_tables("zh")
    yield from quiz_texts("zh")
