"""Label and field selectors: parsing, matching and printing, as k8s.io/apimachinery does them.

List and watch requests filter with `labelSelector` and `fieldSelector` query parameters, and workload specs
carry `metav1.LabelSelector` objects. Clients depend on the exact grammar (`a in (x,y)`, `!a`, `a>1`, field
values with backslash escapes), on the canonical string forms kube prints, and on the error texts a bad
selector produces, which kube-apiserver returns verbatim in a 400 BadRequest. This module mirrors
`pkg/labels/selector.go` (a hand-written lexer and recursive-descent parser, reproduced token for token so the
errors match), `pkg/fields/selector.go` and `metav1.LabelSelectorAsSelector`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any, Final

from kubelite.apimachinery.validation import (
    FieldError,
    RawValue,
    aggregate_message,
    go_quote,
    is_qualified_name,
    is_valid_label_value,
)


class SelectorError(ValueError):
    """A selector kube would refuse; the message is the text kube-apiserver puts in its 400 response."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# -- label selector requirements ---------------------------------------------------------------------

# selection.Operator values
IN: Final = "in"
NOT_IN: Final = "notin"
EQUALS: Final = "="
DOUBLE_EQUALS: Final = "=="
NOT_EQUALS: Final = "!="
EXISTS: Final = "exists"
DOES_NOT_EXIST: Final = "!"
GREATER_THAN: Final = "gt"
LESS_THAN: Final = "lt"

_BINARY_OPERATORS: Final = (IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS, GREATER_THAN, LESS_THAN)
_UNARY_OPERATORS: Final = (EXISTS, DOES_NOT_EXIST)

_INT64_RE: Final = re.compile(r"[+-]?[0-9]+")
_INT64_MIN: Final = -(1 << 63)
_INT64_MAX: Final = (1 << 63) - 1


def _parse_int64(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64): optional sign, decimal digits only, int64 range."""
    if not _INT64_RE.fullmatch(text):
        return None
    value = int(text)
    return value if _INT64_MIN <= value <= _INT64_MAX else None


# a nil Go slice as a bad value: json.Marshal prints it as a bare `null`
_NIL_SLICE: Final = RawValue("null")


def _join_path(base: str, child: str) -> str:
    return f"{base}.{child}" if base else child


@dataclass(frozen=True, slots=True)
class Requirement:
    """One `key op values` term of a label selector (labels.Requirement)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    @classmethod
    def new(cls, key: str, operator: str, values: Sequence[str] = (), path: str = "") -> Requirement:
        """labels.NewRequirement: validates the key, the operator's arity and every value."""
        errs: list[FieldError] = []
        key_errors = is_qualified_name(key)
        if key_errors:
            errs.append(FieldError.invalid(_join_path(path, "key"), key, "; ".join(key_errors)))
        values_path = _join_path(path, "values")
        vals = list(values)
        if operator in (IN, NOT_IN):
            if not vals:
                errs.append(
                    FieldError.invalid(
                        values_path, _NIL_SLICE, "for 'in', 'notin' operators, values set can't be empty"
                    )
                )
        elif operator in (EQUALS, DOUBLE_EQUALS, NOT_EQUALS):
            if len(vals) != 1:
                errs.append(
                    FieldError.invalid(
                        values_path, vals or _NIL_SLICE, "exact-match compatibility requires one single value"
                    )
                )
        elif operator in _UNARY_OPERATORS:
            if vals:
                errs.append(
                    FieldError.invalid(
                        values_path, vals, "values set must be empty for exists and does not exist"
                    )
                )
        elif operator in (GREATER_THAN, LESS_THAN):
            if len(vals) != 1:
                errs.append(
                    FieldError.invalid(
                        values_path,
                        vals or _NIL_SLICE,
                        "for 'Gt', 'Lt' operators, exactly one value is required",
                    )
                )
            for i, value in enumerate(vals):
                if _parse_int64(value) is None:
                    errs.append(
                        FieldError.invalid(
                            f"{values_path}[{i}]",
                            value,
                            "for 'Gt', 'Lt' operators, the value must be an integer",
                        )
                    )
        else:
            errs.append(
                FieldError.not_supported(
                    _join_path(path, "operator"), operator, [*_BINARY_OPERATORS, *_UNARY_OPERATORS]
                )
            )
        for i, value in enumerate(vals):
            value_errors = is_valid_label_value(value)
            if value_errors:
                errs.append(FieldError.invalid(f"{values_path}[{i}][{key}]", value, "; ".join(value_errors)))
        if errs:
            raise SelectorError(aggregate_message(errs))
        return cls(key, operator, tuple(vals))

    def matches(self, labels: Mapping[str, str]) -> bool:
        op = self.operator
        if op in (IN, EQUALS, DOUBLE_EQUALS):
            return self.key in labels and labels[self.key] in self.values
        if op in (NOT_IN, NOT_EQUALS):
            return self.key not in labels or labels[self.key] not in self.values
        if op == EXISTS:
            return self.key in labels
        if op == DOES_NOT_EXIST:
            return self.key not in labels
        if op in (GREATER_THAN, LESS_THAN):
            if self.key not in labels or len(self.values) != 1:
                return False
            have, want = _parse_int64(labels[self.key]), _parse_int64(self.values[0])
            if have is None or want is None:
                return False
            return have > want if op == GREATER_THAN else have < want
        return False

    def __str__(self) -> str:
        op = self.operator
        if op == EXISTS:
            return self.key
        if op == DOES_NOT_EXIST:
            return "!" + self.key
        symbol = {IN: " in ", NOT_IN: " notin ", GREATER_THAN: ">", LESS_THAN: "<"}.get(op, op)
        # the printed form sorts values without reordering the requirement itself
        values = self.values[0] if len(self.values) == 1 else ",".join(sorted(self.values))
        if op in (IN, NOT_IN):
            values = f"({values})"
        return f"{self.key}{symbol}{values}"


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """A parsed label selector: requirements ANDed together, kept sorted by key like kube's."""

    requirements: tuple[Requirement, ...] = ()
    #: labels.Nothing(): what a nil metav1.LabelSelector converts to
    selects_nothing: bool = False

    @classmethod
    def everything(cls) -> LabelSelector:
        return cls()

    @classmethod
    def nothing(cls) -> LabelSelector:
        return cls(selects_nothing=True)

    @classmethod
    def from_requirements(cls, requirements: Iterable[Requirement]) -> LabelSelector:
        return cls(tuple(sorted(requirements, key=lambda r: r.key)))

    @classmethod
    def from_set(cls, labels: Mapping[str, str]) -> LabelSelector:
        """labels.SelectorFromSet: `k=v` for every pair, unvalidated."""
        return cls.from_requirements(Requirement(k, EQUALS, (v,)) for k, v in labels.items())

    @property
    def empty(self) -> bool:
        """True when the selector does not restrict anything (the nothing-selector is not empty)."""
        return not self.requirements and not self.selects_nothing

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        if self.selects_nothing:
            return False
        have = labels or {}
        return all(r.matches(have) for r in self.requirements)

    def first_exact_match(self) -> tuple[str, str] | None:
        """A (key, value) every match must carry (`key=v`, `key==v` or `key in (v)`), if the selector pins one:
        what an index by label can look up."""
        for r in self.requirements:
            if r.operator in (EQUALS, DOUBLE_EQUALS, IN) and len(r.values) == 1:
                return r.key, r.values[0]
        return None

    def requires_exact_match(self, key: str) -> str | None:
        """The value the selector pins `key` to (`key=v`, `key==v` or `key in (v)`), if any."""
        for r in self.requirements:
            if r.key == key:
                if r.operator in (EQUALS, DOUBLE_EQUALS, IN) and len(r.values) == 1:
                    return r.values[0]
                return None
        return None

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)


# -- label selector lexer and parser -----------------------------------------------------------------

# token kinds, named as in kube's lexer
(_ERROR, _EOS, _CLOSE_PAR, _COMMA, _NOT, _DOUBLE_EQUALS, _EQUALS) = range(7)
(_GT, _IDENT, _IN, _LT, _NOT_EQUALS, _NOT_IN, _OPEN_PAR) = range(7, 14)

_LITERAL_TOKENS: Final[dict[str, int]] = {
    ")": _CLOSE_PAR,
    ",": _COMMA,
    "!": _NOT,
    "==": _DOUBLE_EQUALS,
    "=": _EQUALS,
    ">": _GT,
    "in": _IN,
    "<": _LT,
    "!=": _NOT_EQUALS,
    "notin": _NOT_IN,
    "(": _OPEN_PAR,
}
_SPECIAL_SYMBOLS: Final = frozenset("=!(),><")
_WHITESPACE: Final = frozenset(" \t\r\n")
# kube's lexer reads a NUL byte as "end of input"
_END: Final = "\0"


class _Lexer:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def read(self) -> str:
        if self.pos < len(self.text):
            ch = self.text[self.pos]
            self.pos += 1
            return ch
        return _END

    def unread(self) -> None:
        self.pos -= 1

    def lex(self) -> tuple[int, str]:
        ch = self.read()
        while ch in _WHITESPACE:
            ch = self.read()
        if ch == _END:
            return _EOS, ""
        self.unread()
        if ch in _SPECIAL_SYMBOLS:
            return self._special_symbol()
        return self._identifier_or_keyword()

    def _identifier_or_keyword(self) -> tuple[int, str]:
        buffer: list[str] = []
        while True:
            ch = self.read()
            if ch == _END:
                break
            if ch in _SPECIAL_SYMBOLS or ch in _WHITESPACE:
                self.unread()
                break
            buffer.append(ch)
        literal = "".join(buffer)
        return _LITERAL_TOKENS.get(literal, _IDENT), literal

    def _special_symbol(self) -> tuple[int, str]:
        # longest run of symbols that still spells a known operator
        buffer = ""
        last: tuple[int, str] | None = None
        while True:
            ch = self.read()
            if ch == _END:
                break
            if ch in _SPECIAL_SYMBOLS:
                buffer += ch
                token = _LITERAL_TOKENS.get(buffer)
                if token is not None:
                    last = (token, buffer)
                elif last is not None:
                    self.unread()
                    break
            else:
                self.unread()
                break
        if last is None:
            return _ERROR, f"error expected: keyword found '{buffer}'"
        return last


class _Parser:
    def __init__(self, text: str) -> None:
        lexer = _Lexer(text)
        self.items: list[tuple[int, str]] = []
        while True:
            item = lexer.lex()
            self.items.append(item)
            if item[0] == _EOS:
                break
        self.position = 0

    def lookahead(self, values_context: bool) -> tuple[int, str]:
        token, literal = self.items[self.position]
        # `in` and `notin` are plain words where values are expected (`x in (in)`)
        if values_context and token in (_IN, _NOT_IN):
            token = _IDENT
        return token, literal

    def consume(self, values_context: bool) -> tuple[int, str]:
        item = self.lookahead(values_context)
        self.position += 1
        return item

    def parse(self) -> list[Requirement]:
        requirements: list[Requirement] = []
        while True:
            token, literal = self.lookahead(True)
            if token in (_IDENT, _NOT):
                try:
                    requirements.append(self.requirement())
                except SelectorError as exc:
                    raise SelectorError(f"unable to parse requirement: {exc.message}") from None
                token, literal = self.consume(True)
                if token == _EOS:
                    return requirements
                if token == _COMMA:
                    next_token, next_literal = self.lookahead(True)
                    if next_token not in (_IDENT, _NOT):
                        raise SelectorError(f"found '{next_literal}', expected: identifier after ','")
                else:
                    raise SelectorError(f"found '{literal}', expected: ',' or 'end of string'")
            elif token == _EOS:
                return requirements
            else:
                raise SelectorError(f"found '{literal}', expected: !, identifier, or 'end of string'")

    def requirement(self) -> Requirement:
        key, operator = self.key_and_inferred_operator()
        if operator in _UNARY_OPERATORS:
            return Requirement.new(key, operator, ())
        operator = self.operator()
        values = self.value_set() if operator in (IN, NOT_IN) else self.exact_value()
        return Requirement.new(key, operator, sorted(values))

    def key_and_inferred_operator(self) -> tuple[str, str]:
        operator = ""
        token, literal = self.consume(True)
        if token == _NOT:
            operator = DOES_NOT_EXIST
            token, literal = self.consume(True)
        if token != _IDENT:
            raise SelectorError(f"found '{literal}', expected: identifier")
        key_errors = is_qualified_name(literal)
        if key_errors:
            # kube's parser has no field path here, which prints as "<nil>"
            raise SelectorError(str(FieldError.invalid("<nil>", literal, "; ".join(key_errors))))
        if self.lookahead(True)[0] in (_EOS, _COMMA) and operator != DOES_NOT_EXIST:
            operator = EXISTS
        return literal, operator

    def operator(self) -> str:
        token, literal = self.consume(False)
        operator = {
            _IN: IN,
            _EQUALS: EQUALS,
            _DOUBLE_EQUALS: DOUBLE_EQUALS,
            _GT: GREATER_THAN,
            _LT: LESS_THAN,
            _NOT_IN: NOT_IN,
            _NOT_EQUALS: NOT_EQUALS,
        }.get(token)
        if operator is None:
            raise SelectorError(f"found '{literal}', expected: {', '.join(_BINARY_OPERATORS)}")
        return operator

    def value_set(self) -> set[str]:
        token, literal = self.consume(True)
        if token != _OPEN_PAR:
            raise SelectorError(f"found '{literal}' expected: '('")
        token, literal = self.lookahead(True)
        if token in (_IDENT, _COMMA):
            values = self.identifier_list()
            if self.consume(True)[0] != _CLOSE_PAR:
                raise SelectorError(f"found '{literal}', expected: ')'")
            return values
        if token == _CLOSE_PAR:
            self.consume(True)
            return {""}
        raise SelectorError(f"found '{literal}', expected: ',', ')' or identifier")

    def identifier_list(self) -> set[str]:
        # empty entries (`(,a)`, `(a,)`, `(a,,b)`) stand for the empty value
        values: set[str] = set()
        while True:
            token, literal = self.consume(True)
            if token == _IDENT:
                values.add(literal)
                next_token, next_literal = self.lookahead(True)
                if next_token == _COMMA:
                    continue
                if next_token == _CLOSE_PAR:
                    return values
                raise SelectorError(f"found '{next_literal}', expected: ',' or ')'")
            if token == _COMMA:
                if not values:
                    values.add("")
                next_token = self.lookahead(True)[0]
                if next_token == _CLOSE_PAR:
                    values.add("")
                    return values
                if next_token == _COMMA:
                    values.add("")
            else:
                raise SelectorError(f"found '{literal}', expected: ',', or identifier")

    def exact_value(self) -> set[str]:
        if self.lookahead(True)[0] in (_EOS, _COMMA):
            return {""}
        token, literal = self.consume(True)
        if token == _IDENT:
            return {literal}
        raise SelectorError(f"found '{literal}', expected: identifier")


def parse_label_selector(text: str) -> LabelSelector:
    """labels.Parse: the `labelSelector` query syntax; an empty string selects everything."""
    return LabelSelector.from_requirements(_Parser(text).parse())


_SPEC_OPERATORS: Final[dict[str, str]] = {
    "In": IN,
    "NotIn": NOT_IN,
    "Exists": EXISTS,
    "DoesNotExist": DOES_NOT_EXIST,
}


def label_selector_from_spec(spec: Mapping[str, Any] | None) -> LabelSelector:
    """metav1.LabelSelectorAsSelector: None selects nothing, `{}` selects everything."""
    if spec is None:
        return LabelSelector.nothing()
    match_labels = spec.get("matchLabels") or {}
    match_expressions = spec.get("matchExpressions") or []
    if not match_labels and not match_expressions:
        return LabelSelector.everything()
    requirements: list[Requirement] = []
    for key, value in sorted(match_labels.items()):
        requirements.append(Requirement.new(str(key), EQUALS, [str(value)]))
    for expression in match_expressions:
        operator = str(expression.get("operator") or "")
        op = _SPEC_OPERATORS.get(operator)
        if op is None:
            raise SelectorError(f"{go_quote(operator)} is not a valid label selector operator")
        values = [str(v) for v in (expression.get("values") or [])]
        requirements.append(Requirement.new(str(expression.get("key") or ""), op, values))
    return LabelSelector.from_requirements(requirements)


# -- field selectors ---------------------------------------------------------------------------------


def escape_field_value(value: str) -> str:
    """fields.EscapeValue: backslash-escape `\\`, `,` and `=` so a value reads back unambiguously."""
    return value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


def unescape_field_value(text: str) -> str:
    """fields.UnescapeValue: undo EscapeValue; bare `,`/`=` and unknown escapes are errors."""
    if not any(ch in text for ch in "\\,="):
        return text
    out: list[str] = []
    in_slash = False
    for ch in text:
        if in_slash:
            if ch not in "\\,=":
                raise SelectorError(f"invalid field selector: invalid escape sequence: \\{ch}")
            out.append(ch)
            in_slash = False
        elif ch == "\\":
            in_slash = True
        elif ch in ",=":
            # kube prints the offending rune with %v, i.e. as its code point number
            raise SelectorError(f"invalid field selector: unescaped character in value: {ord(ch)}")
        else:
            out.append(ch)
    if in_slash:
        raise SelectorError("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def _split_terms(text: str) -> list[str]:
    # commas split terms unless backslash-escaped; escapes stay in the term for unescaping later
    if not text:
        return []
    terms: list[str] = []
    start = 0
    in_slash = False
    for i, ch in enumerate(text):
        if in_slash:
            in_slash = False
        elif ch == "\\":
            in_slash = True
        elif ch == ",":
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    return terms


_TERM_OPERATORS: Final = ("!=", "==", "=")


def _split_term(term: str) -> tuple[str, str, str] | None:
    # the first operator occurrence splits; `==` is tried before `=` so no `=` is left on the value
    for i in range(len(term)):
        for op in _TERM_OPERATORS:
            if term.startswith(op, i):
                return term[:i], op, term[i + len(op) :]
    return None


@dataclass(frozen=True, slots=True)
class FieldRequirement:
    """One `field=value` or `field!=value` term of a field selector."""

    field: str
    operator: str  # "=" or "!="
    value: str

    def matches(self, fields: Mapping[str, str]) -> bool:
        # a missing field reads as "" (fields.Set.Get)
        have = fields.get(self.field, "")
        return have == self.value if self.operator == EQUALS else have != self.value

    def __str__(self) -> str:
        return f"{self.field}{self.operator}{escape_field_value(self.value)}"


@dataclass(frozen=True, slots=True)
class FieldSelector:
    """A parsed field selector: terms ANDed together."""

    requirements: list[FieldRequirement] = dataclass_field(default_factory=list)

    @classmethod
    def everything(cls) -> FieldSelector:
        return cls()

    @classmethod
    def one_term_equal(cls, name: str, value: str) -> FieldSelector:
        """fields.OneTermEqualSelector."""
        return cls([FieldRequirement(name, EQUALS, value)])

    @property
    def empty(self) -> bool:
        return not self.requirements

    def matches(self, fields: Mapping[str, str]) -> bool:
        return all(r.matches(fields) for r in self.requirements)

    def exact_match(self, name: str) -> str | None:
        """RequiresExactMatch: the value of the first `name=value` term, if there is one."""
        for r in self.requirements:
            if r.field == name and r.operator == EQUALS:
                return r.value
        return None

    def transform(self, fn: Callable[[str, str], tuple[str, str]]) -> FieldSelector:
        """ParseAndTransformSelector's hook: rewrite each (field, value), e.g. to map legacy field labels."""
        out: list[FieldRequirement] = []
        for r in self.requirements:
            name, value = fn(r.field, r.value)
            out.append(FieldRequirement(name, r.operator, value))
        return FieldSelector(out)

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)


def parse_field_selector(text: str) -> FieldSelector:
    """fields.ParseSelector: comma-separated `field=value`, `field==value`, `field!=value` terms."""
    requirements: list[FieldRequirement] = []
    for part in sorted(_split_terms(text)):
        if not part:
            continue
        split = _split_term(part)
        if split is None:
            raise SelectorError(f"invalid selector: '{text}'; can't understand '{part}'")
        lhs, op, rhs = split
        value = unescape_field_value(rhs)
        requirements.append(FieldRequirement(lhs, NOT_EQUALS if op == NOT_EQUALS else EQUALS, value))
    return FieldSelector(requirements)
