#!/usr/bin/env python3
"""Regenerate the README's report screenshots (docs/images/) from the real reports, in headless Chromium.

    python3 scripts/screenshots.py [--out docs/images]

Shot, each after the layout check of scripts/check_report_layout.py passes on it (a broken page
never becomes a picture) and after its verdict is the one the caption claims:

* report-port-equivalent.png: the softmax reference (f32_row_m4_n1024) against its Rust port:
  EQUIVALENT, with what the rules absorbed grouped above the side by side;
* report-port-wrong.png: an independently written flash_decode port with an off-by-one key mask
  (tests/corpus/independent/flash_decode_mask_off_by_one): DIFFERENT, the cmpi root last;
* report-big-kernel.png: the flash_attention reference (bf16_d128_causal, ~500 printed rows)
  against its Rust port: top of the page;
* report-different.png, report-equivalent.png, report-accepted.png: check_report_layout.py's
  examples (a planted bug, a dead constant, the rms_norm backward port with its accepted
  differences; docs/cli.md links them).

Needs Chromium and the reference export in build/reference (`bash scripts/test.sh` or
`tileir-diff suite export` builds it). Each PNG is re-encoded with a 256-colour palette (a weighted
k-means over the screenshot's own colours: text and badges look the same) to stay near 100-200 KB.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import struct
import sys
import tempfile
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

REFERENCE = Path("build") / "reference"
# (picture, reference, port, verdict it must have, window width x height)
PAIRS = (
    ("report-port-equivalent.png", REFERENCE / "softmax" / "f32_row_m4_n1024.tileirbc",
     Path("tests/corpus/rust/softmax.f32_row_m4_n1024.tileirbc"), "equivalent", (1280, 1000)),
    ("report-port-wrong.png", Path("tests/corpus/independent/reference/flash_decode.partial_f16_d64_g8.tileirbc"),
     Path("tests/corpus/independent/flash_decode_mask_off_by_one.tileirbc"), "different", (1280, 1100)),
    ("report-big-kernel.png", REFERENCE / "flash_attention" / "bf16_d128_causal.tileirbc",
     Path("tests/corpus/rust/flash_attention.bf16_d128_causal.tileirbc"), "equivalent", (1280, 1200)),
)
EXAMPLE_SIZE = (1400, 1800)


def _layout_checker():
    spec = importlib.util.spec_from_file_location("check_report_layout", ROOT / "scripts" / "check_report_layout.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _chunks(data: bytes):
    pos = 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        yield kind, data[pos + 8:pos + 8 + length]
        pos += 12 + length


def _unfilter(line: np.ndarray, prev: np.ndarray, kind: int, channels: int) -> np.ndarray:
    """One scanline of a PNG undone from its filter (PNG spec 9.2), as int32 bytes."""
    if kind == 0:
        return line
    if kind == 1:
        return (np.cumsum(line.reshape(-1, channels), axis=0) & 255).reshape(-1)
    if kind == 2:
        return (line + prev) & 255
    out, up = line.tolist(), prev.tolist()
    for i in range(len(out)):
        a = out[i - channels] if i >= channels else 0
        b, c = up[i], (up[i - channels] if i >= channels else 0)
        if kind == 3:
            out[i] = (out[i] + (a + b) // 2) & 255
        else:  # Paeth
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            out[i] = (out[i] + (a if pa <= pb and pa <= pc else (b if pb <= pc else c))) & 255
    return np.array(out, np.int32)


def read_rgb(data: bytes) -> np.ndarray:
    """(height, width, 3) uint8 pixels of an 8-bit RGB or RGBA non-interlaced PNG (what Chromium writes)."""
    header = next(body for kind, body in _chunks(data) if kind == b"IHDR")
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unexpected PNG layout {(depth, colour, interlace)}")
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(body for kind, body in _chunks(data) if kind == b"IDAT"))
    stride = width * channels
    pixels = np.zeros((height, stride), np.uint8)
    prev = np.zeros(stride, np.int32)
    for y in range(height):
        start = y * (stride + 1)
        line = np.frombuffer(raw, np.uint8, stride, start + 1).astype(np.int32)
        prev = _unfilter(line, prev, raw[start], channels)
        pixels[y] = prev
    return pixels.reshape(height, width, channels)[:, :, :3]


def palette_png(rgb: np.ndarray, colours: int = 256, rounds: int = 8) -> bytes:
    """RGB pixels as an indexed PNG: a weighted k-means over the distinct colours, seeded with the
    most frequent ones (backgrounds, text), so flat areas keep their exact colour."""
    packed = (rgb[..., 0].astype(np.uint32) << 16) | (rgb[..., 1].astype(np.uint32) << 8) | rgb[..., 2]
    distinct, index, counts = np.unique(packed.reshape(-1), return_inverse=True, return_counts=True)
    points = np.stack([(distinct >> 16) & 255, (distinct >> 8) & 255, distinct & 255], 1).astype(np.float64)
    palette = points[np.argsort(-counts, kind="stable")[:colours]].copy()
    weights = counts.astype(np.float64)
    for _ in range(rounds if len(points) > colours else 0):
        nearest = ((points[:, None, :] - palette[None, :, :]) ** 2).sum(2).argmin(1)
        for k in range(len(palette)):
            members = nearest == k
            if members.any():
                palette[k] = (points[members] * weights[members, None]).sum(0) / weights[members].sum()
    palette = np.clip(np.rint(palette), 0, 255)
    nearest = ((points[:, None, :] - palette[None, :, :]) ** 2).sum(2).argmin(1).astype(np.uint8)
    indexed = nearest[index].reshape(rgb.shape[:2])
    height, width = indexed.shape
    scanlines = b"".join(b"\x00" + indexed[y].tobytes() for y in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0))
            + chunk(b"PLTE", palette.astype(np.uint8).tobytes()) + chunk(b"IDAT", zlib.compress(scanlines, 9))
            + chunk(b"IEND", b""))


def shoot(checker, browser: str, report: Path, out: Path, size) -> None:
    """Check REPORT's layout, then save its top WIDTH x HEIGHT as a palette PNG at OUT."""
    found = checker.problems(report.name, checker.measure(browser, report, *size))
    if found:
        raise SystemExit("layout problems, no screenshot taken:\n" + "\n".join(found))
    with tempfile.TemporaryDirectory() as t:
        shot = Path(t) / "shot.png"
        checker.screenshot(browser, report, shot, *size)
        out.write_bytes(palette_png(read_rgb(shot.read_bytes())))
    print(f"{out}: {out.stat().st_size // 1024} KB")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "images", help="folder for the PNGs")
    args = ap.parse_args(argv)
    out = args.out.resolve()
    checker = _layout_checker()
    browser = checker.find_chromium()
    if browser is None:
        print("chromium not found (apt-get install -y chromium)", file=sys.stderr)
        return 2
    os.chdir(ROOT)  # the reports name their inputs as given: repository-relative paths
    missing = [str(p) for _, left, right, _, _ in PAIRS for p in (left, right) if not p.is_file()]
    if missing:
        print(f"missing: {', '.join(missing)} (build the reference export first: bash scripts/test.sh)",
              file=sys.stderr)
        return 2
    import tileir_diff
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as t:
        for picture, left, right, verdict, size in PAIRS:
            result = tileir_diff.diff(str(left), str(right))
            if result.verdict != verdict:
                print(f"{left} vs {right}: {result.verdict}, the caption says {verdict}", file=sys.stderr)
                return 1
            report = Path(t) / picture.replace(".png", ".html")
            report.write_text(result.to_html(), encoding="utf-8")
            shoot(checker, browser, report, out / picture, size)
        for report in checker.write_examples(Path(t) / "examples"):
            shoot(checker, browser, report, out / f"{report.stem}.png", EXAMPLE_SIZE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
