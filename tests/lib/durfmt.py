# SPDX-License-Identifier: GPL-2.0
"""The duration rule of user/lib/fmt.h, written again from its text (decimal arithmetic, not
pwz's code), for the suites to hold pwz's text outputs against:
  dur(ns)          "999 ns", "1.00 us", "22.3 ms", "3600 s"
  dur_range(lo, hi) "134-168 ms", "0.92-1.05 ms", one value when lo == hi, ">=34.4 s" for hi None
The rule: the largest of ns, us, ms, s in which the rounded value is at least 1; three
significant digits (whole ns, whole s from 1000 s); halves up; a range in its top's unit, its
bottom to as many decimals, decimals added while both ends read alike (down to the ns).
"""
from decimal import Decimal, ROUND_HALF_UP

UNITS = [("s", 10 ** 9), ("ms", 10 ** 6), ("us", 10 ** 3), ("ns", 1)]


def _three(v):
    """v (a Decimal > 0) to three significant digits, halves up, a carry re-rounded."""
    q = v.quantize(Decimal(1).scaleb(v.adjusted() - 2), rounding=ROUND_HALF_UP)
    if q.adjusted() > v.adjusted():     # 9.996 -> 10.00: three digits of 10
        q = q.quantize(Decimal(1).scaleb(q.adjusted() - 2), rounding=ROUND_HALF_UP)
    return q


def _pick(ns):
    """(text of the number, unit name, unit size) for ns by the rule."""
    for name, size in UNITS:
        if name == "ns":
            return str(ns), name, size
        v = Decimal(ns) / size
        if v <= 0:
            continue
        if name == "s" and v >= 1000:
            return format(v.quantize(Decimal(1), rounding=ROUND_HALF_UP), "f"), name, size
        q = _three(v)
        if q >= 1:
            return format(q, "f"), name, size
    return str(ns), "ns", 1


def dur(ns):
    num, unit, _ = _pick(int(ns))
    return "%s %s" % (num, unit)


def dur_range(lo, hi):
    if hi is None:
        return ">=" + dur(lo)
    lo, hi = sorted((int(lo), int(hi)))
    if lo == hi:
        return dur(lo)
    num, unit, size = _pick(hi)
    dec = len(num.split(".")[1]) if "." in num else 0
    while True:
        quantum = Decimal(1).scaleb(-dec)
        a = format((Decimal(lo) / size).quantize(quantum, rounding=ROUND_HALF_UP), "f")
        b = format((Decimal(hi) / size).quantize(quantum, rounding=ROUND_HALF_UP), "f")
        if a != b or 10 ** dec >= size:
            return "%s-%s %s" % (a, b, unit)
        dec += 1
