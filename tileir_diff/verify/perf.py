"""Stage 6 on a GPU: device time of the port (its torch wrapper) and of ref.py's torch reference on
each variant's analysis.json ``bench_shape``, measured with CUDA events in the same process.

Needs torch with CUDA and the shipped library (build/rust/lib or $TILEIR_KERNELS_LIB). Written
for the H200 machine; this module is never imported where no CUDA device is present.
"""
from __future__ import annotations

import functools
import importlib.util
from typing import Any, Callable, Dict, List

WARMUP = 3
REPEATS = 20


def _ref_module(spec):
    module_spec = importlib.util.spec_from_file_location(f"_verify_ref_{spec.op}", spec.ref_path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def _call_functions(spec, function, ref):
    """(inputs, expected) of one port call: ref.make_inputs / ref.reference, or for a function of
    several kernels those of reference/<op>/<call_module>.py (the registry's `call_module`)."""
    if function.call_module is None:
        return ref.make_inputs, ref.reference
    path = spec.ref_path.with_name(f"{function.call_module}.py")
    module_spec = importlib.util.spec_from_file_location(f"_verify_call_{spec.op}", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module.call_inputs, module.call_reference


def _device_ms(fn: Callable[[], Any]) -> float:
    import torch
    for _ in range(WARMUP):
        fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(REPEATS):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / REPEATS


def measure(spec, variants, log: Callable[[str], None]) -> List[Dict[str, Any]]:
    from tileir_diff import ports
    ref = _ref_module(spec)
    rows = []
    for v in variants:
        function = ports.function_for(spec.op, v.kernel)
        make_inputs, reference = _call_functions(spec, function, ref)
        inputs = make_inputs(v.raw, v.bench_shape, seed=1, device="cuda")
        wrapper = getattr(ports, function.wrapper)
        kwargs = ports.wrapper_kwargs(function, v.raw, inputs)
        with ports.force_variant(spec.op, v.name):  # time this variant, not the one selection picks
            port_ms = _device_ms(functools.partial(wrapper, **kwargs))
        ref_ms = _device_ms(functools.partial(reference, v.raw, inputs))
        row = {"variant": v.name, "shape": v.bench_shape, "port_ms": round(port_ms, 4),
               "reference_ms": round(ref_ms, 4), "ratio": round(port_ms / ref_ms, 3) if ref_ms else None}
        log(str(row))
        rows.append(row)
    return rows
