"""version-defaults: a field missing only because of the bytecode version equals its default."""
from __future__ import annotations

import re
from typing import Tuple
from dataclasses import replace

from ...dialect import OPS_BY_NAME, V13_1, V13_3
from ...ir import OptimizationHints
from ..rule import Rule, register
from ..util import map_functions, new_operation, replace_ops

_SM_KEY = re.compile(r"^sm_\d+[a-z]?$")


def _defaultable(d) -> Tuple:
    """The attributes of the op table's row ``d`` that can be found at their default (the others
    need no look at the op's value)."""
    return tuple(a for a in d.attrs if a.kind in ("bool_array", "unit") or a.default is not None)


#: How an attribute is found at its default, per kind (``fn`` below): ``bool_array`` when every
#: entry is false (``inbounds`` all-false == absent), ``unit`` when false, any other kind (with
#: a default) when its value, or the name of its enum value, is the default.
_BOOL_ARRAY, _UNIT, _NAMED = 0, 1, 2


def _checks(adefs: Tuple) -> Tuple:
    """The test and the count of each attribute of ``adefs`` as data: (name, test, default,
    counted), so that ``fn`` below tests an op without a call per attribute."""
    return tuple((a.name, _BOOL_ARRAY if a.kind == "bool_array" else _UNIT if a.kind == "unit" else _NAMED,
                  a.default, a.since > V13_1) for a in adefs)


#: The ops ``fn`` below may rewrite: an attribute that can be at its default, or optimization
#: hints (an op outside the table, or an attribute the table does not list for the op, is never
#: rewritten: the verifier rejects such an attribute).
_MAY_CHANGE = frozenset(d.name for d in OPS_BY_NAME.values()
                        if _defaultable(d) or any(a.name == "optimization_hints" for a in d.attrs))

#: name -> ``_checks`` of its defaultable attributes, for every op ``fn`` below is called on.
_CHECKS = {name: _checks(_defaultable(OPS_BY_NAME[name])) for name in _MAY_CHANGE}


def rename_sm_key(hints, version):
    """In bytecode < 13.3 the only hint key producers write is the target ``sm_XX`` (cuTile writes
    ``default`` from 13.3 on for the same hints), so a lone ``sm_XX`` key there reads as ``default``."""
    if not isinstance(hints, OptimizationHints) or tuple(version) >= V13_3:
        return hints
    if len(hints.by_arch) == 1 and _SM_KEY.match(hints.by_arch[0][0]):
        return OptimizationHints((("default", hints.by_arch[0][1]),))
    return hints


@register
class VersionDefaults(Rule):
    """Absorbs: attributes that are absent in one file only because its bytecode version predates
    them, against the same attribute written with its default value in a newer version:
    ``exp``/``tanh`` rounding ``full`` (13.3/13.2), ``negi`` overflow ``none`` (13.2),
    ``load/store_view_tko inbounds`` all-false (13.4), ``mmaf fast_acc``, ``for unsignedCmp``,
    ``ftoi saturating`` false. Any attribute equal to its op-table default is dropped, so
    "absent" and "default" become one form; only fields newer than 13.1 are counted.
    Also: in bytecode 13.1/13.2 the one ``optimization_hints`` key a producer writes is the
    target (``sm_90``); 13.3+ writes ``default`` for the same thing. A lone ``sm_XX`` key in a
    < 13.3 module is read as ``default``.

    Always on (it cannot be switched off): it reads the encoding, it does not compare
    computations; the text ``tileirdisasm`` prints carries no version and omits default fields,
    so without it a bytecode file would differ from its own disassembly.

    Why meaning is kept: the op table's default is, by the Tile IR spec, what an absent field means;
    a producer exporting for one target in 13.1/13.2 could not write ``default``.

    Never touches: non-default values (``exp rounding<approx>``, ``inbounds`` with a true entry);
    hint keys in 13.3+ modules (there ``sm_90`` vs ``default`` is a real choice of scope) or hints
    with several keys.
    """
    name = "version-defaults"
    # Always on: it reads what a field's absence means in the file's version (and the text form
    # has no version at all), so a file and its own disassembly, or the same kernel written at
    # 13.3 and 13.4, are identical.
    optional = False
    mutant = "exp rounding<approx> vs rounding full; sm_90 hints vs default in two 13.3 modules"
    rewrites_in_place = True  # (operands, attributes or hints of one op at a time)

    def apply(self, module):
        version = module.version

        def per_function(f):
            count = 0

            def fn(op):
                nonlocal count
                given = op.attributes
                if not given:
                    return None
                defaults = None  # (name, counted) of the attributes at their default
                for name, test, default, counted in _CHECKS[op.name]:  # (only _MAY_CHANGE ops come here)
                    if name in given:
                        value = given[name]
                        if (getattr(value, "name", value) == default if test == _NAMED  # (enum_name)
                                else value is False if test == _UNIT
                                else all(v is False or v == 0 for v in value)):
                            if defaults is None:
                                defaults = [(name, counted)]
                            else:
                                defaults.append((name, counted))
                hints = given.get("optimization_hints")
                new_hints = rename_sm_key(hints, version) if hints is not None else None
                if defaults is None and new_hints is hints:
                    return None  # (the common case: no copy of the attributes)
                attrs = dict(given)
                if defaults is not None:
                    for name, counted in defaults:
                        del attrs[name]
                        count += counted
                if new_hints is not hints:
                    attrs["optimization_hints"] = new_hints
                    count += 1
                return new_operation(op.name, op.operands, op.segments, op.results, attrs, op.regions,
                                     op.location, op.origin)  # (with_fields(op, attributes=attrs))

            nf = replace_ops(f, fn, _MAY_CHANGE)
            new_hints = rename_sm_key(nf.hints, version)
            if new_hints is not nf.hints:
                nf = replace(nf, hints=new_hints)
                count += 1
            return nf, count

        return map_functions(module, per_function)
