"""C ``printf`` conversions of one value, as device ``printf`` prints them (C11 7.21.6.1): the
formatting half of ``cuda.printf``; the accepted format language is stated once in
dialects/cuda/printf_format.py (`pieces`).

Integers are C's: an argument promotes to ``int`` (``long long`` with ``l``/``ll``), then the
length (``hh``/``h``/none/``l``) truncates it to 8/16/32/64 bits; ``d``/``i`` read the result
signed, ``u``/``x``/``X``/``o`` unsigned, ``c`` prints its low byte. Floats promote to double;
``a``/``A`` print C's hexadecimal form (``0x1.8p+1``), which Python's ``%`` lacks.
"""

from __future__ import annotations

import math

from tirx_mlir.backends.cuda.dialects.cuda.printf_format import Conversion

_BITS = {"hh": 8, "h": 16, "": 32, "l": 64, "ll": 64}


def format_value(conv: Conversion, value: int | float) -> str:
    """``value`` (a Python int for an integer conversion, a float otherwise) formatted."""
    if conv.is_float:
        if conv.conversion in "aA":
            return _hex_float(conv, float(value))
        return _spec(conv, conv.conversion) % float(value)
    bits = _BITS[conv.length]
    unsigned = int(value) & ((1 << bits) - 1)
    if conv.conversion == "c":
        return _pad(chr(unsigned & 0xFF), conv.flags.replace("0", ""), conv.width)
    if conv.conversion in "di":
        signed = unsigned - (1 << bits) if unsigned >> (bits - 1) else unsigned
        return _spec(conv, "d") % signed
    if conv.conversion == "o" and "#" in conv.flags:  # C's prefix is "0", Python's "0o"
        digits = _spec(conv, "o", flags=conv.flags.replace("#", ""), width="") % unsigned
        return _pad(digits if digits.startswith("0") else "0" + digits, conv.flags,
                    conv.width, zeros=conv.precision is None)
    flags = conv.flags.replace("#", "") if unsigned == 0 else conv.flags  # C: no 0x for zero
    return _spec(conv, "d" if conv.conversion == "u" else conv.conversion, flags) % unsigned


def _spec(conv: Conversion, letter: str, flags: str | None = None,
          width: str | None = None) -> str:
    precision = "" if conv.precision is None else f".{conv.precision}"
    return (f"%{conv.flags if flags is None else flags}"
            f"{conv.width if width is None else width}{precision}{letter}")


def _pad(body: str, flags: str, width: str, zeros: bool = True) -> str:
    """``body`` padded to ``width``: left-justified with ``-``, zero-filled after its sign and
    ``0x`` prefix with ``0``, else right-justified with spaces."""
    n = int(width) if width else 0
    if len(body) >= n:
        return body
    if "-" in flags:
        return body.ljust(n)
    if "0" in flags and zeros:
        head = 1 if body[:1] in "+- " else 0
        if body[head:head + 2].lower() == "0x":
            head += 2
        return body[:head] + "0" * (n - len(body)) + body[head:]
    return body.rjust(n)


def _hex_float(conv: Conversion, x: float) -> str:
    sign = "-" if math.copysign(1.0, x) < 0 else "+" if "+" in conv.flags else \
        " " if " " in conv.flags else ""
    if not math.isfinite(x):
        body = "inf" if math.isinf(x) else "nan"
        return _pad(sign + (body.upper() if conv.conversion == "A" else body),
                    conv.flags, conv.width, zeros=False)
    x = abs(x)
    if x == 0.0:
        lead, frac, exp = 0, 0, 0
    else:
        m, e = math.frexp(x)  # x = m * 2**e, 0.5 <= m < 1
        if e < -1021:  # subnormal: C prints 0x0.<digits>p-1022
            lead, frac, exp = 0, int(math.ldexp(x, 1074)), -1022
        else:
            lead, frac, exp = 1, int((m * 2 - 1) * 2 ** 52), e - 1
    digits = f"{frac:013x}"
    if conv.precision is None:
        digits = digits.rstrip("0")
    else:
        p = int(conv.precision or 0)
        if p < 13:
            scaled = frac / 16 ** (13 - p)
            q = math.floor(scaled)
            last = q if p else lead  # the digit a tie rounds to even
            if scaled - q > 0.5 or (scaled - q == 0.5 and last % 2):
                q += 1
            if q >= 16 ** p:  # the rounding carried into the leading digit
                lead, q = lead + 1, q - 16 ** p
            digits = f"{q:0{p}x}" if p else ""
        else:
            digits = digits + "0" * (p - 13)
    point = "." if digits or "#" in conv.flags else ""
    body = f"{sign}0x{lead}{point}{digits}p{exp:+d}"
    return _pad(body.upper() if conv.conversion == "A" else body, conv.flags, conv.width)
