"""Limits shared by the bytecode reader, the text parser, the verifier and the bytecode writer.

Every limit is far above what a real kernel needs (cuTile kernels nest regions fewer than 10
deep and use tiles of at most a few thousand elements) and far below what would let an input of
a few bytes claim gigabytes of memory or exhaust Python's stack. Input beyond a limit is refused
with a ``TileIRFormatError`` naming the limit, never truncated or guessed at.

Where NVIDIA's verifier has the same rule the value is NVIDIA's (``MAX_TILE_ELEMENTS``, tile
dimensions positive powers of two, 64-bit tensor_view dimensions, 32-bit view tile shapes).
"""
from __future__ import annotations

#: Files larger than this are refused (read with a bounded read: devices and FIFOs report no size).
MAX_INPUT_BYTES = 256 * 1024 * 1024

#: Regions nest at most this deep (bytecode and text). JSON output, normalization and the graph
#: walk nested regions recursively; 64 levels leave them a wide margin under Python's stack.
MAX_REGION_DEPTH = 64

#: A location's call-site chain (``Location.caller``, one per inlined call) is at most this long.
#: Either reader can build a chain without nesting (text aliases and bytecode debug attributes
#: refer to earlier ones), so without the limit a file could make one deeper than Python's stack
#: for every later stage that compares or hashes locations.
MAX_CALLSITE_DEPTH = 64

#: Attributes (arrays, dictionaries) and types (views of tensor_views of pointers) nest at most
#: this deep.
MAX_NESTING_DEPTH = 32

#: A tile has at most this many elements (NVIDIA's ``maxTileNumElements``, 2^24); every dimension
#: is a positive power of two.
MAX_TILE_ELEMENTS = 1 << 24

#: tensor_view dimensions and strides are positive 64-bit integers (or dynamic).
MAX_DIM = (1 << 63) - 1

#: View tile shapes, dim maps and traversal strides are 32-bit (as in the bytecode).
MAX_I32 = (1 << 31) - 1
MIN_I32 = -(1 << 31)

#: 64-bit signed range of integer attributes, predicate bounds and ``same_elements`` values.
MIN_I64 = -(1 << 63)
MAX_I64 = (1 << 63) - 1
MAX_U64 = (1 << 64) - 1

#: Results (and operands) of one op: what ``%r:N`` may claim in text.
MAX_VALUES_PER_OP = 1 << 16

#: Characters of one number literal in text (digits, sign, point, exponent), and the largest
#: decimal exponent of a float literal: beyond them a number is refused rather than turned into
#: a huge exact fraction (a float of 10^999999 would take minutes and gigabytes).
MAX_NUMBER_CHARS = 256
MAX_FLOAT_EXPONENT = 9999


def is_power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0
