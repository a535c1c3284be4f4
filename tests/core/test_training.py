"""core.training (the schedule, the model files, the CLI checks) and backends.torch_training (the one loop, the
torch session), as their callers and hostile callers use them. Tiny models only: seconds, not minutes."""
from __future__ import annotations

import argparse
import json
import math

import numpy as np
import pytest

from attention_core.core.params import DecoderConfig, init_decoder
from attention_core.core.training import (
    ModelFileError,
    decoder_config,
    int_arg,
    lr_factor,
    manifest_config,
    models_dir,
    output_dir,
    read_manifest,
    read_weights,
    save_model,
    start_command,
)

CONFIG = DecoderConfig(vocab_size=7, d_model=8, n_heads=2, n_layers=1, d_ff=0, max_len=6, causal=False)


def _result(name="tiny"):
    return {"weights": init_decoder(CONFIG, seed=0),
            "manifest": {"name": name, "config": manifest_config(CONFIG, {"kind": "toy", "lr": 1e-3}),
                         "vocab": list("abcdefg")}}


# --- the schedule ---------------------------------------------------------------------------------------
def test_lr_factor_warms_up_then_follows_the_cosine_down_to_min_lr():
    f = [lr_factor(s, 100, 10, 0.1) for s in range(101)]
    assert f[0] == pytest.approx(0.1 * (0.1 + 0.9 * 0.5 * (1 + math.cos(0))))        # 1/10 of the way up
    assert max(f) == pytest.approx(f[9]) and all(a >= b for a, b in zip(f[9:], f[10:]))
    assert f[100] == pytest.approx(0.1)


# --- the files -------------------------------------------------------------------------------------------
def test_a_saved_model_reads_back_with_its_config(tmp_path):
    npz, js = save_model(_result(), tmp_path / "new")
    weights, manifest = read_weights(npz), json.loads(read_manifest(js))
    assert decoder_config(manifest) == CONFIG                                      # causal=False travels too
    assert manifest["config"]["kind"] == "toy" and set(weights) == set(init_decoder(CONFIG))
    assert all(w.dtype == np.float32 and not w.flags.writeable for w in weights.values())


def test_every_shipped_manifest_reads_as_a_decoder_config():
    names = [p.stem for p in models_dir().glob("*.npz")]
    assert len(names) >= 6
    for name in names:
        manifest = json.loads(read_manifest(models_dir() / f"{name}.json"))
        config = decoder_config(manifest)
        assert config.vocab_size == len(manifest["vocab"])
        assert read_weights(models_dir() / f"{name}.npz")["tok_emb"].shape == (config.vocab_size, config.d_model)


@pytest.mark.parametrize("result, error", [
    ("weights", TypeError), ({"weights": {}}, ValueError), ({"weights": {}, "manifest": {"name": ""}}, ValueError),
    ({"manifest": {"name": "x"}}, TypeError),
])
def test_save_model_refuses_what_is_not_a_run(tmp_path, result, error):
    with pytest.raises(error):
        save_model(result, tmp_path)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("edit, words", [
    (lambda m: m["config"].pop("d_model"), "missing"),
    (lambda m: m["config"].update(n_heads=3), "divisible"),
    (lambda m: m["config"].update(causal="yes"), "causal"),
    (lambda m: m.update(config=[1, 2]), "no 'config'"),
])
def test_a_manifest_whose_config_is_not_a_decoders_is_named(tmp_path, edit, words):
    _, js = save_model(_result(), tmp_path)
    manifest = json.loads(js.read_text(encoding="utf-8"))
    edit(manifest)
    js.write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ModelFileError, match=words) as info:
        read_manifest(js)
    assert str(js) in str(info.value)


# --- the command line ------------------------------------------------------------------------------------
def test_int_arg_and_output_dir_are_usage_errors(tmp_path):
    assert int_arg("12") == 12 and int_arg("0", 0) == 0
    for text, minimum in (("0", 1), ("-1", 0), ("2.5", 1), ("ten", 1)):
        with pytest.raises(argparse.ArgumentTypeError, match="expected an integer"):
            int_arg(text, minimum)
    ap = argparse.ArgumentParser()
    (tmp_path / "file").write_text("x")
    for args in (argparse.Namespace(out=None, overwrite_shipped=False),
                 argparse.Namespace(out=str(tmp_path / "file"), overwrite_shipped=False)):
        with pytest.raises(SystemExit):
            output_dir(ap, args)
    assert output_dir(ap, argparse.Namespace(out=str(tmp_path / "a" / "b"), overwrite_shipped=False)) == \
        tmp_path / "a" / "b"
    assert output_dir(ap, argparse.Namespace(out=None, overwrite_shipped=True), shipped=tmp_path) == tmp_path



def test_a_cli_checks_its_arguments_before_torch_and_keeps_its_command_line(monkeypatch):
    calls = []
    monkeypatch.setattr("attention_core.core.training.require_torch", lambda: calls.append("torch"))

    def parse_args(argv):
        calls.append(list(argv))
        if "--bad" in argv:
            raise SystemExit(2)                                          # argparse's usage error
        return argparse.Namespace(argv=argv)

    args, command = start_command(parse_args, "python -m lab.training", ("my run", "--out", "o"))
    assert calls == [["my run", "--out", "o"], "torch"] and args.argv == ["my run", "--out", "o"]
    assert command == "python -m lab.training 'my run' --out o"          # as typed, quoted for a shell
    calls.clear()
    with pytest.raises(SystemExit):
        start_command(parse_args, "prog", ["--bad"])
    assert calls == [["--bad"]]                                          # a typo never waits for torch
    monkeypatch.setattr("sys.argv", ["prog", "induction"])
    assert start_command(parse_args, "prog")[1] == "prog induction"      # no argv: the command line's own


# --- the loop (torch) -------------------------------------------------------------------------------------
@pytest.fixture
def tt():
    pytest.importorskip("torch")
    from attention_core.backends import torch_training as module
    return module


def _toy(torch, target=3.0):
    w = torch.zeros(2, requires_grad=True)

    def step(i, opt):
        loss = ((w - target) ** 2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss
    return w, step


@pytest.mark.slow          # a short torch training run (make test runs it)
def test_the_loop_trains_logs_and_reports_every_step(tt):
    import torch
    with tt.session(0, 1):
        w, step = _toy(torch)
        logs, steps, shown = [], [], []
        out = tt.train(step, [w], 40, lr=0.1, warmup=5, log_every=10, evaluate=lambda: float(((w - 3) ** 2).sum()),
                       on_log=logs.append, on_step=lambda i, v: steps.append(i), progress=shown.append)
    assert [r["step"] for r in logs] == [10, 20, 30, 40] and steps == list(range(1, 41)) and len(shown) == 40
    assert [row[0] for row in out["curve"]] == [10, 20, 30, 40] and logs[-1]["valid"] < logs[0]["valid"]
    assert sum(r["logged"] for r in shown) == 4 and out["last_step"] == 40


def test_stop_after_ends_the_loop_on_the_full_schedule(tt):
    import torch
    with tt.session(0, 1):
        w, step = _toy(torch)
        out = tt.train(step, [w], 100, lr=0.1, stop_after=7, log_every=5)
    assert out["last_step"] == 7 and [row[0] for row in out["curve"]] == [5]


@pytest.mark.parametrize("kwargs, error, words", [
    ({"steps": 0}, ValueError, "steps"), ({"steps": 2.5}, TypeError, "steps"),
    ({"lr": 0}, ValueError, "lr"), ({"lr": float("inf")}, ValueError, "lr"), ({"lr": "1e-3"}, TypeError, "lr"),
    ({"weight_decay": -0.1}, ValueError, "weight_decay"), ({"beta2": 1}, ValueError, "beta2"),
    ({"warmup": -1}, ValueError, "warmup"), ({"min_lr": -0.5}, ValueError, "min_lr"),
    ({"log_every": 0}, ValueError, "log_every"), ({"stop_after": 0}, ValueError, "stop_after"),
    ({"parameters": []}, TypeError, "parameters"), ({"parameters": [np.zeros(2)]}, TypeError, "parameters"),
])
def test_the_loops_knobs_are_named(tt, kwargs, error, words):
    import torch
    w, step = _toy(torch)
    args = {"parameters": [w], "steps": 10, "lr": 0.1, **kwargs}
    params, steps = args.pop("parameters"), args.pop("steps")
    with pytest.raises(error, match=words):
        tt.train(step, params, steps, **args)


def test_a_step_that_returns_no_loss_or_a_nan_is_named(tt):
    import torch
    w, _ = _toy(torch)
    with pytest.raises(TypeError, match="step_fn"):
        tt.train(lambda i, opt: 1.5, [w], 3, lr=0.1)
    with pytest.raises(FloatingPointError, match="step 1: the loss is nan"):
        tt.train(lambda i, opt: torch.tensor(float("nan")), [w], 3, lr=0.1)


def test_the_session_puts_threads_and_deterministic_mode_back(tt):
    import torch
    before = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    try:
        torch.set_num_threads(2)
        torch.use_deterministic_algorithms(False)
        with pytest.raises(RuntimeError, match="inside"):
            with tt.session(5, 1):
                assert torch.get_num_threads() == 1 and torch.are_deterministic_algorithms_enabled()
                raise RuntimeError("inside")
        assert torch.get_num_threads() == 2 and not torch.are_deterministic_algorithms_enabled()
        for seed, threads, error in ((-1, 1, ValueError), (1.5, 1, TypeError), (0, 0, ValueError)):
            with pytest.raises(error):
                with tt.session(seed, threads):
                    pass
    finally:
        torch.set_num_threads(before[0])
        torch.use_deterministic_algorithms(before[1])
