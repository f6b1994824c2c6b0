"""The attribute-key memo tables (normalize/canon.py) are bounded in bytes, not only in entries:
a dense constant's key spells its data and the by-identity table keeps the constant alive, so a
process that diffs many kernels with large tables (a server) would otherwise hold up to 200,000
of them."""
from __future__ import annotations

from tileir_diff.ir.attributes import DenseElements
from tileir_diff.ir.types import ScalarType, TileType
from tileir_diff.normalize import canon

TABLE = 64 << 10  # a 64 KiB constant: its key is 128 Ki hex characters


def _held_bytes() -> int:
    """What the by-identity table holds: each kept constant's data and key."""
    return sum(len(k) + (len(v.data) if type(v) is DenseElements else 0) for v, k in canon._KEY_BY_ID.values())


def _keys_of_distinct_tables(n: int):
    t = TileType((TABLE // 4,), ScalarType("i32"))
    alive = []
    for i in range(n):
        d = DenseElements(t, i.to_bytes(4, "little") * (TABLE // 4 - 1) + b"\x01\x02\x03\x04")
        alive.append(d)  # (alive: an id is not reused under the table)
        assert canon.attr_key(d).startswith("dense<")
    return alive


def test_large_constants_stay_within_the_byte_bound(monkeypatch):
    monkeypatch.setattr(canon, "_MEMO_BYTES", 4 << 20)
    canon._KEY_BY_ID.clear()
    canon._memo_bytes["by_id"] = 0
    _keys_of_distinct_tables(200)  # 200 * (64 Ki + 128 Ki) = 37.5 MiB of data and keys
    assert 0 < _held_bytes() <= 4 << 20
    assert canon._memo_bytes["by_id"] == _held_bytes()


def test_keys_stay_correct_across_an_emptying(monkeypatch):
    monkeypatch.setattr(canon, "_MEMO_BYTES", 1 << 20)
    alive = _keys_of_distinct_tables(20)
    again = [canon.attr_key(d) for d in alive]
    fresh = [canon._dense_key(d) for d in alive]
    assert again == fresh and len(set(again)) == 20


def test_without_the_byte_bound_the_table_holds_them_all(monkeypatch):
    """The mutant: an entry bound alone keeps every constant and key."""
    monkeypatch.setattr(canon, "_MEMO_BYTES", 1 << 40)
    canon._KEY_BY_ID.clear()
    canon._memo_bytes["by_id"] = 0
    _keys_of_distinct_tables(200)
    assert _held_bytes() > 30 << 20
    canon._KEY_BY_ID.clear()
    canon._memo_bytes["by_id"] = 0
