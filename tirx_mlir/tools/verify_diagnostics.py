"""``tirx-opt --verify-diagnostics``: mlir-opt's diagnostic verifier.

The input states the diagnostics it expects in comments, and the run fails (exit 1) unless the
diagnostics produced and the expected ones are the same, per ``--split-input-file`` chunk:

    // expected-error {{must be a power of two}}          the diagnostic is on this line
    // expected-error@+1 {{...}}   @-2, @above, @below     ... N lines below/above, the next/previous
    // expected-error-re {{operand {{[0-9]+}} is}}         {{...}} parts of the text are regexes
    // expected-warning / -remark / -note {{...}}          other severities

The text between the outer ``{{ }}`` must occur in the diagnostic's message (a substring; in
the ``-re`` form each inner ``{{...}}`` is a regular expression). A diagnostic no expectation
matches is reported as unexpected, an expectation nothing matched as not produced, each at its
``file:line``; diagnostics raised by passes (a dispatch failure) count like parse and verifier
errors. The driver stops a chunk at its first error (as the parser and the pass manager do), so
a chunk expects at most one error; notes without a location of their own (``see current
operation``) are not diagnostics here. (``--print-diagnostics`` prints the diagnostics instead,
for FileCheck, as xdsl-opt's ``--verify-diagnostics`` does.)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_EXPECTED = re.compile(r"//\s*expected-(error|warning|remark|note)(-re)?"
                       r"(?:@([+-]\d+|above|below))?\s*\{\{(.*)\}\}\s*$")


@dataclass
class Expectation:
    severity: str
    line: int
    text: str
    regex: bool
    matched: bool = field(default=False)

    def matches(self, severity: str, line: int, message: str) -> bool:
        if severity != self.severity or line != self.line:
            return False
        if not self.regex:
            return self.text in message
        pattern = "".join(re.escape(part) if i % 2 == 0 else f"(?:{part})"
                          for i, part in enumerate(re.split(r"\{\{(.*?)\}\}", self.text)))
        return re.search(pattern, message) is not None


def expectations(text: str, first_line: int) -> list[Expectation]:
    """The ``expected-*`` comments of a chunk whose first line is ``first_line`` (1-based)."""
    out = []
    for i, source_line in enumerate(text.splitlines()):
        m = _EXPECTED.search(source_line)
        if m is None:
            continue
        line = first_line + i
        where = m.group(3)
        if where == "above":
            line -= 1
        elif where == "below":
            line += 1
        elif where is not None:
            line += int(where)
        out.append(Expectation(m.group(1), line, m.group(4), m.group(2) is not None))
    return out


_WHERE = re.compile(r"^(.*):(\d+):(\d+)$")


def check(expected: list[Expectation], produced: list[tuple[str, str | None, str]],
          filename: str) -> list[str]:
    """Failure lines (``file:line: error: ...``) for ``produced`` diagnostics
    ``(severity, "file:line:col" or None, message)`` against ``expected``."""
    failures = []
    for severity, where, message in produced:
        m = _WHERE.match(where or "")
        line = int(m.group(2)) if m else 0
        hit = next((e for e in expected if not e.matched and e.matches(severity, line, message)),
                   None)
        if hit is None:
            failures.append(f"{where or filename}: error: unexpected {severity}: {message}")
        else:
            hit.matched = True
    for e in expected:
        if not e.matched:
            failures.append(f"{filename}:{e.line}: error: expected {e.severity} "
                            f"\"{e.text}\" was not produced")
    return failures
