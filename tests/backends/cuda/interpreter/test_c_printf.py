"""C printf conversions (c_printf.py) against the host C library's ``snprintf``: the same text
for each accepted conversion, flag, width, precision and length."""

from __future__ import annotations

import ctypes
import ctypes.util

import pytest

from tirx_mlir.backends.cuda.dialects.cuda.printf_format import conversions
from tirx_mlir.backends.cuda.interpreter.c_printf import format_value

try:
    LIBC = ctypes.CDLL(ctypes.util.find_library("c") or None)
    LIBC.snprintf  # noqa: B018 - probe
except (OSError, AttributeError):  # pragma: no cover - a host without a C library
    LIBC = None

pytestmark = pytest.mark.skipif(LIBC is None, reason="no C library to compare snprintf with")


def c_snprintf(fmt: str, value) -> str:
    buf = ctypes.create_string_buffer(512)
    if isinstance(value, float):
        arg = ctypes.c_double(value)
    elif "ll" in fmt or "l" in fmt:
        arg = ctypes.c_longlong(value)
    else:
        arg = ctypes.c_int(value)
    LIBC.snprintf(buf, 512, fmt.encode(), arg)
    return buf.value.decode()


INTS = [0, 7, -1, 255, 65537, -2**31, 2**31 - 1, 123456789]
INT_FORMATS = ["%d", "%i", "%u", "%x", "%X", "%o", "%#x", "%#o", "%08d", "%-6d|", "%+d", "% d",
               "%.3d", "%6.2x", "%hd", "%hu", "%hhd", "%hhx", "%c", "%3c", "%#08x", "%-#8o|"]
LONGS = [0, -1, 2**40 + 3, -2**63, 2**63 - 1]
LONG_FORMATS = ["%lld", "%llu", "%llx", "%ld", "%lX", "%#llo"]
FLOATS = [0.0, -0.0, 1.0, 3.0, -2.5, 1e-7, 123456.789, 1e300, 5e-324, 2.2250738585072014e-308,
          float("inf"), -float("inf"), 0.1, 1 / 3]
FLOAT_FORMATS = ["%f", "%.2f", "%10.3f", "%-10.1f|", "%+e", "%E", "%.0e", "%g", "%G", "%#g",
                 "%.3g", "%a", "%A", "%.2a", "%.0a", "%#.0a", "%12a", "%012a", "%+a", "%F"]


@pytest.mark.parametrize("fmt", INT_FORMATS)
def test_integer_conversions_match_c(fmt):
    (conv,) = conversions(fmt.rstrip("|"))
    for value in INTS:
        if conv.conversion == "c" and not 32 <= value % 256 < 127:
            continue
        assert format_value(conv, value) == c_snprintf(conv.text, value), (fmt, value)


@pytest.mark.parametrize("fmt", LONG_FORMATS)
def test_long_conversions_match_c(fmt):
    (conv,) = conversions(fmt)
    for value in LONGS:
        assert format_value(conv, value) == c_snprintf(fmt, value), (fmt, value)


@pytest.mark.parametrize("fmt", FLOAT_FORMATS)
def test_float_conversions_match_c(fmt):
    (conv,) = conversions(fmt.rstrip("|"))
    for value in FLOATS:
        assert format_value(conv, value) == c_snprintf(conv.text, value), (fmt, value)
