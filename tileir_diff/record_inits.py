"""The ``__init__`` templates of the record shapes the package uses, compiled ahead: written by
``python3 scripts/record_inits.py`` from ``record.template_source`` (do not edit; see record.py)."""
# ruff: noqa
# mypy: ignore-errors
from __future__ import annotations

from types import CodeType
from typing import Dict, Tuple

#: (shape, has __post_init__, mutable) -> the template's code
PRECOMPILED: Dict[Tuple[str, bool, bool], CodeType] = {}


def __init__(self):
    pass


PRECOMPILED[('', False, False)] = __init__.__code__


def __init__(self, a0, a1, a2, a3, a4, a5, a6, a7, a8):
    self.n0 = _f0() if a0 is _FACTORY else a0
    self.n1 = _f1() if a1 is _FACTORY else a1
    self.n2 = _f2() if a2 is _FACTORY else a2
    self.n3 = _f3() if a3 is _FACTORY else a3
    self.n4 = _f4() if a4 is _FACTORY else a4
    self.n5 = _f5() if a5 is _FACTORY else a5
    self.n6 = _f6() if a6 is _FACTORY else a6
    self.n7 = _f7() if a7 is _FACTORY else a7
    self.n8 = _f8() if a8 is _FACTORY else a8
    pass


PRECOMPILED[('PPPPPPPPP', False, True)] = __init__.__code__


def __init__(self, a0):
    _SET(self, 'n0', a0)
    pass


PRECOMPILED[('p', False, False)] = __init__.__code__


def __init__(self, a0, a1, a2):
    self.n0 = a0
    self.n1 = _f1() if a1 is _FACTORY else a1
    self.n2 = _f2() if a2 is _FACTORY else a2
    pass


PRECOMPILED[('pPP', False, True)] = __init__.__code__


def __init__(self, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11):
    self.n0 = a0
    self.n1 = _f1() if a1 is _FACTORY else a1
    self.n2 = _f2() if a2 is _FACTORY else a2
    self.n3 = _f3() if a3 is _FACTORY else a3
    self.n4 = _f4() if a4 is _FACTORY else a4
    self.n5 = _f5() if a5 is _FACTORY else a5
    self.n6 = _f6() if a6 is _FACTORY else a6
    self.n7 = _f7() if a7 is _FACTORY else a7
    self.n8 = _f8() if a8 is _FACTORY else a8
    self.n9 = _f9() if a9 is _FACTORY else a9
    self.n10 = _f10() if a10 is _FACTORY else a10
    self.n11 = _f11() if a11 is _FACTORY else a11
    pass


PRECOMPILED[('pPPPPPPPPPPP', False, True)] = __init__.__code__


def __init__(self, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9):
    self.n0 = a0
    self.n1 = _f1() if a1 is _FACTORY else a1
    self.n2 = _f2() if a2 is _FACTORY else a2
    self.n3 = _f3() if a3 is _FACTORY else a3
    self.n4 = _f4() if a4 is _FACTORY else a4
    self.n5 = a5
    self.n6 = a6
    self.n7 = a7
    self.n8 = _f8() if a8 is _FACTORY else a8
    self.n9 = _f9() if a9 is _FACTORY else a9
    pass


PRECOMPILED[('pPPPPpppPP', False, True)] = __init__.__code__


def __init__(self, a0, a1):
    _SET(self, 'n0', a0)
    _SET(self, 'n1', a1)
    pass


PRECOMPILED[('pp', False, False)] = __init__.__code__


def __init__(self, a0, a1):
    self.n0 = a0
    self.n1 = a1
    pass


PRECOMPILED[('pp', False, True)] = __init__.__code__


def __init__(self, a0, a1):
    _SET(self, 'n0', a0)
    _SET(self, 'n1', a1)
    self.__post_init__()


PRECOMPILED[('pp----', True, False)] = __init__.__code__


def __init__(self, a0, a1, a2):
    _SET(self, 'n0', a0)
    _SET(self, 'n1', a1)
    _SET(self, 'n2', _f2() if a2 is _FACTORY else a2)
    pass


PRECOMPILED[('ppP', False, False)] = __init__.__code__


def __init__(self, a0, a1, a2, a3, a4, a5, a6):
    self.n0 = a0
    self.n1 = a1
    self.n2 = _f2() if a2 is _FACTORY else a2
    self.n3 = _f3() if a3 is _FACTORY else a3
    self.n4 = _f4() if a4 is _FACTORY else a4
    self.n5 = _f5() if a5 is _FACTORY else a5
    self.n6 = _f6() if a6 is _FACTORY else a6
    pass


PRECOMPILED[('ppPPPPP', False, True)] = __init__.__code__


def __init__(self, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9):
    self.n0 = a0
    self.n1 = a1
    self.n2 = _f2() if a2 is _FACTORY else a2
    self.n3 = _f3() if a3 is _FACTORY else a3
    self.n4 = a4
    self.n5 = a5
    self.n6 = _f6() if a6 is _FACTORY else a6
    self.n7 = _f7() if a7 is _FACTORY else a7
    self.n8 = _f8() if a8 is _FACTORY else a8
    self.n9 = _f9() if a9 is _FACTORY else a9
    pass


PRECOMPILED[('ppPPppPPPP', False, True)] = __init__.__code__


def __init__(self, a0, a1, a2):
    _SET(self, 'n0', a0)
    _SET(self, 'n1', a1)
    _SET(self, 'n2', a2)
    pass


PRECOMPILED[('ppp', False, False)] = __init__.__code__


def __init__(self, a0, a1, a2):
    self.n0 = a0
    self.n1 = a1
    self.n2 = a2
    pass


PRECOMPILED[('ppp', False, True)] = __init__.__code__


def __init__(self, a0, a1, a2, a3, a4, a5):
    _SET(self, 'n0', a0)
    _SET(self, 'n1', a1)
    _SET(self, 'n2', a2)
    _SET(self, 'n3', _f3() if a3 is _FACTORY else a3)
    _SET(self, 'n4', a4)
    _SET(self, 'n5', a5)
    pass


PRECOMPILED[('pppPpp', False, False)] = __init__.__code__


def __init__(self, a0, a1, a2, a3):
    _SET(self, 'n0', a0)
    _SET(self, 'n1', a1)
    _SET(self, 'n2', a2)
    _SET(self, 'n3', a3)
    pass


PRECOMPILED[('pppp', False, False)] = __init__.__code__


def __init__(self, a0, a1, a2, a3):
    self.n0 = a0
    self.n1 = a1
    self.n2 = a2
    self.n3 = a3
    pass


PRECOMPILED[('pppp', False, True)] = __init__.__code__


def __init__(self, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11):
    self.n0 = a0
    self.n1 = a1
    self.n2 = a2
    self.n3 = a3
    self.n4 = _f4() if a4 is _FACTORY else a4
    self.n5 = _f5() if a5 is _FACTORY else a5
    self.n6 = a6
    self.n7 = a7
    self.n8 = _f8() if a8 is _FACTORY else a8
    self.n9 = _f9() if a9 is _FACTORY else a9
    self.n10 = _f10() if a10 is _FACTORY else a10
    self.n11 = _f11() if a11 is _FACTORY else a11
    pass


PRECOMPILED[('ppppPPppPPPP', False, True)] = __init__.__code__


def __init__(self, a0, a1, a2, a3, a4, a5, a6, a7):
    _SET(self, 'n0', a0)
    _SET(self, 'n1', a1)
    _SET(self, 'n2', a2)
    _SET(self, 'n3', a3)
    _SET(self, 'n4', _f4() if a4 is _FACTORY else a4)
    _SET(self, 'n5', a5)
    _SET(self, 'n6', a6)
    _SET(self, 'n7', a7)
    pass


PRECOMPILED[('ppppPppp', False, False)] = __init__.__code__


def __init__(self, a0, a1, a2, a3, a4):
    _SET(self, 'n0', a0)
    _SET(self, 'n1', a1)
    _SET(self, 'n2', a2)
    _SET(self, 'n3', a3)
    _SET(self, 'n4', a4)
    pass


PRECOMPILED[('ppppp', False, False)] = __init__.__code__


def __init__(self, a0, a1, a2, a3, a4, a5):
    _SET(self, 'n0', a0)
    _SET(self, 'n1', a1)
    _SET(self, 'n2', a2)
    _SET(self, 'n3', a3)
    _SET(self, 'n4', a4)
    _SET(self, 'n5', _f5() if a5 is _FACTORY else a5)
    pass


PRECOMPILED[('pppppP', False, False)] = __init__.__code__


def __init__(self, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13):
    self.n0 = a0
    self.n1 = a1
    self.n2 = a2
    self.n3 = a3
    self.n4 = a4
    self.n5 = _f5() if a5 is _FACTORY else a5
    self.n6 = _f6() if a6 is _FACTORY else a6
    self.n7 = a7
    self.n8 = _f8() if a8 is _FACTORY else a8
    self.n9 = _f9() if a9 is _FACTORY else a9
    self.n10 = a10
    self.n11 = a11
    self.n12 = _f12() if a12 is _FACTORY else a12
    self.n13 = a13
    self.__post_init__()


PRECOMPILED[('pppppPPpPPppPp', True, True)] = __init__.__code__


def __init__(self, a0, a1, a2, a3, a4, a5):
    _SET(self, 'n0', a0)
    _SET(self, 'n1', a1)
    _SET(self, 'n2', a2)
    _SET(self, 'n3', a3)
    _SET(self, 'n4', a4)
    _SET(self, 'n5', a5)
    pass


PRECOMPILED[('pppppp', False, False)] = __init__.__code__


def __init__(self, a0, a1, a2, a3, a4, a5, a6):
    _SET(self, 'n0', a0)
    _SET(self, 'n1', a1)
    _SET(self, 'n2', a2)
    _SET(self, 'n3', a3)
    _SET(self, 'n4', a4)
    _SET(self, 'n5', a5)
    _SET(self, 'n6', a6)
    pass


PRECOMPILED[('ppppppp', False, False)] = __init__.__code__


def __init__(self, a0, a1, a2, a3, a4, a5, a6, a7):
    _SET(self, 'n0', a0)
    _SET(self, 'n1', a1)
    _SET(self, 'n2', a2)
    _SET(self, 'n3', a3)
    _SET(self, 'n4', a4)
    _SET(self, 'n5', a5)
    _SET(self, 'n6', a6)
    _SET(self, 'n7', a7)
    pass


PRECOMPILED[('pppppppp', False, False)] = __init__.__code__


def __init__(self, a0, a1, a2, a3, a4, a5, a6, a7, a8):
    _SET(self, 'n0', a0)
    _SET(self, 'n1', a1)
    _SET(self, 'n2', a2)
    _SET(self, 'n3', a3)
    _SET(self, 'n4', a4)
    _SET(self, 'n5', a5)
    _SET(self, 'n6', a6)
    _SET(self, 'n7', a7)
    _SET(self, 'n8', a8)
    pass


PRECOMPILED[('ppppppppp', False, False)] = __init__.__code__


def __init__(self, a0, a1, a2, a3, a4, a5, a6, a7, a8):
    self.n0 = a0
    self.n1 = a1
    self.n2 = a2
    self.n3 = a3
    self.n4 = a4
    self.n5 = a5
    self.n6 = a6
    self.n7 = a7
    self.n8 = a8
    pass


PRECOMPILED[('ppppppppp', False, True)] = __init__.__code__


def __init__(self, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10):
    _SET(self, 'n0', a0)
    _SET(self, 'n1', a1)
    _SET(self, 'n2', a2)
    _SET(self, 'n3', a3)
    _SET(self, 'n4', a4)
    _SET(self, 'n5', a5)
    _SET(self, 'n6', a6)
    _SET(self, 'n7', a7)
    _SET(self, 'n8', a8)
    _SET(self, 'n9', _f9() if a9 is _FACTORY else a9)
    _SET(self, 'n10', a10)
    self.__post_init__()


PRECOMPILED[('pppppppppPp', True, False)] = __init__.__code__


def __init__(self, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9):
    _SET(self, 'n0', a0)
    _SET(self, 'n1', a1)
    _SET(self, 'n2', a2)
    _SET(self, 'n3', a3)
    _SET(self, 'n4', a4)
    _SET(self, 'n5', a5)
    _SET(self, 'n6', a6)
    _SET(self, 'n7', a7)
    _SET(self, 'n8', a8)
    _SET(self, 'n9', a9)
    pass


PRECOMPILED[('pppppppppp', False, False)] = __init__.__code__


def __init__(self, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16):
    _SET(self, 'n0', a0)
    _SET(self, 'n1', a1)
    _SET(self, 'n2', a2)
    _SET(self, 'n3', a3)
    _SET(self, 'n4', a4)
    _SET(self, 'n5', a5)
    _SET(self, 'n6', a6)
    _SET(self, 'n7', a7)
    _SET(self, 'n8', a8)
    _SET(self, 'n9', a9)
    _SET(self, 'n10', _f10() if a10 is _FACTORY else a10)
    _SET(self, 'n11', _f11() if a11 is _FACTORY else a11)
    _SET(self, 'n12', _f12() if a12 is _FACTORY else a12)
    _SET(self, 'n13', a13)
    _SET(self, 'n14', _f14() if a14 is _FACTORY else a14)
    _SET(self, 'n15', a15)
    _SET(self, 'n16', _f16() if a16 is _FACTORY else a16)
    self.__post_init__()


PRECOMPILED[('ppppppppppPPPpPpP', True, False)] = __init__.__code__


def __init__(self, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10):
    _SET(self, 'n0', a0)
    _SET(self, 'n1', a1)
    _SET(self, 'n2', a2)
    _SET(self, 'n3', a3)
    _SET(self, 'n4', a4)
    _SET(self, 'n5', a5)
    _SET(self, 'n6', a6)
    _SET(self, 'n7', a7)
    _SET(self, 'n8', a8)
    _SET(self, 'n9', a9)
    _SET(self, 'n10', a10)
    pass


PRECOMPILED[('ppppppppppp', False, False)] = __init__.__code__


def __init__(self, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15):
    _SET(self, 'n0', a0)
    _SET(self, 'n1', a1)
    _SET(self, 'n2', a2)
    _SET(self, 'n3', a3)
    _SET(self, 'n4', a4)
    _SET(self, 'n5', a5)
    _SET(self, 'n6', a6)
    _SET(self, 'n7', a7)
    _SET(self, 'n8', a8)
    _SET(self, 'n9', a9)
    _SET(self, 'n10', a10)
    _SET(self, 'n11', a11)
    _SET(self, 'n12', a12)
    _SET(self, 'n13', a13)
    _SET(self, 'n14', a14)
    _SET(self, 'n15', a15)
    self.__post_init__()


PRECOMPILED[('pppppppppppppppp', True, False)] = __init__.__code__


del __init__
