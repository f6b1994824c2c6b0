"""Explanation quality on the hand-judged corpora (docs/verification.md "Roots on ports written by
others"): prints, over tests/corpus/third_party_style and tests/corpus/independent,

* the share of true roots reported (each expected root found with its count);
* the share of reported roots that are cascades, spurious or mispaired (not an expected root);
* specialization verdicts: pairs judged ``specialized`` that get it, and pairs judged
  ``different`` that get a same or specialized verdict (must be 0).

``python3 tests/corpus/third_party_style/measure.py [-v] [--execute]`` (-v lists each pair's problems;
--execute also audits the interpreter's second opinion on the held-out pairs: the arguments it
pairs, the counterexamples it produces and how many are valid for both kernels, and every verdict
it changed).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[2]))

import tileir_diff  # noqa: E402
from test_third_party_style import evaluate, evaluate_result, pairs  # noqa: E402

INDEPENDENT = HERE.parent / "independent"


def independent_outcomes():
    for p in sorted(INDEPENDENT.glob("*.expect.json")):
        name = p.name[: -len(".expect.json")]
        ref = json.loads((INDEPENDENT / f"{name}.json").read_text())["reference"]
        left = INDEPENDENT / "reference" / f"{ref['op']}.{ref['variant']}.tileirbc"
        result = tileir_diff.diff(str(left), str(INDEPENDENT / f"{name}.tileirbc"))
        yield {"name": f"independent/{name}", **evaluate_result(result, json.loads(p.read_text()))}


def report(title: str, outcomes) -> None:
    true_roots = sum(o["true_roots"] for o in outcomes)
    found = sum(o["found"] for o in outcomes)
    reported = sum(o["reported"] for o in outcomes)
    extra = sum(o["extra"] for o in outcomes)
    spec = [o for o in outcomes if o["expected_verdict"] == "specialized"]
    spec_ok = sum(o["verdict"] == "specialized" for o in spec)
    wrong = [o for o in outcomes if o["expected_verdict"] == "different"]
    wrong_passed = [f"{o['name']} ({o['verdict']})" for o in wrong if o["verdict"] not in ("different", "unknown")]
    wrong_unknown = [o["name"] for o in wrong if o["verdict"] == "unknown"]
    verdict_ok = sum(o["verdict"] == o["expected_verdict"] for o in outcomes)
    print(f"{title}: {len(outcomes)} pairs")
    print(f"verdict as judged: {verdict_ok}/{len(outcomes)}")
    print(f"true roots reported: {found}/{true_roots} = {100.0 * found / max(true_roots, 1):.1f} %")
    print(f"reported roots that are cascade/spurious/mispaired: {extra}/{reported} = "
          f"{100.0 * extra / max(reported, 1):.1f} %")
    print(f"specialized pairs judged specialized: {spec_ok}/{len(spec)}")
    print(f"wrong pairs given a same or specialized verdict: {len(wrong_passed)} {wrong_passed or ''}")
    if wrong_unknown:  # (a time limit under load: no claim, but not the verdict judged either)
        print(f"wrong pairs given unknown: {len(wrong_unknown)} {wrong_unknown}")


def main(verbose: bool = False) -> None:
    outcomes = [evaluate(n) for n in pairs()] + list(independent_outcomes())
    report("held out (written before the diff was run on them)", [o for o in outcomes if o.get("held_out")])
    report("\nall (third-party-style and independent)", outcomes)
    for o in outcomes:
        if o["problems"] and verbose:
            print(f"\n{o['name']}:\n  " + "\n  ".join(o["problems"]))


def audit_execution(trials: int = 10) -> None:
    """``--execute=always`` on each held-out pair: whether it pairs arrays by the structural diff's
    argument mapping, what it found, and whether a verdict changed without a valid counterexample."""
    from tileir_diff.execute.mapping import from_result
    produced = valid = overruled = overruled_invalid = 0
    for name in pairs():
        if not json.loads((HERE / f"{name}.expect.json").read_text()).get("held_out"):
            continue
        left, right = str(HERE / f"{name}.left.tir"), str(HERE / f"{name}.right.tir")
        plain = tileir_diff.diff(left, right)
        run = tileir_diff.diff(left, right, execute="always", trials=trials)
        found = run.execution.report if run.execution is not None else {}
        cex = found.get("counterexample") or {}
        mapping = [m.pairs for m in from_result(plain)]
        produced += bool(cex)
        valid += bool(cex.get("valid"))
        changed = run.verdict != plain.verdict
        overruled += changed
        overruled_invalid += changed and not cex.get("valid")
        print(f"{name}: {plain.verdict} -> {run.verdict}; execution {found.get('status')}"
              f"{'' if not cex else ' counterexample ' + ('valid' if cex.get('valid') else 'INVALID: ' + str(cex.get('invalid_because')))}"
              f"; argument mapping {mapping[0] if mapping else None}"
              f"{'; ' + str(found.get('reason'))[:160] if found.get('reason') else ''}")
    print(f"counterexamples produced: {produced}, valid for both kernels: {valid}; verdicts changed: {overruled}, "
          f"without a valid counterexample: {overruled_invalid}")


if __name__ == "__main__":
    if "--execute" in sys.argv:
        audit_execution()
    else:
        main("-v" in sys.argv)
