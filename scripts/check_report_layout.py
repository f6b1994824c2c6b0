#!/usr/bin/env python3
"""Open HTML diff reports in headless Chromium and check what a reader sees, then screenshot them.

    python3 scripts/check_report_layout.py REPORT.html ... [--screenshots DIR] [--width 1400]
    python3 scripts/check_report_layout.py --examples DIR    # write three example reports, check, shoot

Each report is loaded in an iframe of a small probe page; the probe measures the laid-out page
and Chromium's --dump-dom hands the figures back. Checked, with every fold closed and then with
every fold open:

* alignment: the left and right cell of every side-by-side row start at the same height, and
  every matched line not marked "written elsewhere" shares its row with its partner;
* gutter: no line number wraps or is wider than its gutter (5-digit numbers of a 30k-line kernel);
* wrapping: no line of code, and no difference card, is wider than its box (nothing scrolls or
  falls off sideways);
* folds: a fold holds whole rows, so both sides unfold together;
* long messages: a root difference's long message is cut to three lines, and its button shows all;
* one count: the header's "N ops matched" equals the sum of the functions table's "matched";
* readable badges: every verdict badge's text contrasts with its background (WCAG ratio >= 3);
* honest colour: a page whose verdict is identical or equivalent shows no red "differs".

Exit 0 when every report passes, 1 otherwise (one line per problem), 2 without Chromium. The
examples (--examples) are the demo pair with two planted bugs (different), a kernel against a
copy with a dead constant (equivalent) and, when build/ has them, the rms_norm backward port with
the differences its analysis.json accepts.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PROBE = """<!DOCTYPE html><html><body style="margin:0">
<iframe id="f" src="%(src)s" style="width:%(width)dpx;height:%(height)dpx;border:0"></iframe>
<script>
function lum(c){var m=c.match(/[\\d.]+/g).map(Number).slice(0,3).map(function(v){v/=255;
  return v<=0.03928?v/12.92:Math.pow((v+0.055)/1.055,2.4);});return 0.2126*m[0]+0.7152*m[1]+0.0722*m[2];}
function contrast(a,b){var x=lum(a),y=lum(b);return (Math.max(x,y)+0.05)/(Math.min(x,y)+0.05);}
function hidden(e){return !e.offsetParent||!!e.closest('details:not([open]) > :not(summary)');}
function gutter(d, w, out){
  var nos=d.querySelectorAll('.code .ln .no'), range=d.createRange(), pad=null;
  for(var i=0;i<nos.length;i++){var e=nos[i]; if(hidden(e)) continue; out.numbers++;
    var n=parseInt(e.textContent,10); if(n>out.largest) out.largest=n;
    if(pad===null) pad=parseFloat(w.getComputedStyle(e).paddingRight)||0;
    range.selectNodeContents(e); var rects=range.getClientRects(), box=e.getBoundingClientRect();
    if(rects.length>1) out.gutter.push('line number '+e.textContent+' wraps onto '+rects.length+' lines');
    else if(rects.length===1&&(rects[0].left<box.left-0.5||rects[0].right>box.right-pad+0.5))
      out.gutter.push('line number '+e.textContent+' is wider than its gutter ('+
        rects[0].width.toFixed(1)+' px in '+(box.width-pad).toFixed(1)+' px)');}}
function pairs(d, out){
  var left=d.querySelectorAll('.code .ln.sL[data-partner]:not(.moved)');
  for(var i=0;i<left.length;i++){var e=left[i]; if(hidden(e)) continue; out.pairs++;
    var p=d.getElementById('R:'+e.getAttribute('data-partner'));
    if(!p){out.misaligned.push(e.id+': its partner has no line');continue;}
    if(p.parentElement!==e.parentElement||Math.abs(p.getBoundingClientRect().top-e.getBoundingClientRect().top)>0.5)
      out.misaligned.push(e.id+' and its partner '+p.id+' are on different rows');}}
function measure(d, w){
  var out={rows:0,misaligned:[],overflow:[],gutter:[],numbers:0,largest:0,pairs:0};
  var rows=d.querySelectorAll('.code .row');
  for(var i=0;i<rows.length;i++){var r=rows[i]; if(hidden(r)) continue; out.rows++;
    var c=r.children; if(c.length!==2){out.misaligned.push('row '+i+' has '+c.length+' cells');continue;}
    var a=c[0].getBoundingClientRect(),b=c[1].getBoundingClientRect();
    if(Math.abs(a.top-b.top)>0.5||Math.abs(a.height-b.height)>0.5) out.misaligned.push('row '+i);}
  pairs(d, out); gutter(d, w, out);
  var boxes=d.querySelectorAll('.code, .dl, .dr, .ln');
  for(var j=0;j<boxes.length;j++){var x=boxes[j]; if(hidden(x)) continue;
    if(x.scrollWidth>x.clientWidth+1) out.overflow.push((x.className||x.tagName)+' '+j);}
  if(d.documentElement.scrollWidth>w.innerWidth+1) out.overflow.push('page wider than the window');
  return out;}
document.getElementById('f').addEventListener('load',function(){
  var w=this.contentWindow,d=w.document,res={};
  res.closed=measure(d,w);
  // a long root-difference message shows three lines and a button; the button shows the rest
  var mores=d.querySelectorAll('.more-msg'); res.long_messages=mores.length; res.cut=[];
  for(var m=0;m<mores.length;m++){var head=mores[m].previousElementSibling;
    if(!(head.scrollHeight>head.clientHeight+1)) res.cut.push('long message '+m+' is not cut to three lines');
    mores[m].click();
    if(head.scrollHeight>head.clientHeight+1) res.cut.push('long message '+m+' stays cut after its button');}
  var folds=d.querySelectorAll('details.fold'); res.folds=folds.length; res.fold_problems=[];
  for(var k=0;k<folds.length;k++){var kids=folds[k].children;
    for(var q=0;q<kids.length;q++){var t=kids[q].tagName.toLowerCase();
      if(t!=='summary'&&!kids[q].classList.contains('row')) res.fold_problems.push('fold '+k+' holds a '+t);}
    folds[k].open=true;}
  res.open=measure(d,w);
  var chip=[].map.call(d.querySelectorAll('.chip'),function(c){return c.textContent;})
    .filter(function(t){return / ops matched$/.test(t);});
  res.chip_matched=chip.length?parseInt(chip[0],10):null;
  var fnTable=[].filter.call(d.querySelectorAll('table.kv'),function(t){return /matched/.test(t.rows[0].textContent);});
  res.table_matched=null;
  if(fnTable.length){var head=[].map.call(fnTable[0].rows[0].cells,function(c){return c.textContent;});
    var col=head.indexOf('matched'); res.table_matched=0;
    for(var r=1;r<fnTable[0].rows.length;r++){res.table_matched+=parseInt(fnTable[0].rows[r].cells[col].textContent,10)||0;}}
  res.badges=[].map.call(d.querySelectorAll('.vb, .verdict'),function(b){var s=w.getComputedStyle(b);
    return {text:b.textContent,ratio:contrast(s.color,s.backgroundColor)};});
  res.verdict=(d.querySelector('.verdict')||{}).textContent;
  res.red_differs=[].filter.call(d.querySelectorAll('.bad, .neq'),function(e){return e.offsetParent!==null||e.tagName==='DETAILS';}).length;
  var pre=document.createElement('pre'); pre.id='result'; pre.textContent=JSON.stringify(res);
  document.body.appendChild(pre);
});
</script></body></html>
"""


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _chromium(browser: str, tmp: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
               "--allow-file-access-from-files", f"--user-data-dir={tmp / 'profile'}", *args]
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"chromium did not load, lay out and measure the page within {timeout:g} s") from None


def measure(browser: str, report: Path, width: int, height: int, timeout: float = 120) -> dict:
    """The probe's figures for REPORT laid out in a WIDTH x HEIGHT window; RuntimeError when Chromium
    gives none within TIMEOUT seconds (the whole browser run: start, load, layout, measuring)."""
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        probe = tmp / "probe.html"
        probe.write_text(PROBE % {"src": report.resolve().as_uri(), "width": width, "height": height})
        r = _chromium(browser, tmp, "--virtual-time-budget=10000", f"--window-size={width},{height}",
                      "--dump-dom", probe.as_uri(), timeout=timeout)
    m = re.search(r'<pre id="result">(.*?)</pre>', r.stdout, re.S)
    if not m:
        raise RuntimeError(f"{report}: the probe reported nothing (chromium: {r.stderr.strip()[-300:]})")
    import html
    return json.loads(html.unescape(m.group(1)))


def problems(name: str, res: dict) -> list[str]:
    out = []
    for state in ("closed", "open"):
        m = res[state]
        if m["rows"] == 0:
            out.append(f"{name}: no side-by-side rows laid out ({state} folds)")
        out += [f"{name}: misaligned ({state} folds): {x}" for x in m["misaligned"][:5]]
        out += [f"{name}: wider than its box ({state} folds): {x}" for x in m["overflow"][:5]]
        out += [f"{name}: gutter ({state} folds): {x}" for x in m["gutter"][:5]]
    out += [f"{name}: {x}" for x in res["fold_problems"][:5]]
    out += [f"{name}: {x}" for x in res["cut"][:5]]
    if res["chip_matched"] is not None and res["table_matched"] is not None and \
            res["chip_matched"] != res["table_matched"]:
        out.append(f"{name}: header says {res['chip_matched']} ops matched, the functions table {res['table_matched']}")
    out += [f"{name}: badge {b['text']!r} has contrast {b['ratio']:.2f} < 3" for b in res["badges"] if b["ratio"] < 3]
    if (res.get("verdict") or "").strip() in ("IDENTICAL", "EQUIVALENT") and res["red_differs"]:
        out.append(f"{name}: a {res['verdict'].strip()} page shows {res['red_differs']} red 'differs' marks")
    return out


def screenshot(browser: str, report: Path, out: Path, width: int, height: int) -> None:
    with tempfile.TemporaryDirectory() as t:
        r = _chromium(browser, Path(t), f"--window-size={width},{height}", f"--screenshot={out}", report.resolve().as_uri())
    if not out.is_file() or out.stat().st_size == 0:
        raise RuntimeError(f"{report}: chromium wrote no screenshot ({r.stderr.strip()[-300:]})")


def write_examples(folder: Path) -> list[Path]:
    import tileir_diff
    sys.path.insert(0, str(ROOT / "scripts"))
    from demo_report import LEFT as left_file
    from demo_report import planted_bug_text
    # the reports name their inputs as given: relative to the working directory, not this machine's layout
    LEFT = os.path.relpath(left_file)
    folder.mkdir(parents=True, exist_ok=True)
    module = tileir_diff.load(LEFT)
    reports = []
    different = tileir_diff.diff(LEFT, planted_bug_text(module))
    reports.append(_write(folder / "report-different.html", different))
    lines = tileir_diff.print_module(module).splitlines()
    lines.insert(1, "  %dead = constant <i32: 7> : tile<i32>")
    reports.append(_write(folder / "report-equivalent.html", tileir_diff.diff(LEFT, "\n".join(lines) + "\n")))
    ref = ROOT / "build" / "reference" / "rms_norm" / "bwd_f16_m4_n1024.tileirbc"
    port = ROOT / "tests" / "corpus" / "rust" / "rms_norm.bwd_f16_m4_n1024.tileirbc"
    if ref.is_file():
        from tileir_diff.suite.accept import apply_accepted, load_accept_file
        result = tileir_diff.diff(os.path.relpath(ref), os.path.relpath(port))
        entries, _ = load_accept_file(str(ROOT / "reference" / "rms_norm" / "analysis.json"))
        result, _ = apply_accepted(result, entries, "bwd_f16_m4_n1024", "reference/rms_norm/analysis.json")
        reports.append(_write(folder / "report-accepted.html", result))
    return reports


def _write(path: Path, result) -> Path:
    path.write_text(result.to_html(), encoding="utf-8")
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reports", nargs="*", type=Path)
    ap.add_argument("--examples", type=Path, metavar="DIR", help="write the example reports into DIR and check those")
    ap.add_argument("--screenshots", type=Path, metavar="DIR", help="also save DIR/<report>.png")
    ap.add_argument("--width", type=int, default=1400)
    ap.add_argument("--height", type=int, default=1800)
    args = ap.parse_args(argv)
    browser = find_chromium()
    if browser is None:
        print("chromium not found (apt-get install -y chromium)", file=sys.stderr)
        return 2
    reports = list(args.reports) + (write_examples(args.examples) if args.examples else [])
    if not reports:
        ap.error("give REPORT.html files or --examples DIR")
    failed = []
    for report in reports:
        res = measure(browser, report, args.width, args.height)
        found = problems(report.name, res)
        failed += found
        print(f"{report.name}: {res['open']['rows']} rows, {res['folds']} folds, "
              f"{res['chip_matched']} ops matched, {'ok' if not found else f'{len(found)} problem(s)'}")
        if args.screenshots:
            args.screenshots.mkdir(parents=True, exist_ok=True)
            screenshot(browser, report, args.screenshots / f"{report.stem}.png", args.width, args.height)
    for line in failed:
        print(line, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
