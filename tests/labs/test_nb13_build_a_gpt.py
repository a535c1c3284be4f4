"""Notebook 13's lab: the corpus export in sync with the sources, the tokenizer and merges, the torch
reference pieces equal to the library, every checker's verdict on right and wrong pieces (a table),
Parts, generation with the cache, and the shipped runs (loaded, their metrics re-measured, the start of
`make train` reproduced)."""
from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import attention_core as ac  # noqa: E402
from attention_core.backends.torch_generation import TorchRng  # noqa: E402
from attention_core.core import transformer as tr  # noqa: E402
from attention_core.core.generation import pick_token  # noqa: E402
from attention_core.core.training import models_dir  # noqa: E402
from attention_core.labs.nb12_trained_transformer import experiments as nb12_exp  # noqa: E402
from attention_core.labs.nb12_trained_transformer import load_trained  # noqa: E402
from attention_core.labs.nb13_build_a_gpt import checks, corpus, experiments, pieces, training  # noqa: E402


def _solutions():
    """The notebook's solutions, as a learner would paste them (tests/labs/nb13_solutions.py)."""
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location("nb13_solutions", Path(__file__).with_name("nb13_solutions.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


sol = _solutions()

F = torch.nn.functional


# --- the corpus -------------------------------------------------------------------------------------
@pytest.mark.slow          # parses every notebook source: about 4 s (make test runs it)
def test_corpus_export_is_in_sync_with_the_notebook_sources():
    shipped = corpus.load_corpus()
    fresh = corpus.build()
    assert shipped["sha256"] == fresh["sha256"], (
        "attention_core/data/course_text.json is older than the markdown of notebooks/src: run "
        "`python -m attention_core.labs.nb13_build_a_gpt.corpus` (make train does it)")
    assert shipped["en"] == fresh["en"] and shipped["zh"] == fresh["zh"]


def test_corpus_holds_both_languages_of_every_notebook():
    data = corpus.load_corpus()
    assert data["chars"]["en"] > 100_000 and data["chars"]["zh"] > 50_000
    assert "# 12 · Attention inside a trained Transformer" in data["en"]
    assert "# 12 · 训练好的 Transformer 里的注意力" in data["zh"]
    assert "softmax" not in data["zh"][:0]            # a str
    assert "lang=" not in data["en"]                   # markers are not text


def test_a_markdown_edit_changes_the_export(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "00_x.py").write_text('# %% [markdown] lang="en"\n# Hello\n\n# %% [markdown] lang="zh"\n# 你好\n\n'
                                 '# %%\nx = 1\n', encoding="utf-8")
    a = corpus.build(src)
    assert a["en"] == "Hello\n" and a["zh"] == "你好\n"
    (src / "00_x.py").write_text('# %% [markdown] lang="en"\n# Hello!\n\n# %% [markdown] lang="zh"\n# 你好\n',
                                 encoding="utf-8")
    assert corpus.build(src)["sha256"] != a["sha256"]


def test_tokenizer_round_trip_and_unknown_character():
    tok = corpus.CharTokenizer.from_corpus()
    text = "Softmax 把分数变成权重。"
    assert tok.decode(tok.encode(text)) == text
    with pytest.raises(ValueError, match="U\\+2603"):
        tok.encode("a \u2603")
    with pytest.raises(TypeError):
        tok.encode(None)


@pytest.mark.parametrize("ids, pair, new_id, want", [
    ([1, 1, 1], (1, 1), 9, [9, 1]), ([1, 2, 3, 1, 2], (1, 2), 9, [9, 3, 9]), ([], (1, 2), 9, []),
    ([1, 1, 1, 1], (1, 1), 9, [9, 9]), ([3], (3, 3), 9, [3])])
def test_merge(ids, pair, new_id, want):
    assert corpus.merge(ids, pair, new_id) == want


def test_merges_shorten_text_and_bigram_baseline_is_finite():
    tok = corpus.CharTokenizer.from_corpus()
    ids = tok.encode(corpus.load_corpus()["en"][:5000])
    merges = corpus.train_merges(ids, 20, len(tok))
    assert len(merges) == 20
    assert len(corpus.apply_merges(ids, merges)) < 0.8 * len(ids)
    b = corpus.bigram_loss(ids[:4000], ids[4000:], len(tok))
    assert 1.0 < b["loss"] < np.log(len(tok))


# --- the reference pieces are the library ---------------------------------------------------------------
@pytest.mark.parametrize("name", ["induction", "coreference_decoder"])   # the causal ones (coreference is an encoder)
def test_reference_gpt_forward_on_notebook_12_models_equals_decoder_forward(name):
    m = load_trained(name)
    ids = np.random.default_rng(0).integers(0, m.params.vocab_size, (3, m.params.max_len - 1))
    want_l, want_w = tr.decoder_forward(m.params, ids)
    got_l, got_w = pieces.gpt_forward(pieces.torch_params(m.params, dtype="float32"), torch.as_tensor(ids))
    assert np.abs(got_l.numpy() - want_l).max() < 1e-5
    assert np.abs(got_w.numpy() - want_w).max() < 1e-5
    got64, _ = pieces.gpt_forward(pieces.torch_params(m.params), torch.as_tensor(ids))
    assert np.abs(got64.numpy() - tr.decoder_forward(tr.decoder_from_dict(
        {k: v.astype(np.float64) for k, v in tr.decoder_to_dict(m.params).items()}, m.n_heads), ids)[0]).max() < 1e-10


@pytest.mark.parametrize("dtype, tol", [("float64", 1e-10), ("float32", 1e-5)])
def test_the_training_forward_gives_gpt_forwards_logits_and_gradients(dtype, tol):
    """The shipped text run trains training_forward (fused attention, no maps): same logits and same gradients
    as gpt_forward, on random weights (LN and biases included) and on a batch with a full context."""
    init = tr.init_decoder(50, 32, 4, 2, 64, 40, seed=3)
    rng = np.random.default_rng(1)
    init = {k: v + 0.1 * rng.normal(size=v.shape) for k, v in init.items()}    # LN gains and biases not 1 / 0
    ids = torch.as_tensor(rng.integers(0, 50, (3, 40)))
    grads = []
    for fwd in (pieces.gpt_forward, pieces.training_forward):
        params = pieces.torch_params(init, 4, dtype=dtype, requires_grad=True)
        logits, maps = fwd(params, ids)
        assert (maps is None) == (fwd is pieces.training_forward)
        logits.square().mean().backward()
        grads.append((logits.detach(), {k: t.grad for k, t in pieces.flat_tensors(params).items()}))
    (want, want_g), (got, got_g) = grads
    assert (got - want).abs().max() < tol
    assert max(float((got_g[k] - want_g[k]).abs().max()) for k in want_g) < tol


def test_the_learners_heads_show_notebook_12s_scores():
    m = load_trained("induction")
    seqs = nb12_exp.eval_sequences()
    _, w = pieces.gpt_forward(pieces.torch_params(m.params, dtype="float32"), torch.as_tensor(seqs))
    _, w_lib = m.forward(seqs)
    half = seqs.shape[1] // 2
    assert np.abs(nb12_exp.previous_token_score(w.numpy()) - nb12_exp.previous_token_score(w_lib)).max() < 1e-5
    assert np.abs(nb12_exp.induction_score(w.numpy(), half) - nb12_exp.induction_score(w_lib, half)).max() < 1e-5


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_position_figure_puts_each_score_on_its_own_axis(lang):
    """The previous-token panel runs over query positions t = 1 .. T - 1, the induction panel over the starts of the
    repeat: each says so under its axis, in the edition's language (they once shared the repeat-start label)."""
    import matplotlib.pyplot as plt

    from attention_core.labs.nb13_build_a_gpt import figures
    from attention_core.teaching import i18n
    rng = np.random.default_rng(0)
    scores = {"starts": np.arange(17), "induction": rng.random((17, 2, 4)), "queries": np.arange(1, 32),
              "previous": rng.random((31, 2, 4))}
    best = experiments.best_heads(scores)
    old = i18n.get_language()
    i18n.set_language(lang)
    try:
        prev_ax, ind_ax = figures.plot_position_scores(scores, best)
        p, q = best["previous"], best["induction"]
        x, y = prev_ax.lines[0].get_data()
        assert list(x) == list(range(1, 32))
        assert np.allclose(y, scores["previous"][:, p["layer"], p["head"]])
        x, y = ind_ax.lines[0].get_data()
        assert list(x) == list(range(17)) and np.allclose(y, scores["induction"][:, q["layer"], q["head"]])
        assert prev_ax.get_xlabel() == i18n.t("nb13.fig_query_position", lang)
        assert ind_ax.get_xlabel() == i18n.t("nb13.fig_repeat_start", lang)
        assert prev_ax.get_xlabel() != ind_ax.get_xlabel()
    finally:
        i18n.set_language(old)
        plt.close("all")


def test_best_heads_says_where_the_lowest_score_is_as_the_figure_shows_it():
    """"lowest 0.33 (position 28)" must be the query position t (or the start of the repeat) of the plotted minimum,
    not the index into the array (query position t is index t - 1; starts need not begin at 0)."""
    prev = np.full((31, 2, 4), 0.5)
    prev[:, 0, 1] = 0.95
    prev[27, 0, 1] = 0.3                               # query position t = 28
    ind = np.full((17, 2, 4), 0.2)
    ind[:, 1, 0] = 0.8
    ind[5, 1, 0] = 0.4                                 # the sixth start: 3 + 5 = 8
    best = experiments.best_heads({"starts": np.arange(3, 20), "induction": ind, "queries": np.arange(1, 32),
                                   "previous": prev})
    assert (best["previous"]["layer"], best["previous"]["head"], best["previous"]["at_min"]) == (0, 1, 28)
    assert (best["induction"]["layer"], best["induction"]["head"], best["induction"]["at_min"]) == (1, 0, 8)
    assert best["previous"]["min"] == 0.3 and best["induction"]["min"] == 0.4


@pytest.mark.slow                      # two training runs (20 and 50 steps): about 4 s of make quick's minute
def test_a_short_live_run_logs_about_ten_points_and_a_full_one_keeps_its_schedule():
    """The notebook's live runs are shorter than one logging interval of the full run (40 text steps against 50): they
    log about ten times so their live curve has points; a full run logs as its manifest did."""
    short = training.run("induction", steps=20, metrics=False)
    assert [row[0] for row in short["curve"]] == list(range(2, 21, 2))
    assert all(row[2] is not None for row in short["curve"])
    full_start = training.run("induction", stop_after=training.CONFIGS["induction"]["log_every"])["curve"]
    assert [row[0] for row in full_start] == [training.CONFIGS["induction"]["log_every"]]


def test_cached_generation_equals_recomputing_and_sampling_is_seeded():
    p = pieces.torch_params(load_trained("coreference_decoder").params)
    prompt = [1, 2, 3]
    assert pieces.generate(p, prompt, 12) == pieces.generate_uncached(p, prompt, 12)
    a = pieces.generate(p, prompt, 12, temperature=1.5, top_k=5, seed=4)
    assert a == pieces.generate(p, prompt, 12, temperature=1.5, top_k=5, seed=4)
    assert a == pieces.generate_uncached(p, prompt, 12, temperature=1.5, top_k=5, seed=4)
    with pytest.raises(ValueError, match="context"):
        pieces.generate(p, prompt, p.pos_emb.shape[0] - 2)
    with pytest.raises(ValueError, match="temperature"):
        pieces.generate(p, prompt, 2, temperature=-1)


def test_cache_bytes_is_the_formula_of_notebook_09():
    p = pieces.torch_params(load_trained("coreference_decoder").params, dtype="float32")
    _, cache = pieces.forward_cached(p, [1, 2, 3, 4, 5], None)
    assert pieces.cache_bytes(cache) == experiments.cache_size(p, 5, 4)


# --- the checkers: right and wrong pieces, the verdict of each ------------------------------------------
def _ln_unbiased(x, g, b, eps=1e-5):
    return (x - x.mean(-1, keepdim=True)) / torch.sqrt(x.var(-1, keepdim=True) + eps) * g + b


def _ln_eps_outside(x, g, b, eps=1e-5):
    m = x.mean(-1, keepdim=True)
    return (x - m) / (torch.sqrt(((x - m) ** 2).mean(-1, keepdim=True)) + eps) * g + b


def _ln_axis0(x, g, b, eps=1e-5):
    m = x.mean(0, keepdim=True)
    return (x - m) / torch.sqrt(((x - m) ** 2).mean(0, keepdim=True) + eps) * g + b


def _ln_no_affine(x, g, b, eps=1e-5):
    m = x.mean(-1, keepdim=True)
    return (x - m) / torch.sqrt(((x - m) ** 2).mean(-1, keepdim=True) + eps)


def _ln_fixed_eps(x, g, b, eps=1e-5):
    return sol.layer_norm(x, g, b)


def _ln_numpy(x, g, b, eps=1e-5):
    return tr.layer_norm(x.detach().numpy(), g.numpy(), b.numpy(), eps)


def _ln_detached(x, g, b, eps=1e-5):
    return sol.layer_norm(x.detach(), g, b, eps)


def _ffn_erf(x, w1, b1, w2, b2):
    return F.gelu(x @ w1 + b1) @ w2 + b2


def _ffn_relu(x, w1, b1, w2, b2):
    return torch.relu(x @ w1 + b1) @ w2 + b2


def _ffn_no_b2(x, w1, b1, w2, b2):
    return F.gelu(x @ w1 + b1, approximate="tanh") @ w2


def _block_post_ln(x, b, mask):
    x = pieces.layer_norm(x + pieces.self_attention(x, b.attn, mask)[0], b.ln1_g, b.ln1_b)
    x2 = pieces.layer_norm(x + pieces.feed_forward(x, b.w_1, b.b_1, b.w_2, b.b_2), b.ln2_g, b.ln2_b)
    return x2, pieces.self_attention(x, b.attn, mask)[1]


def _block_no_res1(x, b, mask):
    a, w = pieces.self_attention(pieces.layer_norm(x, b.ln1_g, b.ln1_b), b.attn, mask)
    return a + pieces.feed_forward(pieces.layer_norm(a, b.ln2_g, b.ln2_b), b.w_1, b.b_1, b.w_2, b.b_2), w


def _block_no_res2(x, b, mask):
    a, w = pieces.self_attention(pieces.layer_norm(x, b.ln1_g, b.ln1_b), b.attn, mask)
    return pieces.feed_forward(pieces.layer_norm(x + a, b.ln2_g, b.ln2_b), b.w_1, b.b_1, b.w_2, b.b_2), w


def _block_no_mask(x, b, mask):
    return sol.transformer_block(x, b, None)


def _block_own_causal_mask(x, b, mask):
    return sol.transformer_block(x, b, torch.as_tensor(ac.causal_mask(x.shape[-2])))


def _gpt_no_pos(params, ids):
    x = params.tok_emb[ids]
    mask = torch.as_tensor(ac.causal_mask(ids.shape[-1]))
    maps = []
    for blk in params.blocks:
        x, w = pieces.transformer_block(x, blk, mask)
        maps.append(w)
    return pieces.layer_norm(x, params.lnf_g, params.lnf_b) @ params.w_out + params.b_out, torch.stack(maps, -4)


def _gpt_no_lnf(params, ids):
    logits, w = sol.gpt_forward(params, ids)
    t = ids.shape[-1]
    x = params.tok_emb[ids] + params.pos_emb[:t]
    for blk in params.blocks:
        x, _ = pieces.transformer_block(x, blk, torch.as_tensor(ac.causal_mask(t)))
    return x @ params.w_out + params.b_out, w


def _gpt_heads_first(params, ids):
    logits, w = sol.gpt_forward(params, ids)
    return logits, w.transpose(-4, -3)


def _gen_no_cache_positions(params, ids, n_new, temperature=0.0, top_k=None, seed=0):
    """Each new token embedded at position 0."""
    out = list(ids)
    for _ in range(n_new):
        logits, _ = pieces.gpt_forward(params, torch.tensor(out))
        x_last = out[-1]
        del x_last
        nxt = int(torch.argmax(logits[-1])) if len(out) < 3 else int(torch.argmax(logits[0]))
        out.append(nxt)
    return out


def _gen_recompute_everything(params, ids, n_new, temperature=0.0, top_k=None, seed=0):
    """The right text without a cache: the learner's own gpt_forward on the whole sequence at every step."""
    g = torch.Generator().manual_seed(seed)
    out = list(ids)
    with torch.no_grad():
        for _ in range(n_new):
            last = sol.gpt_forward(params, torch.tensor(out))[0][-1]
            if temperature == 0:
                out.append(int(torch.argmax(last)))
                continue
            last = last / temperature
            if top_k is not None:
                last = last.masked_fill(last < torch.topk(last, top_k).values[-1], float("-inf"))
            out.append(int(torch.multinomial(torch.softmax(last, -1), 1, generator=g)))
    return out


def _gen_cached_linear(params, ids, n_new, temperature=0.0, top_k=None, seed=0):
    """Right, with the projections written as F.linear(z, w.T) (w_q seen through a transpose)."""
    out = list(ids)
    cache = [None] * len(params.blocks)

    def step(new):
        t0 = 0 if cache[0] is None else cache[0][0].shape[-2]
        x = params.tok_emb[torch.tensor(new)] + params.pos_emb[t0:t0 + len(new)]
        mask = torch.as_tensor(ac.causal_mask(len(new), t0 + len(new), offset=t0))
        for i, b in enumerate(params.blocks):
            a, h = b.attn, b.attn.n_heads
            z = pieces.layer_norm(x, b.ln1_g, b.ln1_b)
            q, k, v = (ac.split_heads(F.linear(z, w.T, bias), h)
                       for w, bias in ((a.w_q, a.b_q), (a.w_k, a.b_k), (a.w_v, a.b_v)))
            if cache[i] is not None:
                k, v = torch.cat([cache[i][0], k], dim=-2), torch.cat([cache[i][1], v], dim=-2)
            cache[i] = (k, v)
            heads, _ = ac.scaled_dot_product_attention(q, k, v, mask=mask)
            x = x + ac.merge_heads(heads) @ a.w_o + a.b_o
            x = x + pieces.feed_forward(pieces.layer_norm(x, b.ln2_g, b.ln2_b), b.w_1, b.b_1, b.w_2, b.b_2)
        return pieces.layer_norm(x, params.lnf_g, params.lnf_b) @ params.w_out + params.b_out

    g = TorchRng(seed)                                    # the library's sampler, torch's draw
    with torch.no_grad():
        logits = step(out)
        for i in range(n_new):
            out.append(pick_token(logits[-1], temperature, top_k, g))
            if i < n_new - 1:
                logits = step(out[-1:])
    return out


def _gen_unseeded(params, ids, n_new, temperature=0.0, top_k=None, seed=0):
    if temperature == 0:
        return sol.generate(params, ids, n_new)
    return sol.generate(params, ids, n_new, temperature, top_k, seed=int(torch.randint(0, 10**6, ())))


def _gen_no_temperature(params, ids, n_new, temperature=0.0, top_k=None, seed=0):
    return sol.generate(params, ids, n_new, 1.0 if temperature else 0.0, top_k, seed)


def _gen_no_top_k(params, ids, n_new, temperature=0.0, top_k=None, seed=0):
    return sol.generate(params, ids, n_new, temperature, None, seed)


def _gen_only_new(params, ids, n_new, temperature=0.0, top_k=None, seed=0):
    return sol.generate(params, ids, n_new, temperature, top_k, seed)[len(ids):]


def _gen_always_greedy(params, ids, n_new, temperature=0.0, top_k=None, seed=0):
    return sol.generate(params, ids, n_new)


def _dec_spaces(ids):
    return " ".join(sol.chars[i] for i in ids)


def _enc_drop(text):
    return [sol.stoi[c] for c in text if c in sol.stoi]


def _enc_zero(text):
    return [sol.stoi.get(c, 0) for c in text]


def _enc_shift(text):
    return [sol.stoi[c] + 1 for c in text]


def _merge_overlap(ids, pair, new_id):
    """Replaces the pair at every index, without skipping the second token of a merged pair."""
    out = []
    for i in range(len(ids)):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == tuple(pair):
            out.append(new_id)
        elif not (i > 0 and (ids[i - 1], ids[i]) == tuple(pair)):
            out.append(ids[i])
    return out


def _merge_first(ids, pair, new_id):
    for i in range(len(ids) - 1):
        if (ids[i], ids[i + 1]) == tuple(pair):
            return ids[:i] + [new_id] + ids[i + 2:]
    return list(ids)


def _merge_in_place(ids, pair, new_id):
    out = sol.merge(ids, pair, new_id)
    ids[:] = out
    return out


def _not_done(*args, **kwargs):
    raise NotImplementedError("write me")


_LIBRARY_TOKENIZER = corpus.CharTokenizer.from_corpus()

TABLE = [
    # checker, function(s), passes, words the message must hold
    ("check_tokenizer", (sol.encode, sol.decode), True, "unknown character raises"),
    ("check_tokenizer", (_LIBRARY_TOKENIZER.encode, _LIBRARY_TOKENIZER.decode), True, "unknown character raises"),
    ("check_tokenizer", (_enc_drop, sol.decode), False, "dropped"),
    ("check_tokenizer", (_enc_zero, sol.decode), False, "instead of raising"),
    ("check_tokenizer", (_enc_shift, sol.decode), False, "plus 1"),
    ("check_tokenizer", (sol.encode, _dec_spaces), False, "separators"),
    ("check_tokenizer", (_not_done, sol.decode), False, "NotImplementedError"),
    ("check_bpe_merge", (sol.merge,), True, "right on"),
    ("check_bpe_merge", (corpus.merge,), True, "right on"),
    ("check_bpe_merge", (_merge_overlap,), False, "overlap"),
    ("check_bpe_merge", (_merge_first,), False, "first occurrence"),
    ("check_bpe_merge", (_merge_in_place,), False, "changed the list"),
    ("check_layer_norm", (sol.layer_norm,), True, "matches"),
    ("check_layer_norm", (pieces.layer_norm,), True, "matches"),
    ("check_layer_norm", (_ln_unbiased,), False, "unbiased"),
    ("check_layer_norm", (_ln_eps_outside,), False, "outside the square root"),
    ("check_layer_norm", (_ln_axis0,), False, "wrong axis"),
    ("check_layer_norm", (_ln_no_affine,), False, "gamma and beta"),
    ("check_layer_norm", (_ln_fixed_eps,), False, "ignores its eps"),
    ("check_layer_norm", (_ln_numpy,), False, "torch tensor"),
    ("check_layer_norm", (_ln_detached,), False, "autograd"),
    ("check_feed_forward", (sol.feed_forward,), True, "matches"),
    ("check_feed_forward", (pieces.feed_forward,), True, "matches"),
    ("check_feed_forward", (_ffn_erf,), False, "erf"),
    ("check_feed_forward", (_ffn_relu,), False, "ReLU"),
    ("check_feed_forward", (_ffn_no_b2,), False, "b_2"),
    ("check_transformer_block", (sol.transformer_block,), True, "matches"),
    ("check_transformer_block", (pieces.transformer_block,), True, "matches"),
    ("check_transformer_block", (_block_post_ln,), False, "post-LN"),
    ("check_transformer_block", (_block_no_res1,), False, "first residual"),
    ("check_transformer_block", (_block_no_res2,), False, "second residual"),
    ("check_transformer_block", (_block_no_mask,), False, "does not honour the mask"),
    ("check_transformer_block", (_block_own_causal_mask,), False, "does not honour the mask"),
    ("check_gpt_forward", (sol.gpt_forward,), True, "matches"),
    ("check_gpt_forward", (pieces.gpt_forward,), True, "matches"),
    ("check_gpt_forward", (_gpt_no_pos,), False, "position embeddings"),
    ("check_gpt_forward", (_gpt_no_lnf,), False, "final layer norm"),
    ("check_gpt_forward", (_gpt_heads_first,), False, "shape"),
    ("check_generate", (sol.generate,), True, "reproducible"),
    ("check_generate", (pieces.generate,), True, "reproducible"),
    ("check_generate", (_gen_cached_linear,), True, "reproducible"),
    ("check_generate", (pieces.generate_uncached,), False, "without a KV cache"),
    ("check_generate", (_gen_recompute_everything,), False, "recomputes the whole sequence at every step"),
    ("check_generate", (_gen_no_cache_positions,), False, "differs from recomputing"),
    ("check_generate", (_gen_unseeded,), False, "same seed"),
    ("check_generate", (_gen_no_temperature,), False, "temperature 1e-4"),
    ("check_generate", (_gen_no_top_k,), False, "top_k"),
    ("check_generate", (_gen_only_new,), False, "only the"),
    ("check_generate", (_gen_always_greedy,), False, "five seeds"),
    ("check_generate", (_not_done,), False, "NotImplementedError"),
]


# check_generate runs the learner's decoder a dozen times a check (about 10-20 s a row on a loaded machine): make
# test runs those rows, make quick does not (as in test_correct_variants_nb13.py).
@pytest.mark.parametrize("checker, fns, passes, words",
                         [pytest.param(*row, marks=[pytest.mark.slow] if row[0] == "check_generate" else [])
                          for row in TABLE],
                         ids=[f"{c}-{getattr(f[0], '__name__', '?')}-{'ok' if p else 'wrong'}"
                              for c, f, p, _ in TABLE])
def test_checker_verdicts(checker, fns, passes, words):
    result = getattr(checks, checker)(*fns)
    assert result.passed is passes, result.message
    assert words in result.message, result.message
    zh = getattr(checks, checker)(*fns, lang="zh")
    assert zh.passed is passes and zh.message != result.message


def test_a_checker_never_raises_on_garbage():
    for checker in ("check_layer_norm", "check_feed_forward", "check_transformer_block", "check_gpt_forward",
                    "check_generate", "check_bpe_merge"):
        for fn in (None, 3, lambda *a, **k: None, lambda *a, **k: (1, 2, 3), lambda *a, **k: "x"):
            r = getattr(checks, checker)(fn)
            assert not r.passed
    assert not checks.check_tokenizer(sol.encode, None).passed


def test_passing_pieces_go_into_the_parts_they_are_given_and_failing_ones_leave():
    parts = pieces.Parts()
    assert checks.check_layer_norm(sol.layer_norm, parts=parts).passed
    assert parts.which()["layer_norm"] == "yours"
    assert parts.layer_norm is sol.layer_norm
    assert not checks.check_layer_norm(_ln_unbiased, parts=parts).passed
    assert parts.which()["layer_norm"] == "library"
    assert checks.check_layer_norm(pieces.layer_norm, parts=parts).passed
    assert parts.which()["layer_norm"] == "library"
    assert "layer_norm" in parts.report("en")


def test_a_label_says_whose_piece_runs_in_each_language():
    """The notebook's printed labels ("gpt_forward (the library's)") follow the Parts, as report() does."""
    parts = pieces.Parts()
    assert parts.label("gpt_forward", "en") == "gpt_forward (the library's)"
    assert parts.label("gpt_forward", "zh") == "gpt_forward（库里的）"
    assert checks.check_gpt_forward(sol.gpt_forward, parts=parts).passed
    assert parts.label("gpt_forward", "en") == "gpt_forward (yours)"
    assert parts.label("gpt_forward", "zh") == "gpt_forward（你的）"
    assert parts.label("generate", "en") == "generate (the library's)"
    for name in pieces.NAMES:                                  # the same words as report()
        assert parts.label(name, "en") in parts.report("en")
        assert parts.label(name, "zh") in parts.report("zh")
    with pytest.raises(ValueError, match="name"):
        parts.label("encode")


def test_the_induction_runs_take_notebook_12s_logit_attribution():
    """Notebook 13 prints direct logit attribution of the learner's induction model with notebook 12's tool: a
    shipped run of the same recipe is a model it reads, and the heads' parts add up to the model's own value."""
    la = nb12_exp.logit_attribution(training.load_run("induction"))
    assert la["repeat"].shape == (2, 4)
    assert abs(la["logit"] - la["repeat"].sum()) < 0.5
    assert la["repeat"][1].max() > 0.5 > np.abs(la["repeat"][0]).max()


def test_a_checker_without_parts_keeps_nothing_between_cells():
    """Run in any order, a check gives the same verdict and leaves no state behind (no global Parts)."""
    assert not hasattr(pieces, "PARTS")
    first = checks.check_layer_norm(_ln_unbiased).message
    assert checks.check_layer_norm(sol.layer_norm).passed
    assert checks.check_layer_norm(_ln_unbiased).message == first


# --- training and the shipped runs ------------------------------------------------------------------------
def test_repeat_batches_put_the_repeat_anywhere():
    b = training.repeat_batch(np.random.default_rng(0), 200, 33)
    assert b.shape == (200, 33) and b.min() >= 0 and b.max() < 26
    s = training.repeat_at(np.random.default_rng(0), 4, 32, 10, 8)
    assert (s[:, 10:18] == s[:, 18:26]).all()


@pytest.mark.slow
def test_training_loop_is_deterministic():
    a = training.run("induction", steps=30, stop_after=30)["curve"]
    b = training.run("induction", steps=30, stop_after=30)["curve"]
    assert a == b


@pytest.mark.parametrize("name", training.RUN_NAMES)
def test_shipped_runs_load_and_reach_their_goals(name):
    m = training.load_run(name)
    man = m.manifest
    met = man["metrics"]
    assert man["steps"] == training.shipped_recipe(name)["steps"]
    if name == "induction":
        assert met["induction_mean"] >= 0.5 and met["previous_mean"] >= 0.4
        sc = experiments.scores_by_position(experiments.numpy_forward(m), m.params.max_len, n=100)
        best = experiments.best_heads(sc)
        assert round(best["induction"]["mean"], 4) == met["induction_mean"]
    else:
        for lang in corpus.LANGS:
            assert met[f"{lang}_loss"] < met[f"{lang}_bigram_loss"]


@pytest.mark.slow
@pytest.mark.parametrize("name", training.RUN_NAMES)
def test_make_train_reproduces_the_start_of_the_shipped_run(name):
    run = training.load_run(name)
    man = json.loads(json.dumps(run.manifest))
    # the text run trains on the corpus it froze beside its weights, whatever the live export holds now
    data = training.TextData(training.run_corpus(run), chars=run.vocab) if name == "text" else None
    cfg = training.shipped_recipe(name)
    curve = training.run(name, stop_after=cfg["log_every"], data=data, seed=man["seed"], config=cfg)["curve"]
    assert curve[0] == man["loss_curve"][0]


def test_the_text_run_keeps_the_corpus_it_learned_from(tmp_path):
    """The shipped text run's frozen corpus matches its manifest, encodes with its vocabulary, and a damaged or
    foreign copy is refused with the file named (a markdown edit changes the live export, never the run's data)."""
    import shutil
    run = training.load_run("text")
    frozen = training.run_corpus(run)
    assert frozen["sha256"] == run.manifest["corpus_sha256"]
    data = training.TextData(frozen, chars=run.vocab)
    assert all(len(data.valid[lang]) > 1000 for lang in corpus.LANGS)
    assert sorted(set(frozen["en"]) | set(frozen["zh"])) == list(run.vocab)
    folder = tmp_path / "models"
    folder.mkdir()
    shutil.copyfile(training.corpus_file(), folder / "nb13_text_corpus.json")
    assert training.run_corpus(run, folder)["sha256"] == frozen["sha256"]
    edited = json.loads((folder / "nb13_text_corpus.json").read_text(encoding="utf-8"))
    edited["en"] = edited["en"].replace("attention", "attentoin", 1)
    (folder / "nb13_text_corpus.json").write_text(json.dumps(edited), encoding="utf-8")
    with pytest.raises(ValueError, match="nb13_text_corpus.json: its text does not match"):
        training.run_corpus(run, folder)
    (folder / "nb13_text_corpus.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(FileNotFoundError, match="missing or damaged"):
        training.run_corpus(run, folder)


def test_training_cli_refuses_to_write_without_a_place_and_checks_its_arguments(capsys):
    for argv in ([], ["text"], ["nope", "--out", "/tmp/x"], ["--steps", "0", "--out", "/tmp/x"],
                 ["--out", "/tmp/x", "--overwrite-shipped"]):
        with pytest.raises(SystemExit) as exc:
            training.parse_args(argv)
        assert exc.value.code == 2
    args = training.parse_args(["text", "text", "--out", "/tmp/nb13-cli"])
    assert args.names == ["text"] and str(args.out_dir) == "/tmp/nb13-cli"
    assert training.parse_args(["--overwrite-shipped"]).out_dir == models_dir()


def test_training_cli_checks_its_arguments_before_torch_and_writes_nothing(tmp_path):
    """A typo is an argparse error at once: exit 2, the message on stderr, torch never imported, no file."""
    import subprocess
    import sys
    out = tmp_path / "runs"
    code = ("import sys\n"
            "from attention_core.labs.nb13_build_a_gpt import training\n"
            "try:\n"
            f"    training.main(['nope', '--out', {str(out)!r}])\n"
            "except SystemExit as e:\n"
            "    print(e.code, 'torch' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["2", "False"], done.stdout
    assert "unknown run name(s) ['nope']" in done.stderr
    assert not out.exists()


def test_the_manifest_records_the_command_line_as_typed(tmp_path, monkeypatch):
    seen = {}

    def fake_run(name, **kwargs):
        seen[name] = kwargs
        return {"manifest": {"train_seconds": 0.0, "metrics": {}, "command": kwargs["command"]}}
    monkeypatch.setattr(training, "run", fake_run)
    monkeypatch.setattr(training, "save_model", lambda result, out: (out / "x.npz", out / "x.json"))
    frozen = []                               # never the shipped corpus: --overwrite-shipped would write it here
    monkeypatch.setattr(training, "save_run_corpus", lambda data, out: frozen.append(out))
    out = tmp_path / "my runs"
    assert training.main(["induction", "--steps", "3", "--out", str(out)]) == 0
    assert seen["induction"]["steps"] == 3
    assert seen["induction"]["command"] == (f"python -m attention_core.labs.nb13_build_a_gpt.training induction "
                                            f"--steps 3 --out '{out}'")
    assert training.main(["--overwrite-shipped"]) == 0
    assert seen["text"]["command"] == "python -m attention_core.labs.nb13_build_a_gpt.training --overwrite-shipped"
    assert frozen == [models_dir()]             # the text run freezes its corpus beside its weights


@pytest.mark.slow          # loads transformers, runs GPT-2's reference forward (make test runs it)
def test_the_recorded_gpt2_oracle_numbers_hold():
    pytest.importorskip("transformers")
    from attention_core.labs.nb13_build_a_gpt import gpt2_tour
    got = gpt2_tour.oracle_differences(pieces.gpt_forward)
    assert got["config"] == gpt2_tour.RECORDED["config"]
    for path in ("yours", "library"):
        assert max(got[path]) < 1e-12, got
        for g, r in zip(got[path], gpt2_tour.RECORDED[path]):
            assert g < 10 * r + 1e-15


def test_all_head_scores_find_a_planted_previous_token_head():
    from attention_core.labs.nb13_build_a_gpt import gpt2_tour
    m = training.load_run("induction")
    p = pieces.torch_params(m.params, dtype="float32")
    s = gpt2_tour.all_head_scores(pieces.gpt_forward, p, half=12, n=8)
    assert s["previous"].shape == (2, 4) and s["induction"].shape == (2, 4)
    layer, head, score = gpt2_tour.top_heads(s["induction"], 1)[0]
    assert layer == 1 and score > 0.5
