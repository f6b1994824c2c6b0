"""smt-equivalence: integer/boolean expression cones proven equal by z3 (the checker's check 8)."""
from __future__ import annotations

from ..rule import Rule, register


@register
class SmtEquivalence(Rule):
    """Absorbs: two paired integer or boolean values (index expressions, masks, loop bounds,
    tile-id swizzles) that still differ after the other rules, when z3 proves them equal for
    every input that satisfies the facts: e.g. floor division and floor modulo with cuTile
    Python's sign fix-up against truncating ``divi``/``remi`` where the divisor is positive for
    every block of the launched grid, ``(a + b - 1) / b`` against ``divi rounding<positive_inf>``
    for ``a >= 0, b > 0``, a mask written ``iota < n`` against ``not (n <= iota)``. Small
    bit-exact float cones (``a - b`` vs ``a + (-b)``, ``x + x`` vs ``2 * x``, ``x / 2`` vs ``x * 0.5``,
    ``cmpf`` with its ordered/unordered NaN rule) use z3's FP theory. A mapped pair of ``exp`` (or
    ``exp2``) with the same attributes (rounding full, no flush-to-zero) reached by a refuted pair
    is proven through its inputs, equal up to the sign of a zero (both zeros give exactly 1.0):
    so ``exp(t <= 0 ? 0 : t)`` against ``exp(t < 0 ? 0 : t)`` is proven (the selects differ only
    at t = -0.0); stored without the ``exp`` they stay different.
    This rule rewrites nothing: it switches on check 8 of the trusted checker
    (``check/checker.py``), which poses the query itself through ``check/smt.py`` from the two
    functions and the mapping, and discharges a difference only on ``unsat``. Its count in
    ``rules_applied`` is the number of proven pairs; the result's ``proofs`` list each query with
    the facts its proof used (the unsat core), or the counterexample z3 found.

    Why meaning is kept: the encoding follows the op table (``semantics`` of each row; signedness,
    overflow flags, division rounding and compare predicates from the op's own attributes) at the
    IR's bit widths; a value defined on one side and undefined on the other (a zero divisor, a wrap
    an overflow flag excludes, a failing ``assume``) is a difference too. Facts are only IR facts
    (``0 <= bid < grid <= 2^31 - 1``), top-level ``assume``s on entry arguments of either side (an
    extra one is still a `specialization` difference of its own), and facts the caller states
    (the suite's launch grid); every fact a proof used is reported. Entry arguments are shared
    under the mapping's pairing (a reordered calling convention, still its own ``signature``
    root), and a view's tile count (``get_index_space_shape``) is ``cdiv(extent, tile)``.

    Split queries (nonlinear division): for every signed ``divi``/``remi`` in the cones whose
    divisor or dividend is computed, a **lemma** "divisor >= 1" / "dividend >= 0" is first
    proven from the facts alone, in a query of its own, and only then added as a fact (sound: the
    facts imply it); a cone that divides by a computed value is asked in integer arithmetic first
    (every step proven to stay within its width), where z3 finishes what 32-bit dividers do not.
    The proof's assumptions name each lemma it used and the facts that proved the lemma. An input
    where the integer encoding differs without deciding is evaluated in the bit-vector encoding:
    a counterexample only when that exact encoding differs there.

    **Probes** (float values): before z3 searches a float pair's query, the query and the facts are
    evaluated at a few fixed inputs (`smt.PROBES`, 4: every variable set from a fixed row of values,
    memory filled per address so that two reads of one address agree). z3 bit-blasts every float op
    before its first model (0.12 s for one `fma` whose constant changed, a fifth of the 3,015-op bench
    pair's diff); a probe is a substitution and z3's simplifier. A probe where every fact holds and
    the query is true is a counterexample of the exact encoding and the pair is refuted with it; a
    probe never proves anything (a pair no probe refutes goes to z3 as before). Probes run in a z3
    context of their own (one per thread), so the encoder's later queries see the same context
    history, the same models and unsat cores, as without them (`scripts/smt_work.py`: 425 pairs'
    reports byte-identical).

    **The quick probe** (`smt._quick_probe`, session 16): some probes need no z3 at all. When a
    float pair's cone, as the encoding builds it, holds only values of the root's tile type,
    splat constants, `addf subf mulf divf negf` at the default rounding without flush-to-zero, and
    leaves (ops without an encoder, such as `maxf` or a load that is not a memory read) of at most
    one variable that is not an input (not an entry argument, a block id or a loop's induction
    variable), with no premise and no launch facts, the first probes are computed in Python: each
    step in binary64, then rounded to the format with `struct` (f16, f32, f64; binary64 has more
    than twice their precision plus two bits, so the result is the correctly rounded one, the
    value z3's simplifier computes). Every number on the way must be finite, normal and nonzero,
    else z3 is asked as before. Where a probe shows the two values different, that is the
    outcome the z3 probe gives (the same counterexample, the same cones). The z3 calls it stands
    for are made, in order and with the same settings, before the encoder next asks z3 anything
    (`ConeEncoder._replay`), so later queries see z3's context as before. A diff whose queries the
    quick probe all decides (the 3,015-op bench pair's two) never imports z3.
    tests/check/test_quick_probe.py holds it to z3: each step against z3's simplifier on random
    operands, random chains diffed with and without it, a z3 query after a quick decision (the
    same outcome and work count).

    **A pair whose values differ is not yet a difference.** Where a pair's query is ``sat`` (an
    inner step of a rewritten expression: ``b*T - off`` against ``b*T`` when the other side
    subtracts ``off`` after the broadcast; ``max(k + 1, 0)`` against ``max(k, 0)`` under ``k
    div_by<64>``; ``j == 0`` against ``j != 0`` when the select arms are swapped), the query is
    posed again at the mapped pairs that read it, up to 4 levels up and 8 queries per function
    pair, with both cones expanded through the refuted pair. The refuted pair is discharged only
    when every use of it on both sides lies inside a proof (the ops a proven cone expanded, or
    an operand slot a proof covers); its record says "not observed". A use anywhere else (a
    second store index) keeps it a difference.

    **Masked accesses.** A pointer ``offset`` whose index differs (a refuted pair, or unpaired
    ops), every use of which is the pointer of a masked ``load_ptr_tko``/``store_ptr_tko``/atomic
    under one mask (the partner reading the mapped mask), is proven at its index only where the
    mask holds: a masked-off element is neither read nor written (a load gives its padding
    there). So ``idx // 2`` floor against truncating, where the mask ``(idx >= 0) & (idx < n)``
    keeps the negative rows out, is proven; with ``idx < n`` alone it is not. The query starts
    where the difference starts: mapped pairs of one elementwise op whose only differing operand
    is a refuted pair (``muli(exti(q), stride)``) are peeled (equal operands at an element give
    equal results there).

    **Memory reads.** A weak load the mapping leaves unpaired (a view load on one side, an
    explicit pointer gather on the other) is expanded into the memory it reads: at the element
    position, ``mem(address)`` where the access is in bounds (a view: ``0 <= coordinate <
    extent`` in every tensor dim, coordinates computed exactly from the view's tile index, a
    gather view's index tile along its sparse dim, the tile shape, the element's position) or its
    mask holds (a pointer tile), else the padding (the view's padding value; the load's padding
    operand; without one a value of that side alone). ``mem`` is one uninterpreted function of the
    64-bit byte address per array (the entry argument the base pointer comes from) and element
    type, shared by both sides; the address is ``base + sum(coordinate * stride) * element size``
    for a view, ``offset``'s ``ptr + index * element size`` for a pointer, both mod 2^64 (a view
    whose index type is narrower than 64 bits is undefined where an in-bounds element's offset does
    not fit it). So the proof holds only where both read the same address under the same bounds
    with the same padding: another stride, an off-by-one index, another mask, padding 1.0, the
    wrong array, a zero- instead of a sign-extended row index stay different. Each side may
    expand one read per array and element type; the checker accepts the proof only when the
    left's and the right's read sit in one region of mapped parents and the tokens of the kernels
    as read order them alike against every mapped access (check 7 with the pair added): then both
    see memory in the same state. The reads are then discharged with the proof when their results,
    tokens included, are used only inside it. Tiles are compared per element across
    ``broadcast`` and unit-dim ``reshape`` (an (8, 1) row index and a (1, 256) column index meet
    in the (8, 256) tile at the same element), and a ``for``'s index lies below its upper bound
    (and at or above its lower bound for a step of 1) in every iteration that runs.

    **A flag is its own root.** A mapped pair that differs only in an overflow flag (``trunci``
    against ``trunci overflow<no_signed_wrap>``) is a ``specialization`` root of its own and never
    discharged through another proof: elsewhere the proofs read it without its flags, as the run
    without assumptions that decides ``specialized`` does. So embedding's pointer gather of a
    narrowed id is proven, and the narrowing's flag stays the one stated assumption.

    **Launch facts are assumptions the IR cannot see.** The suite states each operator's
    ``launch_facts`` from ``analysis.json`` (matmul: ``grid.x <= cdiv(c.shape[0], BM) *
    cdiv(c.shape[1], BN)``; bmm, stated for its one-tile kernels only: ``grid.x ==
    cdiv(c.shape[1], BM) * cdiv(c.shape[2], BN)``), resolved to the kernel's arguments, ``grid.x == cdiv(arg11, 128) *
    cdiv(arg12, 128)``); the fact's name in ``proofs[].assumptions`` says "launch fact, declared
    ... in analysis.json launch_facts, not in the IR; both launchers checked against it"
    (tests/suite/test_launch_facts.py: the Python reference launcher; tests/rust/
    test_launch_facts_rust.py: the Rust C ABI through the fake driver). Under it the GEMMs'
    grouped swizzle (floor division and modulo by ``min(tiles_m - first_m, GROUP_M)``, >= 1 for
    every block of that grid, against truncating ones) is proven equal; without it the proof
    gives a counterexample with a block beyond the grid. A fact the launchers do not keep would
    make such a proof wrong: it is checked, never inferred. (One block more than the tiles is no
    counterexample: that block's group is empty, both sides divide by zero, neither is defined.)

    **Counterexamples are small and repeatable.** Once a query is ``sat``, the same query is asked
    again with every input (``arg<k>``, ``bid.x``, ``grid.x``, ``pos``) bounded by 16, then 2^10, then
    2^20, each search limited by z3's resource count rather than the clock, and the first model
    found is the one reported (``bid.x=6``, not ``bid.x=1073741824``); where only large inputs
    differ (a wrap near 2^31) the unbounded model stays. Each function pair's queries run in a z3
    context of their own, never z3's global one: diffs in several threads do not share solver state,
    and the same diff gives the same counterexample in any process (docs/robustness.md, "Threads").

    Never touches: a pair whose query is ``sat`` (reported, with the counterexample in the
    difference's ``detail.counterexample``) or undecided within the work budget
    (``Limits.smt_rlimit``, z3's resource count, default 10,000,000 units a proof: the same on any
    machine under any load; past the wall-clock safety net ``Limits.smt_timeout_s`` the diff is
    ``unknown``), values of view or token type, ops with regions, memory reads other than
    unpaired weak loads through a partition or gather view (no ``inbounds`` flags) or a pointer
    tile (a paired load is the pair's one value), writes (only their operands are compared), float
    ops with ``flush_to_zero`` or a rounding mode other than the four IEEE ones, reshapes other
    than inserting or dropping unit dims, and any cone in the integer encoding that reads memory. Without z3 installed the step is skipped and the result
    says so (``stats.smt``).
    """
    name = "smt-equivalence"
    mutant = ("`x / y` floor vs truncating where y may be negative; `i <= n` vs `i < n`; `cmpi signed` vs "
              "`unsigned` on a possibly negative value; `andi x, 0xFF` vs `andi x, 0x7F`; reordered arguments "
              "with `(n + 127) / 128` vs `cdiv(n, 128)` for n >= 0 unbounded above; a view's tile count vs "
              "`floordiv(n, 128)`; the grouped swizzle's floor vs truncation with a launch fact one tile "
              "column too many (`grid.x == cdiv(M, 128) * (cdiv(N, 128) + 1)`), with GROUP_M 8 vs 4 on one side, "
              "or by a divisor `tiles_m - first_m - GROUP_M` that is negative within the grid; a refuted inner pair "
              "also used outside the proof (a second store index); a masked index difference under a mask that "
              "lets negative ids through, or on an unmasked store; `x != 0` ordered with the arms swapped "
              "(NaN); `x / 3` vs `x * 0.33333334`; `t <= 0 ? 0 : t` vs `t < 0 ? 0 : t` stored (not under exp); "
              "`exp(x)` vs `exp2(x * log2 e)`; a gather view against a pointer gather with another stride, an "
              "index off by one, a mask `<=` instead of `<`, padding 1.0 for 0.0 (or no select), the wrong array, "
              "a zero-extended row index, no narrowing of the i64 id, a read the other side orders after a "
              "store, a view without padding against zeros")
    acts_on = frozenset()  # check 8 does the work; normalization is skipped

    def apply(self, module):
        return module, 0
