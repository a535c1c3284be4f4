"""The checks of notebook 12's exercises: `check_induction_score(fn)` judges a learner's induction score, and
`check_mean_ablation`, `check_logit_attribution` and `check_patching` the three tools of tools.py the learner writes.

Built from teaching.checks like every lab's checkers: the learner's function is called with a time
limit on copies of the inputs, and the verdict is put in words in the language asked for.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from attention_core.teaching import i18n
from attention_core.teaching.checks import CheckResult, Fail, as_array, call_learner, from_tensor, msg, run_check

from . import experiments
from .check_strings import STRINGS

i18n.register(STRINGS)         # this checker's words for its cases

CHECK_NAME = "check_induction_score"
ATOL = 1e-6


def _finite_number(x) -> bool:
    """A real number that float64 holds: 10**400 is not (float() overflows), a Fraction is."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        return False
    try:
        return math.isfinite(float(x))
    except (OverflowError, ValueError, TypeError):
        return False


def _cases(model):
    """(label, weights (T, T), half) from the trained heads on two sequences, plus a random matrix."""
    for seed, half in ((7, 11), (8, 8)):
        seq = experiments.eval_sequences(1, half=half, seed=seed)[0]
        _, w = model.forward(seq)                                          # (L, H, T, T)
        for layer in range(model.n_layers):
            for head in range(model.n_heads):
                yield msg("nb12.case.head", layer=layer, head=head, half=half), w[layer, head].astype(float), half
    rng = np.random.default_rng(0)
    w = np.tril(rng.random((10, 10)))
    yield msg("nb12.case.random", half=5), w / w.sum(axis=1, keepdims=True), 5


def check_induction_score(fn, model=None, lang: str | None = None, *, timeout=None) -> CheckResult:
    """Call fn(weights (T, T), half) -> float on learned heads and a random matrix, compare it with
    experiments.induction_score and name the usual mistakes (the same-token offset, every row)."""
    if model is None:
        from .model import load_trained
        model = load_trained("induction")

    def body():
        from .model import TrainedModel
        if not isinstance(model, TrainedModel):        # the model first: its heads are what is scored
            raise Fail("nb12.check_model_type", got=type(model).__name__)
        if model.config.get("kind") != "induction":
            raise Fail("nb12.check_model_kind", name=model.name)
        n, worst = 0, 0.0
        for case, w, half in _cases(model):
            want = float(experiments.induction_score(w, half))
            try:
                got = call_learner(fn, case, w, half)
            except Fail as fail:
                if fail.key != "checks.raised":
                    raise
                # this notebook's own sentence for the learner's exception
                raise Fail("nb12.check_error", err=fail.fields["exc"], case=case) from None
            if getattr(got, "ndim", None) == 0:                              # a 0-d torch tensor too
                got = from_tensor(got)
            if isinstance(got, np.ndarray) and got.size == 1:
                got = got.item()
            if not _finite_number(got):
                raise Fail("nb12.check_not_number", got=repr(got)[:60], case=case)
            got = float(got)
            if abs(got - want) > ATOL:
                q = np.arange(half, 2 * half)
                same = float(w[q, q - half].mean())                            # one step too early
                diagonal = float(np.diagonal(w, -(half - 1)).mean())          # starts at query half - 1
                if abs(got - same) <= ATOL:
                    raise Fail("nb12.check_same_token", case=case, got=f"{got:.4f}", want=f"{want:.4f}")
                if abs(got - diagonal) <= ATOL:
                    raise Fail("nb12.check_all_rows", case=case, got=f"{got:.4f}", want=f"{want:.4f}")
                raise Fail("nb12.check_wrong", case=case, got=f"{got:.4f}", want=f"{want:.4f}")
            n += 1
            worst = max(worst, abs(got - want))
        return msg("nb12.check_ok", n=n, diff=f"{worst:.1e}")
    return run_check(CHECK_NAME, body, lang, timeout, fn)


# --- the three tools the learner writes (tools.py holds the library's) -------------------------------------
TOOL_TOL = 1e-4          # float32 logits: a mean taken in another order moves the last digits


def _tool_call(fn, case, *args):
    """call_learner with this notebook's sentence for the learner's exception."""
    try:
        return call_learner(fn, case, *args)
    except Fail as fail:
        if fail.key != "checks.raised":
            raise
        raise Fail("nb12.tool.error", err=fail.fields["exc"], case=case) from None


def _tool_array(out, case, want, what, hint=""):
    """The learner's result as float64, its shape and finiteness checked against the library's `want`."""
    arr = np.asarray(as_array(out, case, what), dtype=np.float64)
    if arr.shape != np.shape(want):
        raise Fail("nb12.tool.shape", what=msg(what), got=arr.shape, want=tuple(np.shape(want)), hint=hint, case=case)
    if not np.isfinite(arr).all():
        raise Fail("nb12.tool.not_finite", what=msg(what), case=case)
    return arr


def _judge(got, want, variants, what, case, tol=TOOL_TOL, **fields) -> float:
    """Largest difference when got matches want; else the first known mistake it matches, or the difference."""
    want = np.asarray(want, dtype=np.float64)
    diff = float(np.abs(got - want).max()) if got.size else 0.0
    scale = max(1.0, float(np.abs(want).max())) if want.size else 1.0
    if diff <= tol * scale:
        return diff
    for key, wrong in variants:
        if wrong is None or np.shape(wrong) != got.shape:
            continue
        wrong = np.asarray(wrong, dtype=np.float64)
        if np.abs(got - wrong).max() <= tol * scale and np.abs(wrong - want).max() > tol * scale:
            raise Fail(key, case=case, **fields)
    raise Fail("nb12.tool.values", what=msg(what), diff=f"{diff:.2e}", tol=f"{tol * scale:.0e}", case=case)


def _induction(model):
    if model is None:
        from .model import load_trained
        model = load_trained("induction")
    from .model import TrainedModel
    if not isinstance(model, TrainedModel):
        raise Fail("nb12.check_model_type", got=type(model).__name__)
    if model.config.get("kind") != "induction":
        raise Fail("nb12.check_model_kind", name=model.name)
    return model


def _record(tools, name, fn, result):
    if tools is not None:
        if result.passed and callable(fn):
            tools.use(name, fn)
        else:
            tools.drop(name)
    return result


def _ablation_variants(hm, ids, reference, layer, head):
    """Known wrong mean ablations, through the library's hooks."""
    from attention_core.core.interventions import head_hook
    name = f"blocks.{layer}.attn.hook_z"
    _, ref = hm.run_with_cache(reference, [name])
    _, own = hm.run_with_cache(ids, [name])
    z_ref, z_own = np.asarray(ref[name]), np.asarray(own[name])                 # (N, H, T, Dh)
    by_pos = z_ref.mean(axis=0)                                                 # (H, T, Dh)

    def every_head(z, _):
        return np.broadcast_to(by_pos, z.shape).copy()
    out = [("nb12.ablate.one_mean", hm.run_with_hooks(ids, {name: head_hook(head, z_ref[:, head].reshape(
               -1, z_ref.shape[-1]).mean(0))})),
           ("nb12.ablate.over_heads", hm.run_with_hooks(ids, {name: head_hook(head, by_pos.mean(axis=0))})),
           ("nb12.ablate.every_head", hm.run_with_hooks(ids, {name: every_head})),
           ("nb12.ablate.zero", hm.run_with_hooks(ids, {name: head_hook(head)})),
           ("nb12.ablate.own_mean", hm.run_with_hooks(ids, {name: head_hook(head, z_own[:, head].mean(axis=0))}))]
    if len(reference) == len(ids):
        per_seq = z_ref[:, head].mean(axis=1, keepdims=True)                     # (N, 1, Dh)
        out.append(("nb12.ablate.per_sequence", hm.run_with_hooks(ids, {name: head_hook(head, per_seq)})))
    return out


def check_mean_ablation(fn, model=None, lang: str | None = None, *, timeout=None, tools=None) -> CheckResult:
    """fn(model, ids (N, T), reference (N_ref, T), layer, head) -> logits (N, T, V): model a HookedDecoder,
    head (layer, head)'s hook_z replaced at each position by its mean there over `reference`
    (tools.mean_ablate). Judged on notebook 12's induction model; tools: a tools.Tools that records the verdict."""
    from . import tools as tools_mod

    def body():
        m = _induction(model)
        hm = m.hooked
        cases = [((1, 1), experiments.eval_sequences(12, seed=31), experiments.eval_sequences(12, seed=32)),
                 ((1, 3), experiments.eval_sequences(12, seed=33), experiments.eval_sequences(12, seed=34)),
                 ((0, 0), experiments.eval_sequences(8, seed=35), experiments.eval_sequences(8, seed=36)),
                 ((1, 2), experiments.eval_sequences(6, seed=37), experiments.eval_sequences(20, seed=38))]
        worst = 0.0
        for (layer, head), ids, reference in cases:
            case = msg("nb12.case.ablate", layer=layer, head=head, n=len(ids), n_ref=len(reference))
            want = tools_mod.mean_ablate(hm, ids, reference, layer, head)
            got = _tool_array(_tool_call(fn, case, hm, ids, reference, layer, head), case, want, "nb12.what.logits")
            worst = max(worst, _judge(got, want, _ablation_variants(hm, ids, reference, layer, head),
                                      "nb12.what.logits", case, layer=layer, head=head))
        return msg("nb12.ablate.ok", n=len(cases), diff=f"{worst:.1e}")
    return _record(tools, "mean_ablate", fn, run_check("check_mean_ablation", body, lang, timeout, fn))


def _dla_variants(hm, ids, target):
    """Known wrong attributions: no LN scale, no gain, no centring, the current token's column, heads summed."""
    from attention_core.core import hooked as hk
    n_layers = hm.n_layers
    last = f"blocks.{n_layers - 1}.hook_resid_post"
    names = [f"blocks.{i}.attn.hook_result" for i in range(n_layers)]
    _, cache = hm.run_with_cache(ids, names + [last])
    final = np.asarray(cache[last], np.float64)                                     # (T, D)
    scale = np.sqrt(final.var(-1, keepdims=True) + hk.LN_EPS)                       # (T, 1)
    w_out = np.asarray(hm.weights["w_out"], np.float64)
    gain = np.asarray(hm.weights["lnf_g"], np.float64)
    results = np.stack([np.asarray(cache[n], np.float64) for n in names])           # (L, H, T, D)
    centred = results - results.mean(-1, keepdims=True)

    def dla(res, tokens, sc=scale, g=gain):
        return (res / sc * (w_out[:, tokens] * g[:, None]).T).sum(-1)               # (L, H, T)
    right = dla(centred, target)
    return [("nb12.dla.no_scale", dla(centred, target, sc=1.0)),
            ("nb12.dla.no_scale", dla(results, target, sc=1.0)),
            ("nb12.dla.no_gain", dla(centred, target, g=np.ones_like(gain))),
            ("nb12.dla.no_centre", dla(results, target)),
            ("nb12.dla.wrong_token", dla(centred, ids)),
            ("nb12.dla.summed", np.broadcast_to(right.sum(1, keepdims=True), right.shape))]


def check_logit_attribution(fn, model=None, lang: str | None = None, *, timeout=None, tools=None) -> CheckResult:
    """fn(model, ids (T,), target (T,)) -> (L, H, T): what each head's hook_result adds to the logit of target[t]
    at position t, through the final layer norm's scale and gain and the unembedding
    (core.interventions.head_logit_attribution). Judged on notebook 12's induction model and its coreference encoder."""
    from . import tools as tools_mod

    def body():
        from .model import load_trained
        m = _induction(model)
        coref = load_trained("coreference")
        seqs = experiments.eval_sequences(3, seed=41)
        cases = [(m, s, np.roll(s, -1)) for s in seqs]                              # target[t] = token t + 1
        ids = np.asarray(coref.encode("the trophy didn't fit in the suitcase because it was too big".split()))
        cases.append((coref, ids, np.roll(ids, -2)))
        worst = 0.0
        for mod, ids, target in cases:
            hm = mod.hooked
            case = msg("nb12.case.dla", name=mod.name, t=len(ids))
            want = tools_mod.head_attribution(hm, ids, target)
            got = as_array(_tool_call(fn, case, hm, ids, target), case)
            if got.shape in ((hm.n_layers, len(ids)), (len(ids),)):                 # the heads summed away
                raise Fail("nb12.dla.summed", case=case)
            got = _tool_array(got, case, want, "nb12.what.attribution")
            worst = max(worst, _judge(got, want, _dla_variants(hm, ids, target), "nb12.what.attribution", case,
                                      last=hm.n_layers - 1))
        return msg("nb12.dla.ok", n=len(cases), diff=f"{worst:.1e}")
    return _record(tools, "head_attribution", fn, run_check("check_logit_attribution", body, lang, timeout, fn))


def _patch_variants(hm, clean_ids, bad_ids, layer, head, metric):
    """Known wrong loops: every position at once, every head at position t, the wrong run, patches piled up, the
    corrupted run's own cache."""
    from attention_core.core.interventions import patch
    name = f"blocks.{layer}.attn.hook_z"
    t = clean_ids.shape[-1]
    _, clean = hm.run_with_cache(clean_ids, [name])
    _, bad = hm.run_with_cache(bad_ids, [name])
    whole = float(metric(patch(hm, bad_ids, clean, name, head)))
    return [("nb12.patch.all_at_once", np.full(t, whole)),
            ("nb12.patch.every_head", np.array([float(metric(patch(hm, bad_ids, clean, name, positions=[p])))
                                                for p in range(t)])),
            ("nb12.patch.wrong_run", np.array([float(metric(patch(hm, clean_ids, bad, name, head, positions=[p])))
                                               for p in range(t)])),
            ("nb12.patch.wrong_run", np.array([float(metric(patch(hm, clean_ids, clean, name, head, positions=[p])))
                                               for p in range(t)])),
            ("nb12.patch.not_restored", np.array([float(metric(patch(hm, bad_ids, clean, name, head,
                                                                     positions=list(range(p + 1)))))
                                                  for p in range(t)])),
            ("nb12.patch.cache_of_corrupted", np.full(t, float(metric(hm(bad_ids)))))]


def patching_metric(clean_ids, query: int):
    """metric(logits) -> mean log P, at the query, of the letter the clean run predicts there (clean_ids[:, query
    - HALF + 1], the letter after the earlier occurrence): the measure of experiments.patching_table."""
    from attention_core.core import transformer as tr
    right = np.asarray(clean_ids)[:, query - experiments.HALF + 1]

    def metric(logits):
        logp = tr.log_softmax(np.asarray(logits, dtype=np.float64)[:, query])      # (N, V)
        return float(logp[np.arange(len(right)), right].mean())
    return metric


def check_patching(fn, model=None, lang: str | None = None, *, timeout=None, tools=None) -> CheckResult:
    """fn(model, clean_ids (N, T), corrupted_ids (N, T), layer, head, metric) -> (T,): metric(logits) of the
    corrupted run with head (layer, head)'s hook_z copied from the clean run at position t only, for each t
    (tools.patch_by_position). Judged on notebook 12's induction model, on experiments.patching_pairs."""
    from . import tools as tools_mod

    def body():
        m = _induction(model)
        hm = m.hooked
        clean_ids, bad_ids = experiments.patching_pairs(n=8, seed=51)
        metric = patching_metric(clean_ids, experiments.HALF + experiments.CORRUPT_AT)
        cases = ((0, 0), (1, 2))                      # the head that moves the letter, one that copies it
        worst = 0.0
        for layer, head in cases:
            case = msg("nb12.case.patch", layer=layer, head=head, n=len(clean_ids))
            want = tools_mod.patch_by_position(hm, clean_ids, bad_ids, layer, head, metric)
            got = _tool_array(_tool_call(fn, case, hm, clean_ids, bad_ids, layer, head, metric), case, want,
                              "nb12.what.metric")
            worst = max(worst, _judge(got, want, _patch_variants(hm, clean_ids, bad_ids, layer, head, metric),
                                      "nb12.what.metric", case, layer=layer, head=head))
        return msg("nb12.patch.ok", n=len(cases), diff=f"{worst:.1e}")
    return _record(tools, "patch_by_position", fn, run_check("check_patching", body, lang, timeout, fn))
