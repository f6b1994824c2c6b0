"""errors.printable: every character of errors._UNSAFE_CHARS escaped, everything else kept, the
same with and without its fast path for text ``str.isprintable`` accepts."""
import re

from tileir_diff import errors
from tileir_diff.errors import printable


def _by_pattern(s: str) -> str:
    return re.sub(errors._UNSAFE_CHARS, errors._escape, s)


def test_every_code_point_as_the_pattern_escapes_it():
    for c in range(0x110000):
        if 0xD800 <= c < 0xE000:
            continue
        s = f"a{chr(c)}b"
        assert printable(s) == _by_pattern(s), hex(c)


def test_controls_separators_and_bidi_marks_are_escaped():
    assert printable("a\nb\x1b[31m\x85\u2028\u202e\ufeff") == "a\\x0ab\\x1b[31m\\x85\\u2028\\u202e\\ufeff"
    assert printable("@f ↔ @g ×2, caf\u00e9") == "@f ↔ @g ×2, caf\u00e9"
    assert printable(12) == "12" and printable("") == ""
