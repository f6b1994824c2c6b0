"""Small hand-written kernels (tileirdisasm text) for rule tests; ``kernel(body, ...)`` wraps a body."""
from __future__ import annotations

from tileir_diff.compare import compute_diff
from tileir_diff.text.parser import parse_text

VIEW = "partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>"
TVIEW = "tensor_view<?xf32, strides=[1]>"
PROLOGUE = f"""  %0 = make_token : token
  %tx = make_tensor_view %arg0, shape = [%arg2], strides = [1] : tile<i32> -> {TVIEW}
  %ty = make_tensor_view %arg1, shape = [%arg2], strides = [1] : tile<i32> -> {TVIEW}
  %bx, %by, %bz = get_tile_block_id : tile<i32>
  %px = make_partition_view %tx : {VIEW}
  %py = make_partition_view %ty : {VIEW}
"""


def kernel(body: str, hints: str = " optimization_hints=<default = {}>", version=(13, 3), prologue=PROLOGUE,
           args: str = "%arg0: tile<ptr<f32>>, %arg1: tile<ptr<f32>>, %arg2: tile<i32>"):
    return parse_text(f"entry @k({args}){hints} {{\n{prologue}{body}  return\n}}\n", version=version)


def load(name: str, view: str = "%px", token: str = "%0", index: str = "%bx") -> str:
    return (f"  %{name}, %{name}_t = load_view_tko weak {view}[{index}] token = {token} : {VIEW}, tile<i32>"
            f" -> tile<128xf32>, token\n")


def store(value: str, view: str = "%py", token: str = "%0", name: str = "st", index: str = "%bx") -> str:
    return f"  %{name} = store_view_tko weak {value}, {view}[{index}] token = {token} : tile<128xf32>, {VIEW}, tile<i32> -> token\n"


def verdict(a, b, **kw):
    r = compute_diff(a, b, with_summary=False, with_lines=False, **kw)
    return r
