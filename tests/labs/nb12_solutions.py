"""Notebook 12's three tools written as learners would, right and wrong (the tests' implementations).

Each right one is written from the model's hook points and weights alone (loops, einsum, hooks that copy or edit in
place), so the tests judge the checkers, not the library's tools; each wrong one is a mistake a learner makes.
"""
import numpy as np

LN_EPS = 1e-5


# --- mean ablation by position ------------------------------------------------------------------------
def ablate_copy(model, ids, reference, layer, head):
    name = f"blocks.{layer}.attn.hook_z"
    _, cache = model.run_with_cache(reference, [name])
    mean = cache[name][:, head].mean(axis=0)                  # (T, Dh): one mean per position

    def hook(z, hook_name):
        z = z.copy()
        z[:, head] = mean
        return z
    return model.run_with_hooks(ids, {name: hook})


def ablate_in_place(model, ids, reference, layer, head):
    name = f"blocks.{layer}.attn.hook_z"
    _, cache = model.run_with_cache(reference, [name])
    mean = cache[name].mean(0)                                # (H, T, Dh)

    def hook(z, hook_name):
        z[:, head, :, :] = mean[head]                        # edits the activation, returns nothing
    return model.run_with_hooks(ids, [(name, hook)])


def ablate_loop(model, ids, reference, layer, head):
    name = f"blocks.{layer}.attn.hook_z"
    _, cache = model.run_with_cache(reference, names=[name])
    z = np.asarray(cache[name], dtype=np.float64)
    mean = np.zeros(z.shape[2:])
    for t in range(z.shape[2]):
        for n in range(z.shape[0]):
            mean[t] += z[n, head, t] / z.shape[0]
    return model.run_with_hooks(ids, {name: lambda value, _: np.concatenate(
        [value[:, :head], np.broadcast_to(mean, value[:, head:head + 1].shape).astype(value.dtype),
         value[:, head + 1:]], axis=1)})


def ablate_einsum(model, ids, reference, layer, head):
    name = f"blocks.{layer}.attn.hook_z"
    z = model.run_with_cache(reference)[1][name]
    mean = np.einsum("ntd->td", z[:, head]) / len(reference)

    def hook(value, _):
        out = value.copy()
        out[..., head, :, :] = mean
        return out
    return model.run_with_hooks(ids, {name: hook})


def ablate_one_mean(model, ids, reference, layer, head):
    name = f"blocks.{layer}.attn.hook_z"
    z = model.run_with_cache(reference, [name])[1][name][:, head]
    mean = z.reshape(-1, z.shape[-1]).mean(0)                # (Dh,): one vector for every position

    def hook(value, _):
        value = value.copy()
        value[:, head] = mean
        return value
    return model.run_with_hooks(ids, {name: hook})


def ablate_per_sequence(model, ids, reference, layer, head):
    name = f"blocks.{layer}.attn.hook_z"
    z = model.run_with_cache(reference, [name])[1][name][:, head]
    mean = z.mean(axis=1, keepdims=True)                     # (N, 1, Dh): over positions, per sequence

    def hook(value, _):
        value = value.copy()
        value[:, head] = mean
        return value
    return model.run_with_hooks(ids, {name: hook})


def ablate_over_heads(model, ids, reference, layer, head):
    name = f"blocks.{layer}.attn.hook_z"
    z = model.run_with_cache(reference, [name])[1][name]
    mean = z.mean(axis=(0, 1))                               # (T, Dh): over sequences AND heads

    def hook(value, _):
        value = value.copy()
        value[:, head] = mean
        return value
    return model.run_with_hooks(ids, {name: hook})


def ablate_every_head(model, ids, reference, layer, head):
    name = f"blocks.{layer}.attn.hook_z"
    mean = model.run_with_cache(reference, [name])[1][name].mean(axis=0)    # (H, T, Dh)

    def hook(value, _):
        value = value.copy()
        value[:] = mean                                      # every head of the layer
        return value
    return model.run_with_hooks(ids, {name: hook})


def ablate_zero(model, ids, reference, layer, head):
    name = f"blocks.{layer}.attn.hook_z"

    def hook(value, _):
        value = value.copy()
        value[:, head] = 0
        return value
    return model.run_with_hooks(ids, {name: hook})


# --- direct logit attribution --------------------------------------------------------------------------
def _attribution(model, ids, target, *, scale=True, centre=True, gain=True, column="target", summed=False):
    last = f"blocks.{model.n_layers - 1}.hook_resid_post"
    names = [f"blocks.{i}.attn.hook_result" for i in range(model.n_layers)]
    _, cache = model.run_with_cache(ids, names + [last])
    resid = cache[last]                                                       # (T, D)
    sd = np.sqrt(resid.var(-1, keepdims=True) + LN_EPS) if scale else 1.0     # (T, 1)
    tokens = target if column == "target" else ids
    direction = model.weights["w_out"][:, tokens].T                           # (T, D)
    if gain:
        direction = direction * model.weights["lnf_g"]
    out = []
    for name in names:
        r = cache[name]                                                       # (H, T, D)
        if centre:
            r = r - r.mean(-1, keepdims=True)
        out.append((r / sd * direction).sum(-1))                              # (H, T)
    out = np.stack(out)                                                       # (L, H, T)
    return out.sum(1) if summed else out


def dla_loop(model, ids, target):
    return _attribution(model, ids, target)


def dla_einsum(model, ids, target):
    names = [f"blocks.{i}.attn.hook_result" for i in range(model.n_layers)]
    last = f"blocks.{model.n_layers - 1}.hook_resid_post"
    _, cache = model.run_with_cache(ids, names + [last])
    x = cache[last].astype(np.float64)
    sd = np.sqrt(((x - x.mean(-1, keepdims=True)) ** 2).mean(-1) + LN_EPS)    # (T,)
    res = np.stack([cache[n] for n in names]).astype(np.float64)             # (L, H, T, D)
    res = res - res.mean(-1, keepdims=True)
    u = model.weights["w_out"].astype(np.float64) * model.weights["lnf_g"][:, None]   # (D, V)
    return np.einsum("lhtd,dt->lht", res, u[:, target]) / sd


def dla_per_position(model, ids, target):
    names = [f"blocks.{i}.attn.hook_result" for i in range(model.n_layers)]
    last = f"blocks.{model.n_layers - 1}.hook_resid_post"
    _, cache = model.run_with_cache(ids, names + [last])
    out = np.zeros((model.n_layers, model.n_heads, len(ids)))
    for t in range(len(ids)):
        s = cache[last][t].std()
        col = model.weights["w_out"][:, target[t]] * model.weights["lnf_g"]
        for layer, name in enumerate(names):
            for h in range(model.n_heads):
                r = cache[name][h, t]
                out[layer, h, t] = (r - r.mean()) @ col / np.sqrt(s ** 2 + LN_EPS)
    return out


def dla_no_scale(model, ids, target):
    return _attribution(model, ids, target, scale=False)


def dla_wrong_token(model, ids, target):
    return _attribution(model, ids, target, column="ids")


def dla_summed(model, ids, target):
    return _attribution(model, ids, target, summed=True)


def dla_no_gain(model, ids, target):
    return _attribution(model, ids, target, gain=False)


# --- activation patching, one position at a time -------------------------------------------------------
def patch_copy(model, clean_ids, corrupted_ids, layer, head, metric):
    name = f"blocks.{layer}.attn.hook_z"
    _, clean_cache = model.run_with_cache(clean_ids, [name])
    out = []
    for t in range(clean_ids.shape[1]):
        def hook(z, _, t=t):
            z = z.copy()
            z[:, head, t] = clean_cache[name][:, head, t]
            return z
        out.append(metric(model.run_with_hooks(corrupted_ids, {name: hook})))
    return np.array(out)


def patch_in_place(model, clean_ids, corrupted_ids, layer, head, metric):
    name = f"blocks.{layer}.attn.hook_z"
    clean = model.run_with_cache(clean_ids, [name])[1][name]
    values = []
    for t in range(clean.shape[2]):
        def hook(z, _):
            z[:, head, t] = clean[:, head, t]   # noqa: B023 -- run at once; the activation is fresh in every run
        values.append(metric(model.run_with_hooks(corrupted_ids, [(name, hook)])))
    return values


def patch_with_library(model, clean_ids, corrupted_ids, layer, head, metric):
    from attention_core.core.interventions import patch
    name = f"blocks.{layer}.attn.hook_z"
    _, cache = model.run_with_cache(clean_ids)
    return [metric(patch(model, corrupted_ids, cache, name, head, positions=[t])) for t in range(clean_ids.shape[-1])]


def patch_all_at_once(model, clean_ids, corrupted_ids, layer, head, metric):
    name = f"blocks.{layer}.attn.hook_z"
    clean = model.run_with_cache(clean_ids, [name])[1][name]

    def hook(z, _):
        z = z.copy()
        z[:, head] = clean[:, head]                          # every position
        return z
    return np.array([metric(model.run_with_hooks(corrupted_ids, {name: hook})) for _ in range(clean_ids.shape[1])])


def patch_every_head(model, clean_ids, corrupted_ids, layer, head, metric):
    name = f"blocks.{layer}.attn.hook_z"
    clean = model.run_with_cache(clean_ids, [name])[1][name]
    out = []
    for t in range(clean_ids.shape[1]):
        def hook(z, _, t=t):
            z = z.copy()
            z[:, :, t] = clean[:, :, t]                      # every head of the layer at position t
            return z
        out.append(metric(model.run_with_hooks(corrupted_ids, {name: hook})))
    return np.array(out)


def patch_wrong_run(model, clean_ids, corrupted_ids, layer, head, metric):
    name = f"blocks.{layer}.attn.hook_z"
    bad = model.run_with_cache(corrupted_ids, [name])[1][name]
    out = []
    for t in range(clean_ids.shape[1]):
        def hook(z, _, t=t):
            z = z.copy()
            z[:, head, t] = bad[:, head, t]
            return z
        out.append(metric(model.run_with_hooks(clean_ids, {name: hook})))   # into the clean run
    return np.array(out)


def patch_not_restored(model, clean_ids, corrupted_ids, layer, head, metric):
    name = f"blocks.{layer}.attn.hook_z"
    clean = model.run_with_cache(clean_ids, [name])[1][name]
    kept = model.run_with_cache(corrupted_ids, [name])[1][name].copy()       # one array for every run
    out = []
    for t in range(clean_ids.shape[1]):
        kept[:, head, t] = clean[:, head, t]                 # never put back
        out.append(metric(model.run_with_hooks(corrupted_ids, {name: lambda z, _: kept})))
    return np.array(out)
