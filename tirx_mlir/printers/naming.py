"""Identifiers for emitted source: IR names made safe (`sanitize`) and unique (`Namer`).

A symbol or value name in the IR is arbitrary text (``@"__import__"``, ``@"a-b"``,
``@"ядро"``); an emitted identifier is ``[A-Za-z][A-Za-z0-9_]*``, valid and unreserved in
Python, C and C++ alike:

* ASCII letters, digits and ``_`` stay; any other ASCII character becomes ``_``;
* a non-ASCII character becomes the ASCII letters of its compatibility decomposition where it
  has them (``é`` -> ``e``, ``ﬁ`` -> ``fi``), else an escape of its code point (``я`` ->
  ``_u044f``, ``_U0001f600`` above U+FFFF), so the spelling is readable and stable;
* a name that does not then start with a letter gets a ``v`` prefix (``__import__`` ->
  ``v__import__``, ``0x`` -> ``v0x``, the empty name -> ``v``): no emitted name is a dunder or
  one of C's reserved ``_X`` / ``__x`` forms.

`Namer.fresh` hands out each identifier once: a name already taken (a reserved word of the
language, or an earlier name) gets the first free ``_1``, ``_2``, ... suffix. Names are taken in
program order, so two IR names that sanitise alike (``@"a-b"``, ``@a_b``) print as two
identifiers, the same two on every run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_ASCII_NON_WORD = re.compile(r"[^A-Za-z0-9_]")


def _ascii_spelling(char: str) -> str:
    if char.isascii():
        return _ASCII_NON_WORD.sub("_", char)
    import unicodedata  # a C extension, ~0.25 ms to load: only for a name that needs it

    decomposed = unicodedata.normalize("NFKD", char)
    letters = "".join(c for c in decomposed if c.isascii() and c.isalnum())
    if letters:
        return letters
    code = ord(char)
    return f"_u{code:04x}" if code <= 0xFFFF else f"_U{code:08x}"


def sanitize(name: str) -> str:
    """An identifier made from ``name`` (rules in the module docstring)."""
    ident = _ASCII_NON_WORD.sub("_", name) if name.isascii() else \
        "".join(map(_ascii_spelling, name))
    if not ident[:1].isalpha():
        ident = "v" + ident
    return ident


class Namer:
    """Unique, sanitized identifiers; ``reserved`` names are never handed out."""

    def __init__(self, reserved: Iterable[str] = ()) -> None:
        self.used: set[str] = set(reserved)
        # the suffix `fresh` last gave each base: every lower one is taken (names are never
        # released), so the search for the first free one resumes there, not at ``_1`` (a
        # kernel's hundreds of ``mma_sync`` names each probed all the earlier ones)
        self._suffix: dict[str, int] = {}

    def fresh(self, hint: str) -> str:
        base = sanitize(hint)
        used = self.used
        if base not in used:
            used.add(base)
            return base
        n = self._suffix.get(base, 0) + 1
        name = f"{base}_{n}"
        while name in used:
            n += 1
            name = f"{base}_{n}"
        self._suffix[base] = n
        used.add(name)
        return name
