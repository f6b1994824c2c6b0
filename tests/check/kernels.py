"""Small Tile IR text kernels for the soundness tests: a base and the wrong variants of it.

Each builder returns text ``tileir_diff.load`` reads. The wrong variants compute something
else than their base for some input; none may be called identical or equivalent.
"""
from __future__ import annotations

V = "tensor_view<?xf32, strides=[1]>"
P = f"partition_view<tile=(64), {V}>"
T = "tile<64xf32>"


def _kernel(body: str, args: str = "") -> str:
    head = ("entry @k(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<ptr<f32>>, %arg3: tile<i32>, "
            f"%arg4: tile<i32>{args}) optimization_hints=<default = {{}}> {{\n")
    common = f"""  %0 = make_token : token
  %tv = make_tensor_view %arg0, shape = [%arg1], strides = [1] : tile<i32> -> {V}
  %tv_1 = make_tensor_view %arg2, shape = [%arg3], strides = [1] : tile<i32> -> {V}
  %bx, %by, %bz = get_tile_block_id : tile<i32>
  %px = make_partition_view %tv : {P}
  %po = make_partition_view %tv_1 : {P}
"""
    return head + common + body + "  return\n}\n"


def _load(name: str, view: str, token: str, index: str = "%bx") -> str:
    return (f"  %{name}, %{name}_tok = load_view_tko weak %{view}[{index}] token = {token} : "
            f"{P}, tile<i32> -> {T}, token\n")


def _store(name: str, value: str, view: str, token: str, index: str = "%bx") -> str:
    return f"  %{name} = store_view_tko weak %{value}, %{view}[{index}] token = {token} : {T}, {P}, tile<i32> -> token\n"


# --- class 1: regions are interchangeable -------------------------------------------------------

def branches(swapped: bool = False) -> str:
    then_op, else_op = ("subf", "addf") if swapped else ("addf", "subf")
    body = _load("x", "px", "%0") + f"""  %c0 = constant <i32: 0> : tile<i32>
  %1 = cmpi equal %arg4, %c0, signed : tile<i32> -> tile<i1>
  %2 = if %1 -> ({T}) {{
    %3 = {then_op} %x, %x  : {T}
    yield %3 : {T}
  }} else {{
    %3 = {else_op} %x, %x  : {T}
    yield %3 : {T}
  }}
""" + _store("s", "2", "po", "%0")
    return _kernel(body)


def guarded_store(in_else: bool = False) -> str:
    store = _store("s", "x", "po", "%0").replace("  %s", "    %s")
    then_body, else_body = ("", store) if in_else else (store, "")
    body = _load("x", "px", "%0") + f"""  %c0 = constant <i32: 0> : tile<i32>
  %1 = cmpi equal %arg4, %c0, signed : tile<i32> -> tile<i1>
  if %1 {{
{then_body}    yield
  }} else {{
{else_body}    yield
  }}
"""
    return _kernel(body)


# --- class 2: differences that explain each other -----------------------------------------------

def two_stores(swapped: bool = False) -> str:
    """t = load(x); store(x, t+1); store(x, t*2) -- and with the two stores swapped."""
    first, second = ("m", "a") if swapped else ("a", "m")
    body = _load("x", "px", "%0") + f"""  %one = constant <f32: 1.000000e+00> : {T}
  %two = constant <f32: 2.000000e+00> : {T}
  %a = addf %x, %one  : {T}
  %m = mulf %x, %two  : {T}
""" + _store("s1", first, "px", "%x_tok") + _store("s2", second, "px", "%s1")
    return _kernel(body)


def rsqrt_eps(swapped: bool = False) -> str:
    """out = rsqrt(x*x) + eps  vs  rsqrt(x*x + eps): two adjacent ops of a chain swapped."""
    if swapped:
        chain = f"""  %e = addf %ms, %eps  : {T}
  %r = rsqrt %e : {T}
"""
        result = "r"
    else:
        chain = f"""  %r0 = rsqrt %ms : {T}
  %e = addf %r0, %eps  : {T}
"""
        result = "e"
    body = _load("x", "px", "%0") + f"""  %eps = constant <f32: 9.999999e-06> : {T}
  %ms = mulf %x, %x  : {T}
""" + chain + _store("s", result, "po", "%0")
    return _kernel(body)


def exp2_sub(swapped: bool = False) -> str:
    """exp2(t - m) vs exp2(t) - m."""
    if swapped:
        chain = f"""  %u = exp2 %x : {T}
  %d = subf %u, %m  : {T}
"""
        result = "d"
    else:
        chain = f"""  %d = subf %x, %m  : {T}
  %u = exp2 %d : {T}
"""
        result = "u"
    body = _load("x", "px", "%0") + f"""  %m = constant <f32: 3.000000e+00> : {T}
""" + chain + _store("s", result, "po", "%0")
    return _kernel(body)


# --- class 3: aliasing assumed away ---------------------------------------------------------------

def load_after_store(hoisted: bool = False) -> str:
    """store(out, 1); x = load(x) ordered after that store (x and out may alias) -- and the load
    hoisted above the store (no longer ordered)."""
    body = f"""  %one = constant <f32: 1.000000e+00> : {T}
""" + _store("s", "one", "po", "%0") + _load("x", "px", "%0" if hoisted else "%s") + f"""  %y = addf %x, %x  : {T}
""" + _store("s2", "y", "po", "%s")
    return _kernel(body)


# --- class 4: an upstream root swallows independent bugs downstream ------------------------------

def upstream_and_index(bump: int = 1, swapped_index: bool = False) -> str:
    """A 2-d load at (bx + bump, by + 1): ``bump`` changed upstream of the first index (a root
    of its own), and on top of that the two indices swapped -- a second, independent root."""
    V2 = "tensor_view<?x?xf32, strides=[?,1]>"
    P2 = f"partition_view<tile=(8x8), {V2}>"
    T2 = "tile<8x8xf32>"
    idx = "%by1, %bx1" if swapped_index else "%bx1, %by1"
    return f"""entry @k(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<ptr<f32>>) optimization_hints=<default = {{}}> {{
  %0 = make_token : token
  %tv = make_tensor_view %arg0, shape = [%arg1, %arg2], strides = [%arg3, 1] : tile<i32> -> {V2}
  %tv_1 = make_tensor_view %arg4, shape = [%arg1, %arg2], strides = [%arg3, 1] : tile<i32> -> {V2}
  %bx, %by, %bz = get_tile_block_id : tile<i32>
  %c = constant <i32: {bump}> : tile<i32>
  %c1 = constant <i32: 1> : tile<i32>
  %bx1 = addi %bx, %c : tile<i32>
  %by1 = addi %by, %c1 : tile<i32>
  %px = make_partition_view %tv : {P2}
  %po = make_partition_view %tv_1 : {P2}
  %x, %x_tok = load_view_tko weak %px[{idx}] token = %0 : {P2}, tile<i32> -> {T2}, token
  %s = store_view_tko weak %x, %po[%bx, %by] token = %0 : {T2}, {P2}, tile<i32> -> token
  return
}}
"""


def reorder_arguments(text: str, order) -> str:
    """The same kernel with its entry arguments in another order: ``order[k]`` is the old index
    of the new argument k (uses renamed to match)."""
    head, rest = text.split(") optimization_hints", 1)
    name, params = head.split("(", 1)
    params = [p.strip() for p in params.split(",")]
    types = [p.split(":", 1)[1].strip() for p in params]
    new_params = ", ".join(f"%arg{k}: {types[old]}" for k, old in enumerate(order))
    body = rest
    for k, old in enumerate(order):
        body = body.replace(f"%arg{old}", f"%__new{k}__")
    import re
    body = re.sub(r"%__new(\d+)__", r"%arg\1", body)
    return f"{name}({new_params}) optimization_hints{body}"
