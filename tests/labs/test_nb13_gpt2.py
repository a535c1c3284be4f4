"""Notebook 13's "Your code runs GPT-2": the oracle over every configuration, and the ONLINE cell itself.

1. Notebook 13's gpt_forward (the package's reference, `pieces.gpt_forward`, and the solutions a learner
   would paste, tests/labs/nb13_solutions.py) against Hugging Face's forward on every random GPT-2 of
   the core oracle (tests/gpt2kit.py CONFIGS) in float64 and float32: 1e-10 and 1e-4, as the library.
2. The notebook's ONLINE cell, read from notebooks/src/13_build_a_gpt.py, resolved per edition and run
   with the two settings a learner changes (ONLINE = True, GPT2_SOURCE = ...) against a tiny random
   GPT-2 saved WITH its tokenizer (tests/gpt2kit.py): once from a folder, once by hub name through
   `download=True` with the Hugging Face cache pointed at a local folder and the hub offline (only the
   download itself is untested). Sockets are closed for the duration: nothing reaches the network.
"""
import importlib.util
import socket
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from gpt2kit import CONFIGS, hf_forward, hub_cache, random_gpt2, tiny_gpt2_small  # noqa: E402

import attention_core as ac  # noqa: E402
from attention_core.core import transformer as tr  # noqa: E402
from attention_core.labs.nb13_build_a_gpt import gpt2_tour, pieces  # noqa: E402
from attention_core.teaching import i18n  # noqa: E402
from attention_core.teaching.notebook_source import parse_source, resolve_code  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "notebooks" / "src" / "13_build_a_gpt.py"
TOL = {np.float64: 1e-10, np.float32: 1e-4}
SENTENCE = "The animal didn't cross the street because it was too tired."


def _solutions():
    spec = importlib.util.spec_from_file_location("nb13_solutions_gpt2", Path(__file__).with_name("nb13_solutions.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


sol = _solutions()


@pytest.fixture
def learner():
    """The solutions' Parts holding every piece of the solutions (layer norm, feed-forward, block, forward,
    generate), as after a learner's passing checks: the solutions' gpt_forward then runs on their pieces."""
    for name in pieces.NAMES:
        sol.parts.use(name, getattr(sol, name))
    assert set(sol.parts.which().values()) == {"yours"}
    yield sol.parts
    sol.parts.clear()


# --- 1. the oracle: notebook 13's gpt_forward on every configuration --------------------------------
def oracle_differences(name, dtype, forward, tmp_path):
    """(max |logits diff|, max |attention diff|) of forward on CONFIGS[name], saved and loaded back, vs HF."""
    n_layer, n_head, n_embd, n_positions, vocab, n_inner, t, batch, tied = CONFIGS[name]
    model = random_gpt2(n_layer, n_head, n_embd, n_positions, vocab, n_inner, tied, dtype)
    model.save_pretrained(tmp_path / "model")
    params = ac.load_gpt2(tmp_path / "model")
    ids = np.random.default_rng(1).integers(0, vocab, (batch, t))
    logits, maps = hf_forward(model, ids)
    with torch.no_grad():
        mine, w = forward(pieces.torch_params(params, dtype=np.dtype(dtype).name), torch.as_tensor(ids))
    assert mine.dtype == getattr(torch, np.dtype(dtype).name) and tuple(w.shape) == maps.shape
    return float(np.abs(mine.numpy() - logits).max()), float(np.abs(w.numpy() - maps).max())


@pytest.mark.slow          # builds, saves and reloads 10 HF models per forward: about 10 s
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", list(CONFIGS))
@pytest.mark.parametrize("forward", ["reference", "solutions"])
def test_notebook_13s_gpt_forward_equals_hugging_faces_on_every_oracle_configuration(forward, name, dtype, tmp_path,
                                                                                     request):
    fn = pieces.gpt_forward if forward == "reference" else request.getfixturevalue("learner").gpt_forward
    d_logits, d_maps = oracle_differences(name, dtype, fn, tmp_path)
    print(f"{forward} {name} {np.dtype(dtype).name}: logits {d_logits:.1e}, attention {d_maps:.1e}")
    assert d_logits < TOL[dtype] and d_maps < TOL[dtype], (d_logits, d_maps)


def test_the_oracle_configuration_is_worded_per_edition():
    config = gpt2_tour.RECORDED["config"]
    en, zh = gpt2_tour.config_label(config, "en"), gpt2_tour.config_label(config, "zh")
    assert en == "2 layers × 4 heads, d_model 32, 50 tokens, T = 20, batch 2"
    assert "2 层 × 4 个头" in zh and "layers" not in zh and "heads" not in zh


# --- 2. the ONLINE cell, run as a learner would run it ----------------------------------------------
def online_cell(lang: str, source: str) -> str:
    """The notebook's GPT-2 cell in one edition, with ONLINE = True and GPT2_SOURCE = source (the learner's edit)."""
    cells = parse_source(SOURCE.read_text(encoding="utf-8"), SOURCE.name)
    found = [text for kind, _, text in cells if kind == "code" and "gpt2_tour.gpt2_small(" in text]
    assert len(found) == 1, "expected one cell that loads GPT-2 small"
    code = resolve_code(found[0], lang)
    lines = code.splitlines()
    settings = {"ONLINE = False": "ONLINE = True", 'GPT2_SOURCE = "gpt2"': f"GPT2_SOURCE = {source!r}"}
    for old, new in settings.items():
        at = [i for i, line in enumerate(lines) if line.startswith(old)]
        assert len(at) == 1, f"expected one line starting with {old!r} in the cell"
        lines[at[0]] = new + "  # the learner's setting"
    return "\n".join(lines)


@pytest.fixture
def no_network(monkeypatch):
    """Any socket connection fails: the test proves nothing is fetched."""
    def refuse(*args, **kwargs):
        raise OSError("this test must not reach the network")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def run_online_cell(lang, source, parts, capsys):
    """Run the cell in a namespace holding what the notebook's first cell imports; (namespace, printed text)."""
    i18n.set_language(lang)
    ns = {"np": np, "torch": torch, "tr": tr, "ac": ac, "i18n": i18n, "pieces": pieces, "parts": parts,
          "LANG": lang}
    capsys.readouterr()
    exec(compile(online_cell(lang, source), f"13_build_a_gpt.py ONLINE cell ({lang})", "exec"), ns)
    return ns, capsys.readouterr().out


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """The stand-in for GPT-2 small, built once: (model, tokenizer, a folder holding both, HF's greedy continuation)."""
    model, tokenizer = tiny_gpt2_small()
    folder = tmp_path_factory.mktemp("nb13-gpt2") / "gpt2-local"
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    cont = tokenizer(SENTENCE)["input_ids"]
    with torch.no_grad():
        for _ in range(20):                                          # greedy with Hugging Face's forward, no cache
            cont.append(int(model(torch.as_tensor([cont])).logits[0, -1].argmax()))
    return model, tokenizer, folder, cont


def check_online_run(ns, out, lang, tiny):
    model, tokenizer, _, hf_cont = tiny
    ids = tokenizer(SENTENCE)["input_ids"]
    assert ns["ids"] == ids and len(ids) > 10
    hf_logits, _ = hf_forward(model, [ids])
    np.testing.assert_allclose(ns["hf_logits"], hf_logits, rtol=0, atol=1e-6)
    assert np.abs(ns["mine_logits"].numpy() - hf_logits[0]).max() < 1e-4          # float32, as GPT-2 small
    assert np.abs(ns["lib_logits"] - hf_logits[0]).max() < 1e-4
    assert ns["mine_w"].shape == (2, 4, len(ids), len(ids))
    # the continuation: greedy, through the KV cache, and the same tokens as Hugging Face's own greedy generate
    cont = ns["parts"].generate(ns["g2"], ids, 20)
    assert cont == hf_cont and len(cont) == len(ids) + 20
    assert tokenizer.decode(cont) in out and tokenizer.decode(cont).startswith(SENTENCE)
    scores = ns["scores_g2"]
    for kind in ("previous", "induction"):
        assert scores[kind].shape == (2, 4) and ((scores[kind] >= 0) & (scores[kind] <= 1)).all()
    lines = out.splitlines()
    top = {"en": ("previous-token heads", "induction heads"), "zh": ("“前一个 token”头", "induction head")}[lang]
    for label, kind in zip(top, ("previous", "induction")):
        layer, head, score = gpt2_tour.top_heads(scores[kind], 1)[0]
        assert any(line.startswith(label) and f"L{layer}H{head} {score:.2f}" in line for line in lines), (label, out)
    it_lines = [line for line in lines if "'it'" in line]
    assert len(it_lines) == 2, out                                              # one per layer
    words = {"en": ("largest difference from Hugging Face", "layer 0: head"),
             "zh": ("与 Hugging Face 的 logits 的最大差", "第 0 层：第")}[lang]
    for w in words:
        assert w in out, (w, out)
    if lang == "zh":
        assert "previous" not in out and "layer " not in out and "looks" not in out


@pytest.mark.parametrize("lang, who", [("en", "learner"), ("zh", "library")])
def test_the_online_cell_runs_a_locally_saved_gpt2_with_its_tokenizer(lang, who, tiny, capsys, no_network, request):
    parts = request.getfixturevalue("learner") if who == "learner" else pieces.Parts()
    ns, out = run_online_cell(lang, str(tiny[2]), parts, capsys)
    assert parts.which()["gpt_forward"] == ("yours" if who == "learner" else "library")
    assert parts.report() in out                                    # which pieces ran, printed in the cell
    check_online_run(ns, out, lang, tiny)


def test_the_online_cell_by_hub_name_with_download_true_reads_the_cache_offline(tiny, tmp_path, capsys, monkeypatch,
                                                                               no_network, learner):
    import huggingface_hub.constants as hub
    model, tokenizer = tiny[:2]
    repo = "attention-lab/tiny-gpt2"
    cache = hub_cache(tmp_path, repo, model, tokenizer)
    for var, value in (("HF_HUB_OFFLINE", "1"), ("HF_HOME", str(tmp_path)), ("HF_HUB_CACHE", cache)):
        monkeypatch.setenv(var, value)
    monkeypatch.setattr(hub, "HF_HUB_OFFLINE", True)                  # read at import: set where it is looked up
    monkeypatch.setattr(hub, "HF_HUB_CACHE", cache)
    code = online_cell("en", repo)
    assert "gpt2_small(GPT2_SOURCE, download=True)" in code          # the route a learner online takes
    ns, out = run_online_cell("en", repo, learner, capsys)
    check_online_run(ns, out, "en", tiny)


def test_a_folder_with_the_model_but_no_tokenizer_says_to_save_the_tokenizer(tiny, tmp_path, lang):
    model = tiny[0]
    model.save_pretrained(tmp_path / "model-only")                  # what the old instructions made
    with pytest.raises(FileNotFoundError) as info:
        gpt2_tour.gpt2_small(str(tmp_path / "model-only"))
    text = str(info.value)
    assert "AutoTokenizer.from_pretrained('gpt2').save_pretrained(" in text and "model-only" in text
    assert ("no tokenizer" if lang == "en" else "没有分词器") in text


def test_a_tokenizer_larger_than_the_model_is_refused(tiny, tmp_path, lang):
    tokenizer = tiny[1]
    small = random_gpt2(1, 2, 8, 16, 100, None, True, np.float32)  # 100 tokens < the tokenizer's 262
    small.save_pretrained(tmp_path / "mixed")
    tokenizer.save_pretrained(tmp_path / "mixed")
    with pytest.raises(ValueError) as info:
        gpt2_tour.gpt2_small(str(tmp_path / "mixed"))
    assert "262" in str(info.value) and "100" in str(info.value)
