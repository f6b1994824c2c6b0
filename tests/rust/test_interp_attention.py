"""The attention ports' IR in the NumPy interpreter at multi-tile shapes, against a float64 model
of ref.py. The shared fixtures (test_interp_ports.py) hold one small shape per variant (a single
key tile); here every key-loop phase runs: the unmasked tiles, the ragged tail, the causal
diagonal and, for attention_sink, the window's lower edge (S > BM + WINDOW would be slow; S =
333 already starts the window past key 0 for the second and third query tiles). q, k and v are
also read as the transpose(1, 2) of a (B, S, H, D) buffer, as ref.make_inputs' noncontiguous case."""
from __future__ import annotations

import numpy as np
import pytest

from tileir_diff import load
from tileir_diff.interp import HostArray, run_variant
from tileir_diff.suite.catalog import load_op, repo_root

from .conftest import emitted_ir

pytestmark = pytest.mark.cargo

OPS = ("flash_attention", "attention_sink")
CATALOG = {op: load_op(repo_root() / "reference" / op) for op in OPS}
# (B, Hkv, Sq, Sk, bshd) per op: Hq = Hkv * QUERY_GROUP
SHAPES = {"flash_attention": (1, 1, 200, 200, True), "attention_sink": (1, 1, 333, 333, False)}


@pytest.fixture(scope="module")
def rust_ir(request):
    """The attention ops' IR (emit-ir --op; build_ports.sh's when it is current: conftest.emitted_ir)."""
    return emitted_ir(request, OPS)


def _round(x, dtype):
    """float32 values rounded to the element type (nearest even), as the GPU stores them."""
    if dtype == "float16":
        return x.astype(np.float16).astype(np.float32)
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


def _heads(rng, b, h, s, d, dtype, bshd):
    if bshd:
        values = _round(rng.standard_normal((b, s, h, d)).astype(np.float32), dtype).transpose(0, 2, 1, 3)
        return HostArray(np.ascontiguousarray(values), dtype, (s * h * d, d, h * d, 1)), values
    values = _round(rng.standard_normal((b, h, s, d)).astype(np.float32), dtype)
    return HostArray(values, dtype, (h * s * d, s * d, d, 1)), values


def _model(q, k, v, scale, group, causal, window=0, sinks=None):
    """softmax(q k^T * scale [mask] [, sink column]) v in float64, as ref.py computes it."""
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    scores = q @ k.transpose(0, 1, 3, 2) * scale
    i, j = np.arange(scores.shape[2])[:, None], np.arange(scores.shape[3])[None, :]
    visible = np.ones(scores.shape[2:], bool)
    if causal:
        visible &= j <= i
    if window:
        visible &= j > i - window
    scores = np.where(visible, scores, -np.inf)
    if sinks is not None:
        column = np.broadcast_to(sinks.astype(np.float64)[None, :, None, None], scores.shape[:-1] + (1,))
        scores = np.concatenate([scores, column], axis=-1)
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return (p[..., :-1] if sinks is not None else p) @ v


def _run(op, variant, module, window=None, causal=None, seed=0):
    """(interpreter output, float64 model) for one variant on SHAPES[op]; `window`/`causal`
    override the semantics the model is computed with (the variant's own by default)."""
    c = variant.constants
    b, hkv, sq, sk, bshd = SHAPES[op]
    hq, d = hkv * c["QUERY_GROUP"], c["D"]
    dtype = next(p.dtype for p in variant.params if p.name == "q")
    rng = np.random.default_rng(seed)
    (qa, q), (ka, k), (va, v) = (_heads(rng, b, h, s, d, dtype, bshd) for h, s in ((hq, sq), (hkv, sk), (hkv, sk)))
    o = HostArray(np.full((b, hq, sq, d), np.nan, np.float32), dtype, (hq * sq * d, sq * d, d, 1))
    scale = float(1.0 / np.sqrt(d))
    arrays = {"q": qa, "k": ka, "v": va, "o": o, "sm_scale": scale}
    if op == "attention_sink":
        sinks = (rng.standard_normal(hq) * 2.0).astype(np.float32)
        arrays["sinks"] = HostArray(sinks, "float32", (1,))
        want = _model(q, k, v, scale, c["QUERY_GROUP"], True, c["WINDOW"] if window is None else window, sinks)
    else:
        want = _model(q, k, v, scale, c["QUERY_GROUP"], bool(c["CAUSAL"]) if causal is None else causal)
    return run_variant(variant, module, arrays).arrays["o"].astype(np.float64), want


def _cases():
    for op in OPS:
        for v in CATALOG[op].variants:
            yield pytest.param(op, v, id=f"{op}-{v.name}")


@pytest.mark.parametrize("op, variant", list(_cases()))
def test_attention_port_matches_the_model_on_every_key_phase(op, variant, rust_ir):
    got, want = _run(op, variant, load(str(rust_ir / op / f"{variant.name}.tileirbc")))
    tol = variant.tolerances[next(p.dtype for p in variant.params if p.name == "q")]
    assert not np.isnan(got).any(), f"{variant.name}: unwritten or NaN outputs"
    np.testing.assert_allclose(got, want, rtol=tol["rtol"], atol=tol["atol"], err_msg=variant.name)


def test_the_model_check_sees_a_wrong_mask(rust_ir):
    """The check fails a kernel that masks otherwise: the full-causal attention_sink on the
    window-128 semantics, the non-causal flash_attention on causal semantics."""
    full = next(v for v in CATALOG["attention_sink"].variants if v.name == "bf16_d64_gqa8_full")
    got, want = _run("attention_sink", full, load(str(rust_ir / "attention_sink" / f"{full.name}.tileirbc")), window=128)
    assert np.abs(got - want).max() > 0.1
    plain = next(v for v in CATALOG["flash_attention"].variants if v.name == "f16_d64_noncausal")
    got, want = _run("flash_attention", plain, load(str(rust_ir / "flash_attention" / f"{plain.name}.tileirbc")),
                     causal=True)
    assert np.abs(got - want).max() > 0.1
