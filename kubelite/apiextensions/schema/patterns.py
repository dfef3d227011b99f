"""The `pattern` keyword of CRD schemas: Go regular expressions (RE2 syntax), matched as Go matches them.

kube compiles a schema's `pattern` with Go's regexp package and tests it with MatchString (an unanchored
search). RE2 is the authority on what is a valid pattern and what it matches, so every pattern is first
compiled by RE2 (google-re2). Python's `re` is many times faster per match, so a pattern whose meaning is
the same under both engines, and which cannot make a backtracking engine slow (see `_to_python`), is then
translated and matched by `re`: Go's `$` and `\\z` (end of text) become `\\Z`, Go's ASCII-only `\\s` is
spelled out, and anything whose meaning could differ (Unicode classes, flags, POSIX classes, octal escapes,
`{,n}`) stays with RE2.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from functools import lru_cache
from typing import Final

import re2

Matcher = Callable[[str], bool]

_RE2_OPTIONS: Final = re2.Options()
_RE2_OPTIONS.log_errors = False

# RE2's (C++) words for a syntax error, and the words of Go's regexp/syntax for the same error
_GO_ERROR_CODES: Final = {
    "missing ]": "missing closing ]",
    "missing )": "missing closing )",
    "unexpected )": "unexpected )",
    "trailing \\": "trailing backslash at end of expression",
    "invalid escape sequence": "invalid escape sequence",
    "invalid character class": "invalid character class",
    "invalid character class range": "invalid character class range",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "invalid named capture group": "invalid named capture",
    "bad repetition operator": "invalid nested repetition operator",
    "invalid repetition size": "invalid repeat count",
    "no argument for repetition operator": "missing argument to repetition operator",
    "invalid UTF-8": "invalid UTF-8",
    "pattern too large - compile failed": "expression too large",
}

# anything whose meaning under Python's `re` could differ from Go's stays with RE2
_RE2_ONLY: Final = re.compile(r"\\[pPQC0-9]|\\x\{|\[:|\{,|\(\?(?!:|P<)|\\S")
_GO_WHITESPACE: Final = r"\t\n\f\r "


class PatternError(ValueError):
    """A pattern Go's regexp.Compile refuses; `str()` is Go's error text."""


def _go_error(pattern: str, error: Exception) -> str:
    raw = error.args[0] if error.args else str(error)
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    code, _, fragment = text.partition(": ")
    return f"error parsing regexp: {_GO_ERROR_CODES.get(code, code)}: `{fragment}`"


_REPEAT: Final = re.compile(r"\{([0-9]+)(,[0-9]*)?\}")
# a few optional parts cost a backtracking engine at most 2^n tries of one anchored match
_MAX_OPTIONAL: Final = 8


def _to_python(pattern: str) -> str | None:
    """The same pattern for Python's `re`, or None where only RE2 can be trusted with it.

    RE2 matches in linear time; a backtracking engine can take exponential time on nested or repeated
    quantifiers, and quadratic time on any unanchored search. A user's value must never be able to stall a
    write, so `re` only gets patterns whose every match is one anchored attempt (`^` first, no top-level
    `|`) with at most one unbounded quantifier, on a single character or class, and a few `?`s."""
    if not pattern.startswith("^") or _RE2_ONLY.search(pattern):
        return None
    out: list[str] = []
    in_class = False
    depth = 0
    unbounded = 0
    optional = 0
    # what the next quantifier would apply to: "atom" (a character, class or escape), "group", "quantifier"
    previous = ""
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            escaped = pattern[i + 1]
            if escaped == "s":
                out.append(_GO_WHITESPACE if in_class else f"[{_GO_WHITESPACE}]")
            elif escaped == "z" and not in_class:
                out.append(r"\Z")
            else:
                out.append(ch + escaped)
            if not in_class:
                previous = "atom"
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
                previous = "atom"
            out.append(ch)
            i += 1
            continue
        if ch == "[":
            in_class = True
            out.append(ch)
            # a `]` first in a class (after an optional `^`) is a literal in both engines
            if i + 1 < n and pattern[i + 1] == "^":
                out.append("^")
                i += 1
            if i + 1 < n and pattern[i + 1] == "]":
                out.append("\\]")
                i += 1
        elif ch == "(":
            depth += 1
            previous = ""
            out.append(ch)
            if pattern.startswith("(?:", i):
                out.append("?:")
                i += 2
            elif pattern.startswith("(?P<", i):
                close = pattern.find(">", i)
                out.append(pattern[i + 1 : close + 1])
                i = close
        elif ch == ")":
            depth -= 1
            previous = "group"
            out.append(ch)
        elif ch == "|":
            # any alternation goes to RE2: alternatives inside groups, repeated, backtrack exponentially in `re`
            return None
        elif ch in "*+":
            unbounded += 1
            if previous != "atom" or unbounded > 1:
                return None
            previous = "quantifier"
            out.append(ch)
        elif ch == "?":
            if previous != "quantifier":  # after a quantifier, `?` only makes it lazy
                optional += 1
                if optional > _MAX_OPTIONAL or not previous:
                    return None
                previous = "quantifier"
            out.append(ch)
        elif ch == "{" and (repeat := _REPEAT.match(pattern, i)) is not None:
            if repeat.group(2) is not None or previous != "atom":
                return None
            previous = "quantifier"
            out.append(repeat.group())
            i = repeat.end()
            continue
        elif ch == "$":
            out.append(r"\Z")
            previous = "atom"
        else:
            previous = "atom"
            out.append(ch)
        i += 1
    return "".join(out)


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> Matcher:
    """A search function for a Go pattern; PatternError (Go's words) when Go would not compile it."""
    try:
        compiled = re2.compile(pattern, options=_RE2_OPTIONS)
    except re2.error as err:
        raise PatternError(_go_error(pattern, err)) from err
    translated = _to_python(pattern)
    if translated is not None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                fast = re.compile(translated, re.ASCII)
        except (re.error, FutureWarning, DeprecationWarning):
            pass
        else:
            search = fast.search
            return lambda value: search(value) is not None
    slow = compiled.search
    return lambda value: slow(value) is not None


def compile_error(pattern: str) -> str | None:
    """Go's regexp.Compile error text for a pattern, None if it compiles (CRD validation reports this)."""
    try:
        compile_pattern(pattern)
    except PatternError as err:
        return str(err)
    return None
