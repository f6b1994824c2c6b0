"""The HTML report opened in headless Chromium: the screenshot exists and is not blank.

Slow (starts a browser); skipped when Chromium is absent. Install it with
``apt-get install -y chromium`` or let ``scripts/screenshot_report.sh`` do it.
"""
from __future__ import annotations

import re

import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "screenshot_report.sh"

pytestmark = pytest.mark.slow


def read_png(path: Path):
    """(width, height, rows of RGB(A) byte tuples) for 8-bit RGB/RGBA non-interlaced PNGs."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        filt = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = prev[i]
            ul = prev[i - channels] if i >= channels else 0
            if filt == 1:
                line[i] = (line[i] + left) & 0xFF
            elif filt == 2:
                line[i] = (line[i] + up) & 0xFF
            elif filt == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif filt == 4:
                p = left + up - ul
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - ul)
                pred = left if pa <= pb and pa <= pc else (up if pb <= pc else ul)
                line[i] = (line[i] + pred) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def browser():
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.mark.skipif(browser() is None, reason="chromium not installed (apt-get install -y chromium)")
def test_report_screenshot_is_a_real_page(tmp_path):
    png = tmp_path / "report.png"
    r = subprocess.run([str(SCRIPT), "--demo", str(png), "1400x1000"], capture_output=True, text=True,
                       cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "different: 2 root differences" in r.stdout
    width, height, channels, rows = read_png(png)
    assert (width, height) == (1400, 1000)
    # Sample every 4th pixel of every 4th row: a rendered report has many colours (verdict badge,
    # code, highlights) and a large share of non-background pixels; a blank or error page has not.
    colours, non_white = set(), 0
    samples = 0
    for row in rows[::4]:
        for x in range(0, width * channels, 4 * channels):
            px = row[x:x + 3]
            colours.add(px)
            non_white += px != b"\xff\xff\xff"
            samples += 1
    assert len(colours) > 50, len(colours)
    assert non_white / samples > 0.3
    # The verdict badge (top left) is red: the page rendered our CSS, not a fallback.
    badge = rows[45][60 * channels:60 * channels + 3]
    assert badge[0] > 150 and badge[1] < 90 and badge[2] < 90, badge


def _layout_checker():
    import importlib.util
    spec = importlib.util.spec_from_file_location("check_report_layout", ROOT / "scripts" / "check_report_layout.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(browser() is None, reason="chromium not installed (apt-get install -y chromium)")
def test_reports_are_aligned_wrapped_and_consistent_in_chromium(tmp_path):
    checker = _layout_checker()
    reports = checker.write_examples(tmp_path)
    chromium = checker.find_chromium()
    for report in reports:
        res = checker.measure(chromium, report, 1200, 1400)
        assert checker.problems(report.name, res) == []
        assert res["closed"]["rows"] > 10 and res["open"]["rows"] >= res["closed"]["rows"]
        assert res["chip_matched"] == res["table_matched"] and res["chip_matched"] > 0
    different = checker.measure(chromium, reports[0], 1200, 1400)
    assert different["folds"] >= 1 and different["open"]["rows"] > different["closed"]["rows"]


@pytest.mark.skipif(browser() is None, reason="chromium not installed (apt-get install -y chromium)")
def test_layout_checker_catches_broken_pages(tmp_path):
    checker = _layout_checker()
    report = checker.write_examples(tmp_path)[0]
    page = report.read_text()
    chromium = checker.find_chromium()
    # lines that do not wrap, a same badge white on white, a row with one cell
    broken = page.replace(".ln{white-space:pre-wrap;", ".ln{white-space:pre;") \
                 .replace(".vb.v-same{background:var(--green)}", ".vb.v-same{background:#fff}")
    # a row with one cell: its right line taken out (same-text lines now share rows: gaps are rare)
    broken = re.sub(r'<div class="ln sR[^"]*"[^>]*><span class="no">\d+</span><span class="src">.*?</span></div>', "",
                    broken, count=1)
    broken = broken.replace('<span class="vb v-different">different</span>',
                            '<span class="vb v-same">same</span>', 1)
    bad = tmp_path / "broken.html"
    bad.write_text(broken)
    found = " | ".join(checker.problems("broken", checker.measure(chromium, bad, 1200, 1400)))
    assert "wider than its box" in found and "badge 'same' has contrast" in found and "has 1 cells" in found
