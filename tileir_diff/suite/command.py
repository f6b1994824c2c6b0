"""`tileir-diff suite ...`: list the reference operators and export them to bytecode/cubins.

`register(subparsers)` adds the `suite` command to the main CLI; `python3 -m tileir_diff.suite.command
list|export ...` runs the same commands standalone. Exit codes: 0 ok, 1 some variant failed to
export or compile, 2 bad input (invalid analysis.json, unknown op) or missing tools.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Optional, Sequence

from tileir_diff.suite.catalog import CatalogError, OpSpec, load_catalog
from tileir_diff.progress import add_progress_option, progress_bar
from tileir_diff.suite.export import DEFAULT_ARCHS, ExportError, ToolNotFound, artifact_paths, export_all

__all__ = ["register", "main", "list_records"]



def _advance(bar, label: str) -> None:
    """One export done: its name beside the bar, one step on it."""
    bar.set_postfix_str(label, refresh=False)
    bar.update(1)

def list_records(specs: Sequence[OpSpec], *, build_root: Path | None = None,
                 archs: Sequence[str] = DEFAULT_ARCHS) -> list[dict]:
    """One JSON-ready object per variant: what a port or a launcher needs to find and call it."""
    out = []
    for op in specs:
        for v in op.variants:
            bytecode, cubins = artifact_paths(v, build_root, archs)
            out.append({
                "op": op.op,
                "family": op.family,
                "variant": v.name,
                "kernel": v.kernel,
                "symbol": v.symbol,
                "dtypes": v.dtypes,
                "constants": v.constants,
                "params": [p.name for p in v.params],
                "grid": list(v.grid),
                "test_shapes": list(v.test_shapes),
                "bytecode": str(bytecode),
                "bytecode_exists": bytecode.is_file(),
                "cubins": {a: str(p) for a, p in cubins.items()},
                "cubins_exist": {a: p.is_file() for a, p in cubins.items()},
                "analysis": str(op.analysis_path),
                "kernel_py": str(op.kernel_path),
            })
    return out


def _suite_subcommand(sub, name: str, func, help: str, description: str) -> argparse.ArgumentParser:
    """A ``suite`` subcommand running ``func``, with the options every one takes (where the
    checkout, the reference and the build are; which ops and architectures)."""
    p = sub.add_parser(name, help=help, description=description)
    p.set_defaults(suite_func=func)
    p.add_argument("--root", type=Path, default=None, metavar="DIR",
                   help="the tileir_diff checkout (default: $TILEIR_DIFF_ROOT, this package's checkout, "
                        "or the working directory's)")
    p.add_argument("--reference-root", type=Path, default=None, help="folder of reference/<op>/ (default: the repo's)")
    p.add_argument("--build-root", type=Path, default=None, help="output folder (default: <repo>/build/reference)")
    p.add_argument("--op", action="append", dest="ops", metavar="OP", help="only this op (repeatable)")
    p.add_argument("--arch", action="append", dest="archs", metavar="SM",
                   help=f"cubin target (repeatable; default: {' '.join(DEFAULT_ARCHS)})")
    return p


def _populate(suite_parser: argparse.ArgumentParser) -> None:
    sub = suite_parser.add_subparsers(dest="suite_command", metavar="{list,export,status,sass}",
                                      title="subcommands")
    sub.required = True
    p_list = _suite_subcommand(
        sub, "list", _cmd_list, help="list every reference op and variant (validates analysis.json)",
        description="List every reference operator and variant of the catalog (reference/<op>/analysis.json, "
                    "validated on the way): kernel, dtypes, constants, and which of its bytecode and cubins "
                    "are built. --format json gives what a port or a launcher needs to find and call each.")
    _format_options(p_list)
    p_exp = _suite_subcommand(
        sub, "export", _cmd_export, help="export variants to bytecode 13.3 and compile cubins with tileiras",
        description="Export each reference variant with cuTile Python to Tile IR bytecode 13.3 and compile "
                    "it to cubins with tileiras; outputs newer than their inputs are kept. Needs cuda-tile "
                    "and nvidia-cuda-tileiras (pip install -e .[tools]).")
    p_exp.add_argument("--variant", action="append", dest="variants", metavar="NAME", help="only this variant (repeatable)")
    p_exp.add_argument("--force", action="store_true", help="rebuild even when outputs are newer than inputs")
    p_exp.add_argument("--no-cubin", action="store_true", help="bytecode only")
    p_exp.add_argument("--jobs", type=_positive_int, default=os.cpu_count() or 1, metavar="N",
                       help="variants exported at once (default: the CPU count, here %(default)s)")
    _format_options(p_exp)
    add_progress_option(p_exp)
    p_st = _suite_subcommand(
        sub, "status", _cmd_status, help="the port table: each variant's Rust port vs its Python reference",
        description="The port table: for every reference variant, the verdict of its cuTile Rust port's IR "
                    "(build/rust) against the Python reference IR (build/reference), the differences "
                    "analysis.json accepts, the cubin, unsafe blocks and the last numerics run.")
    _format_options(p_st)
    p_st.add_argument("--rust-build", type=Path, default=None, help="emit-ir output (default: <repo>/build/rust)")
    p_st.add_argument("--markdown", type=Path, metavar="PATH", help="also write the table as Markdown (docs/PORTS.md)")
    p_st.add_argument("--report-dir", type=Path, metavar="DIR",
                      help="write an HTML + JSON diff report per ported variant, DIR/index.html (every variant, "
                           "linked) and DIR/status.json (the table as JSON)")
    p_st.add_argument("--ported-only", action="store_true", help="list only variants that have a port")
    add_progress_option(p_st)
    p_sass = _suite_subcommand(
        sub, "sass", _cmd_sass, help="SASS identity: each port's sm_90 cubin against its Python reference's",
        description="Disassemble each ported variant's sm_90 cubin and its Python reference's (nvdisasm, "
                    "cuobjdump: pip install -e .[sass]) and compare the SASS, registers, shared memory and "
                    "constant banks; the port table reads the results (docs/results/ports_sass.json).")
    p_sass.add_argument("-o", "--output", "--json", dest="json", type=Path, metavar="PATH",
                        help="write the results here (the port table reads docs/results/ports_sass.json; --json "
                             "PATH is the old spelling)")
    _format_options(p_sass)
    p_sass.add_argument("--merge", action="store_true",
                        help="keep the --json file's records of the ops not compared now (with --op)")
    p_sass.add_argument("--rust-build", type=Path, default=None, help="emit-ir output (default: <repo>/build/rust)")
    add_progress_option(p_sass)


def _format_options(p: argparse.ArgumentParser) -> None:
    """-f/--format and --compact, spelled as the other commands spell them (commands.add_format_option,
    a layer above this one)."""
    p.add_argument("-f", "--format", choices=("text", "json"), default="text", help="output format (default: text)")
    p.add_argument("--compact", action="store_true", help="json: on one line, no indentation")


def _indent(args: argparse.Namespace, default: int) -> Optional[int]:
    return None if args.compact else default


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def register(subparsers) -> argparse.ArgumentParser:
    """Add `suite` to the main CLI's subparsers; dispatch with `args.suite_func(args)` (returns an exit code)."""
    p = subparsers.add_parser("suite", help="the reference suite: list, export to bytecode and cubins, the port table",
                              description="The reference suite (reference/<op>/): list its variants, export them "
                                          "to bytecode and cubins, and compare the Rust ports (the port table).")
    _populate(p)
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    if getattr(args, "root", None) is not None:
        try:
            _apply_root(args)
        except CatalogError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    return args.suite_func(args)


def _apply_root(args: argparse.Namespace) -> None:
    """--root DIR: every folder not given explicitly is DIR's."""
    from tileir_diff.suite.catalog import repo_root
    root = repo_root(args.root)
    args.root = root
    args.reference_root = args.reference_root or root / "reference"
    args.build_root = args.build_root or root / "build" / "reference"
    if hasattr(args, "rust_build"):
        args.rust_build = args.rust_build or root / "build" / "rust"


def _cmd_list(args: argparse.Namespace) -> int:
    try:
        specs = load_catalog(args.reference_root, ops=args.ops)
    except CatalogError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    records = list_records(specs, build_root=args.build_root, archs=tuple(args.archs or DEFAULT_ARCHS))
    if args.format == "json":
        json.dump(records, sys.stdout, indent=_indent(args, 2))
        sys.stdout.write("\n")
        return 0
    rows = [("op", "variant", "kernel", "dtypes", "constants", "built")]
    for r in records:
        built = "bc" if r["bytecode_exists"] else "-"
        built += "".join(f"+{a}" for a, e in r["cubins_exist"].items() if e)
        dts = ",".join(sorted(set(r["dtypes"].values())))
        consts = ",".join(f"{k}={v}" for k, v in r["constants"].items())
        rows.append((r["op"], r["variant"], r["kernel"], dts, consts, built))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    print(f"{len(specs)} ops, {len(records)} variants")
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    try:
        specs = load_catalog(args.reference_root, ops=args.ops)
        archs = () if args.no_cubin else tuple(args.archs or DEFAULT_ARCHS)
        with progress_bar(0, "export", args.progress) as bar:
            records = export_all(specs, archs=archs, build_root=args.build_root, force=args.force,
                                 jobs=args.jobs, variants=args.variants,
                                 on_start=lambda n: bar.reset(total=n),
                                 on_done=lambda r: _advance(bar, r.symbol))
    except (CatalogError, ToolNotFound, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ExportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.variants:
        unknown = set(args.variants) - {r.variant for r in records}
        if unknown:
            print(f"error: no such variant(s): {sorted(unknown)}", file=sys.stderr)
            return 2
    if args.format == "json":
        json.dump([r.to_dict() for r in records], sys.stdout, indent=_indent(args, 2))
        sys.stdout.write("\n")
    else:
        for r in records:
            cub = " ".join(f"{a}:{s}" for a, s in r.cubin_status.items())
            print(f"{'ok  ' if r.ok else 'FAIL'} {r.symbol:50s} bytecode:{r.bytecode_status} {cub} ({r.seconds:.1f}s)")
            for e in r.errors:
                print(f"     {e}")
        failed = sum(not r.ok for r in records)
        print(f"{len(records)} variants, {failed} failed")
    return 1 if any(not r.ok for r in records) else 0


def _unwritable_outputs(args: argparse.Namespace) -> Optional[str]:
    """'cannot write PATH: why' for a --markdown file or --report-dir folder that cannot be written
    (the report folder is made here), else None: one line and status 2, never an internal error."""
    if args.markdown is not None and not args.markdown.resolve().parent.is_dir():
        return f"cannot write {args.markdown}: No such file or directory"
    if args.report_dir is not None:
        try:
            args.report_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            return f"cannot write {args.report_dir}: {e.strerror or e}"
        if not os.access(args.report_dir, os.W_OK):
            return f"cannot write {args.report_dir}: Permission denied"
    return None


#: suite status when no variant has port IR: nothing was compared, nothing is claimed (as verify's 3).
EXIT_NOTHING_BUILT = 3


def _cmd_status(args: argparse.Namespace) -> int:
    """Exit 0 when every ported variant passes (identical/equivalent or only accepted differences),
    1 when one fails, 2 on a usage or catalog error, 3 when nothing is built (no port IR at all)."""
    from tileir_diff.suite.catalog import repo_root
    from tileir_diff.suite.port_table import Links, port_rows, ported, render_index_html, render_markdown, \
        render_text, status_document
    try:
        specs = load_catalog(args.reference_root, ops=args.ops)
        root = args.root or repo_root()
    except CatalogError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.report_dir:
        args.report_dir = args.report_dir.resolve()  # rows keep absolute report paths; links are relative
    unwritable = _unwritable_outputs(args)  # before the table is computed, which takes a while
    if unwritable:
        print(f"error: {unwritable}", file=sys.stderr)
        return 2
    with progress_bar(sum(len(s.variants) for s in specs), "status", args.progress) as bar:
        rows = port_rows(specs, root=root, reference_build=args.build_root, rust_build=args.rust_build,
                         report_dir=args.report_dir, on_row=lambda r: bar.update(1))
    try:
        if args.markdown:
            args.markdown.write_text(render_markdown(rows, links=Links(root, args.markdown.resolve().parent)),
                                     encoding="utf-8")
        if args.report_dir:
            report_dir = args.report_dir.resolve()
            (report_dir / "index.html").write_text(render_index_html(rows, Links(root, report_dir)),
                                                   encoding="utf-8")
            (report_dir / "status.json").write_text(json.dumps(status_document(rows, root), indent=1) + "\n",
                                                    encoding="utf-8")
    except OSError as e:
        print(f"error: cannot write {e.filename}: {e.strerror or e}", file=sys.stderr)
        return 2
    shown = [r for r in rows if r.verdict != "missing"] if args.ported_only else rows
    if args.format == "json":
        print(json.dumps(status_document(shown, root), indent=_indent(args, 1)))
    else:
        sys.stdout.write(render_text(shown, all_rows=rows))
    if rows and not ported(rows):  # "0 of N ported" would read as a port table; nothing was compared
        where = args.rust_build or root / "build" / "rust"
        print(f"error: nothing is built: no port IR under {where} for any of the {len(rows)} variant(s), so "
              f"nothing was compared (bash scripts/verify_suite.sh builds them; --rust-build DIR reads another "
              f"folder)", file=sys.stderr)
        return EXIT_NOTHING_BUILT
    return 0 if all(r.status != "fail" for r in rows) else 1


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["suite"]:  # accept the main CLI's spelling too
        argv = argv[1:]
    parser = argparse.ArgumentParser(prog="python3 -m tileir_diff.suite.command", description=__doc__.splitlines()[0])
    _populate(parser)
    args = parser.parse_args(argv)
    return run(args)


def _cmd_sass(args: argparse.Namespace) -> int:
    """Exit 0 when every pair was compared (identical or different), 1 when a tool or cubin failed,
    2 on a usage or catalog error."""
    from tileir_diff.errors import printable
    from tileir_diff.suite.catalog import repo_root
    from tileir_diff.suite.sass import compare_ports, find_tool, merge_documents, results_document, summary_cell
    try:
        specs = load_catalog(args.reference_root, ops=args.ops)
    except CatalogError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    missing = [name for name in ("nvdisasm", "cuobjdump") if find_tool(name) is None]
    if missing:
        print(f"error: {', '.join(missing)} not found: pip install nvidia-cuda-nvdisasm nvidia-cuda-cuobjdump "
              f"or set TILEIR_CUDA_BIN to their folder", file=sys.stderr)
        return 2
    root = repo_root()
    with progress_bar(0, "sass", args.progress) as bar:
        def total(n: int) -> None:
            bar.total = n
            bar.refresh()
        rows = compare_ports(specs, root=root, ops=args.ops, reference_build=args.build_root,
                             rust_build=args.rust_build, on_total=total, on_row=lambda _row: bar.update(1))
    doc = results_document(rows, root)
    if args.merge:
        if not args.json:
            print("error: --merge needs -o PATH (the file to merge into)", file=sys.stderr)
            return 2
        if args.json.is_file():
            try:
                doc = merge_documents(json.loads(args.json.read_text(encoding="utf-8")), doc)
            except (ValueError, KeyError, TypeError) as e:
                print(printable(f"error: {args.json}: not a ports_sass.json document ({e})"), file=sys.stderr)
                return 2
    if args.json:
        try:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        except OSError as e:
            print(printable(f"error: cannot write {args.json}: {e.strerror or e}"), file=sys.stderr)
            return 2
    if args.format == "json":
        print(json.dumps(doc, indent=_indent(args, 1)))
    else:
        for r in rows:
            line = summary_cell(r.to_dict()) if r.verdict != "error" else f"error: {r.error}"
            print(printable(f"{r.op:14} {r.variant:30} {line}"))
        print(", ".join(f"{n} {k}" for k, n in sorted(doc["summary"].items())) or "no ported variant has a cubin")
    return 0 if all(r.verdict in ("identical", "different") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
