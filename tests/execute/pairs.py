"""Small hand-written Tile IR kernels (text form) for the second-opinion tests of ``--execute``.

Every kernel is ``@k(%x: ptr<f32>, n, stride, %out: ptr<f32>, n, stride[, %c: i32])`` in the
cuTile Python calling convention with one 1-D tile of 16 per block (``elementwise``), or a
variant in a cuTile Rust order (``rust_order``).
"""
from __future__ import annotations

N = 16
TV = "tensor_view<?xf32, strides=[?]>"
PV = f"partition_view<tile=({N}), {TV}>"
T = f"tile<{N}xf32>"


def kernel(body: str, *, scalar: bool = False, elem: str = "f32") -> str:
    """``body`` sees %x (the loaded tile of array 0), %pv / %pvo (the views of array 0 / 1), %bid,
    %tok (a fresh token), %tx (the load's token) and, with ``scalar``, %c (an i32 argument);
    it must store to memory itself."""
    extra = ", %c: tile<i32>" if scalar else ""
    return f"""
entry @k(%a0: tile<ptr<f32>>, %a1: tile<i32>, %a2: tile<i32>, %a3: tile<ptr<f32>>, %a4: tile<i32>, %a5: tile<i32>{extra}) {{
  %tok = make_token : token
  %n0 = assume bounded<0, ?>, %a1 : tile<i32>
  %s0 = assume bounded<0, ?>, %a2 : tile<i32>
  %tv = make_tensor_view %a0, shape = [%n0], strides = [%s0] : tile<i32> -> {TV}
  %pv = make_partition_view %tv : {PV}
  %tvo = make_tensor_view %a3, shape = [%a4], strides = [%a5] : tile<i32> -> {TV}
  %pvo = make_partition_view %tvo : {PV}
  %bid, %by, %bz = get_tile_block_id : tile<i32>
  %x, %tx = load_view_tko weak %pv[%bid] token = %tok : {PV}, tile<i32> -> {T}, token
{body}
  return
}}
"""


def store(value: str, view: str = "%pvo", token: str = "%tok", result: str = "%ts") -> str:
    return f"  {result} = store_view_tko weak {value}, {view}[%bid] token = {token} : {T}, {PV}, tile<i32> -> token"


def load(view: str, token: str, result: str = "%u", result_token: str = "%tu") -> str:
    return f"  {result}, {result_token} = load_view_tko weak {view}[%bid] token = {token} : {PV}, tile<i32> -> {T}, token"


def const(name: str, value: str) -> str:
    return f"  {name} = constant <f32: {value}> : {T}"


# --- the pairs ---------------------------------------------------------------------------------

def if_branches(swapped: bool) -> str:
    then, other = ("subf", "addf") if swapped else ("addf", "subf")
    body = "\n".join([
        const("%one", "1.0"),
        "  %two = constant <i32: 2> : tile<i32>",
        "  %p = cmpi greater_than %c, %two, signed : tile<i32> -> tile<i1>",
        f"  %y = if %p -> ({T}) {{",
        f"    %ya = {then} %x, %one : {T}",
        f"    yield %ya : {T}",
        "  } else {",
        f"    %yb = {other} %x, %one : {T}",
        f"    yield %yb : {T}",
        "  }",
        store("%y")])
    return kernel(body, scalar=True)


def rsqrt_eps(inside: bool) -> str:
    lines = [const("%eps", "1.000000e-05"), f"  %ms = mulf %x, %x : {T}"]
    if inside:
        lines += [f"  %s = addf %ms, %eps : {T}", f"  %y = rsqrt %s : {T}"]
    else:
        lines += [f"  %r = rsqrt %ms : {T}", f"  %y = addf %r, %eps : {T}"]
    return kernel("\n".join(lines + [store("%y")]))


def exp2_shift(inside: bool) -> str:
    lines = [const("%m", "3.000000e+00")]
    if inside:
        lines += [f"  %d = subf %x, %m : {T}", f"  %y = exp2 %d : {T}"]
    else:
        lines += [f"  %e = exp2 %x : {T}", f"  %y = subf %e, %m : {T}"]
    return kernel("\n".join(lines + [store("%y")]))


def two_stores(swapped: bool) -> str:
    """t = load(x); store(x, t + 1); store(x, t * 2), the stores chained by their tokens."""
    a, b = ("%t2", "%t1") if swapped else ("%t1", "%t2")
    lines = [const("%one", "1.0"), const("%two", "2.0"), f"  %t1 = addf %x, %one : {T}",
             f"  %t2 = mulf %x, %two : {T}",
             store(a, "%pv", "%tx", "%s1"), store(b, "%pv", "%s1", "%s2")]
    return kernel("\n".join(lines))


def load_after_store(hoisted: bool) -> str:
    """out = x + 1, then u = load(x) ordered after that store (token chain), out = u * 2. With
    ``hoisted`` the second load of x is moved above the store and takes a fresh token: the same
    result unless x and out share memory."""
    lines = [const("%one", "1.0"), const("%two", "2.0"), f"  %t1 = addf %x, %one : {T}"]
    if hoisted:
        lines += [load("%pv", "%tok"), store("%t1", "%pvo", "%tok", "%s1")]
    else:
        lines += [store("%t1", "%pvo", "%tok", "%s1"), load("%pv", "%s1")]
    lines += ["  %j = join_tokens %s1, %tu : token", f"  %y = mulf %u, %two : {T}", store("%y", "%pvo", "%j", "%s2")]
    return kernel("\n".join(lines))


def fma_or_mul_add(fused: bool) -> str:
    lines = [const("%c", "-1.0")]
    if fused:
        lines += [f"  %y = fma %x, %x, %c : {T}"]
    else:
        lines += [f"  %p = mulf %x, %x : {T}", f"  %y = addf %p, %c : {T}"]
    return kernel("\n".join(lines + [store("%y")]))


def commuted(variant: bool) -> str:
    """out = (x * x + x) with its operands commuted and values renamed in the variant; the store
    chained after the load (so alias trials run too)."""
    if variant:
        lines = [f"  %sq = mulf %x, %x : {T}", f"  %sum = addf %x, %sq : {T}", store("%sum", token="%tx")]
    else:
        lines = [f"  %p = mulf %x, %x : {T}", f"  %y = addf %p, %x : {T}", store("%y", token="%tx")]
    return kernel("\n".join(lines))


def signed_zero(variant: bool) -> str:
    """out = x + 0.0 vs out = x: the same except for x = -0.0 (and NaN payloads)."""
    if variant:
        return kernel(store("%x"))
    return kernel("\n".join([const("%z", "0.000000e+00"), f"  %y = addf %x, %z : {T}", store("%y")]))


def self_difference(variant: bool) -> str:
    """out = x - x vs out = 0.0: the same except for NaN and +-Inf."""
    if variant:
        return kernel("\n".join([const("%z", "0.000000e+00"), store("%z")]))
    return kernel("\n".join([f"  %y = subf %x, %x : {T}", store("%y")]))


def unordered_load_store(hoisted: bool) -> str:
    """``load_after_store`` without the token chain: neither kernel orders the load of x and the
    store to out, so neither is written for x and out to share memory."""
    lines = [const("%one", "1.0"), const("%two", "2.0"), f"  %t1 = addf %x, %one : {T}"]
    if hoisted:
        lines += [load("%pv", "%tok"), store("%t1", "%pvo", "%tok", "%s1")]
    else:
        lines += [store("%t1", "%pvo", "%tok", "%s1"), load("%pv", "%tok")]
    lines += [f"  %y = mulf %u, %two : {T}", store("%y", "%pvo", "%s1", "%s2")]
    return kernel("\n".join(lines))


def approx_exp() -> str:
    return kernel("\n".join([f"  %y = exp %x rounding<approx> : {T}", store("%y")]))


TV1 = "tensor_view<?xf32, strides=[1]>"
PV1 = f"partition_view<tile=({N}), {TV1}>"


def rust_order(divisor: int = 16) -> str:
    """out = 2 * x with a cuTile Rust signature: two bare pointers, then one size %n that both
    views use, contiguous (static stride 1), and ``assume div_by<divisor>`` on %n."""
    return f"""
entry @k(%x0: tile<ptr<f32>>, %o0: tile<ptr<f32>>, %n: tile<i32>) {{
  %tok = make_token : token
  %m = assume div_by<{divisor}>, %n : tile<i32>
  %tv = make_tensor_view %x0, shape = [%m], strides = [1] : tile<i32> -> {TV1}
  %pv = make_partition_view %tv : {PV1}
  %tvo = make_tensor_view %o0, shape = [%m], strides = [1] : tile<i32> -> {TV1}
  %pvo = make_partition_view %tvo : {PV1}
  %bid, %by, %bz = get_tile_block_id : tile<i32>
  %x, %tx = load_view_tko weak %pv[%bid] token = %tok : {PV1}, tile<i32> -> {T}, token
  %two = constant <f32: 2.0> : {T}
  %y = mulf %x, %two : {T}
  %ts = store_view_tko weak %y, %pvo[%bid] token = %tok : {T}, {PV1}, tile<i32> -> token
  return
}}
"""


def python_order_double() -> str:
    """out = 2 * x in the cuTile Python convention (pointer, size, stride per array)."""
    return kernel("\n".join([const("%two", "2.0"), f"  %y = mulf %x, %two : {T}", store("%y")]))


def scaled_by_scalar(rounded: bool) -> str:
    """out = x * c, where the kernel assumes c + 0 (a value derived from the argument) is even;
    the variant multiplies by (c / 2) * 2, which is c exactly when the assume holds."""
    lines = ["  %zero = constant <i32: 0> : tile<i32>", "  %c0 = addi %c, %zero : tile<i32>",
             "  %ce = assume div_by<2>, %c0 : tile<i32>"]
    if rounded:
        lines += ["  %k2 = constant <i32: 2> : tile<i32>", "  %h = divi %ce, %k2 signed : tile<i32>",
                  "  %cv = muli %h, %k2 : tile<i32>"]
    else:
        lines += ["  %cv = addi %ce, %zero : tile<i32>"]
    lines += ["  %cf = itof %cv signed : tile<i32> -> tile<f32>", "  %cr = reshape %cf : tile<f32> -> tile<1xf32>",
              f"  %cb = broadcast %cr : tile<1xf32> -> {T}", f"  %y = mulf %x, %cb : {T}", store("%y")]
    return kernel("\n".join(lines), scalar=True)


def rust_raw_pointers() -> str:
    """out = 2 * x through pointer tiles on two bare pointers, masked by offsets < %n: no view
    says how large the arrays are; the mask says %n is their size."""
    t16 = f"tile<{N}xi32>"
    p16 = f"tile<{N}xptr<f32>>"
    lines = []
    for name, ptr in (("x", "%x0"), ("o", "%o0")):
        lines += [f"  %{name}r = reshape {ptr} : tile<ptr<f32>> -> tile<1xptr<f32>>",
                  f"  %{name}b = broadcast %{name}r : tile<1xptr<f32>> -> {p16}",
                  f"  %{name}p = offset %{name}b, %idx : {p16}, {t16} -> {p16}"]
    body = "\n".join(lines)
    return f"""
entry @k(%x0: tile<ptr<f32>>, %o0: tile<ptr<f32>>, %n: tile<i32>) {{
  %tok = make_token : token
  %bid, %by, %bz = get_tile_block_id : tile<i32>
  %i = iota : {t16}
  %c16 = constant <i32: {N}> : tile<i32>
  %base = muli %bid, %c16 : tile<i32>
  %br = reshape %base : tile<i32> -> tile<1xi32>
  %bb = broadcast %br : tile<1xi32> -> {t16}
  %idx = addi %i, %bb : {t16}
  %nr = reshape %n : tile<i32> -> tile<1xi32>
  %nb = broadcast %nr : tile<1xi32> -> {t16}
  %m = cmpi less_than %idx, %nb, signed : {t16} -> tile<{N}xi1>
{body}
  %v, %tv = load_ptr_tko weak %xp, %m token=%tok : {p16}, tile<{N}xi1> -> {T}, token
  %two = constant <f32: 2.0> : {T}
  %y = mulf %v, %two : {T}
  %ts = store_ptr_tko weak %op, %y, %m token=%tok : {p16}, {T}, tile<{N}xi1> -> token
  return
}}
"""


def scaled_with_dead_view(view_sized_by_c: bool, plus_one: bool = False) -> str:
    """out = x * c (or x * (c + 1)) for ``@k(x, n, stride, out, n, stride, %c: i32, %z: ptr<f32>,
    zn)``; the kernel also makes a view of %z it never reads, sized by %c with
    ``view_sized_by_c``, else by %zn. Its layout then reads %c as z's size in one kernel and as a
    plain number in the other (a port's dead view with another extent, as a rewired mutant has)."""
    cv = "%c"
    lines = []
    if plus_one:
        lines += ["  %one = constant <i32: 1> : tile<i32>", "  %c1 = addi %c, %one : tile<i32>"]
        cv = "%c1"
    lines += [f"  %cf = itof {cv} signed : tile<i32> -> tile<f32>", "  %cr = reshape %cf : tile<f32> -> tile<1xf32>",
              f"  %cb = broadcast %cr : tile<1xf32> -> {T}", f"  %y = mulf %x, %cb : {T}", store("%y"),
              f"  %tvz = make_tensor_view %z, shape = [{'%c' if view_sized_by_c else '%zn'}], strides = [1] : "
              f"tile<i32> -> tensor_view<?xf32, strides=[1]>"]
    text = kernel("\n".join(lines), scalar=True)
    return text.replace(", %c: tile<i32>)", ", %c: tile<i32>, %z: tile<ptr<f32>>, %zn: tile<i32>)")


def rust_out_first(scale: str = "2.0", scalar: bool = False, extra_output: bool = False) -> str:
    """out = scale * x in a cuTile Rust order: the output first (``%o0, %x0, %n``), one size for
    both contiguous views. ``scalar``: the factor is a runtime argument ``%c: f32`` (the reference's
    constant 2.0 as an argument) and ``scale`` is added to the product when not "0.0". With
    ``extra_output`` a third pointer ``%aux`` (after %n) receives x as well: an output the
    reference does not have."""
    args = "%o0: tile<ptr<f32>>, %x0: tile<ptr<f32>>, %n: tile<i32>"
    extra = []
    if extra_output:
        args += ", %aux: tile<ptr<f32>>"
        extra = ["  %tva = make_tensor_view %aux, shape = [%n], strides = [1] : tile<i32> -> " + TV1,
                 f"  %pva = make_partition_view %tva : {PV1}",
                 f"  %ta = store_view_tko weak %x, %pva[%bid] token = %tok : {T}, {PV1}, tile<i32> -> token"]
    if scalar:
        args += ", %c: tile<f32>"
        body = ["  %cr = reshape %c : tile<f32> -> tile<1xf32>", f"  %cb = broadcast %cr : tile<1xf32> -> {T}",
                f"  %p = mulf %x, %cb : {T}"]
        if scale != "0.0":
            body += [f"  %k = constant <f32: {scale}> : {T}", f"  %y = addf %p, %k : {T}"]
        else:
            body[-1] = body[-1].replace("%p =", "%y =")
    else:
        body = [f"  %k = constant <f32: {scale}> : {T}", f"  %y = mulf %x, %k : {T}"]
    result = "%y"
    lines = "\n".join(body + extra)
    return f"""
entry @k({args}) {{
  %tok = make_token : token
  %tv = make_tensor_view %x0, shape = [%n], strides = [1] : tile<i32> -> {TV1}
  %pv = make_partition_view %tv : {PV1}
  %tvo = make_tensor_view %o0, shape = [%n], strides = [1] : tile<i32> -> {TV1}
  %pvo = make_partition_view %tvo : {PV1}
  %bid, %by, %bz = get_tile_block_id : tile<i32>
  %x, %tx = load_view_tko weak %pv[%bid] token = %tok : {PV1}, tile<i32> -> {T}, token
{lines}
  %ts = store_view_tko weak {result}, %pvo[%bid] token = %tok : {T}, {PV1}, tile<i32> -> token
  return
}}
"""


def counted_loop(trips: int, inner: int = 0, step: str = "1.0") -> str:
    """out = x + trips * step (x + trips * inner * step with ``inner``): a ``for`` of ``trips``
    iterations adding ``step`` to the tile, with a nested ``for`` of ``inner`` iterations inside."""
    if inner:
        body = f"""    %z = for %jv in (%c0 to %ci, step %c1) : tile<i32> iter_values(%w = %v) -> ({T}) {{
      %w2 = addf %w, %k : {T}
      continue %w2 : {T}
    }}
    continue %z : {T}"""
    else:
        body = f"""    %v2 = addf %v, %k : {T}
    continue %v2 : {T}"""
    return kernel(f"""  %c0 = constant <i32: 0> : tile<i32>
  %c1 = constant <i32: 1> : tile<i32>
  %ct = constant <i32: {trips}> : tile<i32>
  %ci = constant <i32: {inner}> : tile<i32>
{const("%k", step)}
  %acc = for %iv in (%c0 to %ct, step %c1) : tile<i32> iter_values(%v = %x) -> ({T}) {{
{body}
  }}
{store("%acc")}""")


def huge_bounded(lower: int) -> str:
    """out = x, with the size of x assumed ``bounded<lower, ?>`` (a size of ``lower`` at least)."""
    return kernel(store("%x")).replace("assume bounded<0, ?>, %a1", f"assume bounded<{lower}, ?>, %a1")


def rows_double() -> str:
    """out = 2 * x on a (rows x 16) contiguous array, one row per block: ``@k(%x, %rows, %o)``."""
    v2 = "tensor_view<?x16xf32, strides=[16,1]>"
    p2 = f"partition_view<tile=(1x{N}), {v2}>"
    t2 = f"tile<1x{N}xf32>"
    return f"""
entry @k(%x0: tile<ptr<f32>>, %rows: tile<i32>, %o0: tile<ptr<f32>>) {{
  %tok = make_token : token
  %tv = make_tensor_view %x0, shape = [%rows, 16], strides = [16, 1] : tile<i32> -> {v2}
  %pv = make_partition_view %tv : {p2}
  %tvo = make_tensor_view %o0, shape = [%rows, 16], strides = [16, 1] : tile<i32> -> {v2}
  %pvo = make_partition_view %tvo : {p2}
  %bid, %by, %bz = get_tile_block_id : tile<i32>
  %c0 = constant <i32: 0> : tile<i32>
  %x, %tx = load_view_tko weak %pv[%bid, %c0] token = %tok : {p2}, tile<i32> -> {t2}, token
  %two = constant <f32: 2.0> : {t2}
  %y = mulf %x, %two : {t2}
  %ts = store_view_tko weak %y, %pvo[%bid, %c0] token = %tok : {t2}, {p2}, tile<i32> -> token
  return
}}
"""
