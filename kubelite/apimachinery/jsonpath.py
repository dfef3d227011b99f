"""client-go's JSONPath template language (k8s.io/client-go/util/jsonpath): parser, evaluator and printer.

Kubernetes speaks this dialect, not Goessner's: a template is text with `{...}` actions (`hello {.a.b}`),
actions hold field steps (`.a`, `['a']`, whose key is read as a field path again, so `['a.b']` is `.a.b`;
a backslash escapes a dot, `.a\\.b`), indexes and slices (`[0]`, `[-1]`, `[1:3]`, `[::2]`, `[*]`), the
wildcard `.*`, recursive descent `..name`, filters `[?(@.type=="Ready")]` (==, !=, <, >, <=, >= and bare
existence), unions `[0,1]` / `['a','b']`, string and number literals, and `{range ...}...{end}` blocks.
The apiextensions-apiserver prints custom resources' printer columns with it, and kubectl's
`-o jsonpath` is the same language, so the texts of its parse and execution errors are kube's.

Values are decoded JSON as kubelite holds it (dict, list, str, int as Go's int64, float as float64, bool,
None for null); maps are visited in their insertion order where Go's would be random. `parse` compiles a
template once; `Template.find_results` and `Template.execute` run it any number of times, each run keeping
its own range state (client-go's `JSONPath` mutates itself while executing and is meant to run once).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Final, cast

from kubelite.apimachinery import gofmt

__all__ = ["NO_VALUE", "JSONPathError", "Template", "parse", "print_results", "text_of"]



#: the most values one step of a template may find (client-go has no bound; a server needs one)
MAX_RESULTS = 10_000

class JSONPathError(ValueError):
    """A template that does not parse, or that fails on the data it runs over; the text is client-go's.

    `partial` holds what the failing step returned along with its error in client-go, which an existence
    filter (`[?(@.a[5])]`) still counts: a failed index step hands back its input."""

    def __init__(self, message: str, partial: list[Any] | None = None) -> None:
        super().__init__(message)
        self.partial: list[Any] = partial if partial is not None else []


# -- the parse tree ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ListNode:
    nodes: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class TextNode:
    text: str


@dataclass(frozen=True, slots=True)
class FieldNode:
    name: str


@dataclass(frozen=True, slots=True)
class IdentifierNode:
    name: str


@dataclass(frozen=True, slots=True)
class SliceParam:
    value: int = 0
    known: bool = False
    #: the end of a bare index `[i]`, written as i+1: a 0 there means "to the end" (`[-1]`)
    derived: bool = False


@dataclass(frozen=True, slots=True)
class ArrayNode:
    start: SliceParam
    end: SliceParam
    step: SliceParam


@dataclass(frozen=True, slots=True)
class FilterNode:
    left: ListNode
    right: ListNode
    #: the comparison, or "exists" for `[?(@.x)]`
    operator: str


@dataclass(frozen=True, slots=True)
class IntNode:
    value: int


@dataclass(frozen=True, slots=True)
class FloatNode:
    value: float


@dataclass(frozen=True, slots=True)
class BoolNode:
    value: bool


@dataclass(frozen=True, slots=True)
class WildcardNode:
    pass


@dataclass(frozen=True, slots=True)
class RecursiveNode:
    pass


@dataclass(frozen=True, slots=True)
class UnionNode:
    branches: tuple[ListNode, ...]


Node = (
    ListNode
    | TextNode
    | FieldNode
    | IdentifierNode
    | ArrayNode
    | FilterNode
    | IntNode
    | FloatNode
    | BoolNode
    | WildcardNode
    | RecursiveNode
    | UnionNode
)


# -- the parser ------------------------------------------------------------------------------------------

_EOF: Final = ""
_LEFT, _RIGHT = "{", "}"
_DICT_KEY = re.compile(r"'([^']*)'")
_SLICE = re.compile(r"(-?[0-9]*)(:-?[0-9]*)?(:-?[0-9]*)?")
_COMPARISON = re.compile(r"([^!<>=]+)([!<>=]+)(.+?)", re.DOTALL)
_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_TERMINATORS = frozenset(" \t\r\n.,[]$@{}")


def _is_alphanumeric(ch: str) -> bool:
    return ch == "_" or ch.isalpha() or ch.isdecimal()


def _rune(ch: str) -> str:
    """`%#U` of a rune: `U+0023 '#'`, without the quoted form when it is not printable."""
    code = f"U+{ord(ch):04X}"
    return f"{code} '{ch}'" if ch.isprintable() else code


class _Parser:
    """The scanner of client-go's parser: a position, the start of the text not yet consumed, and one
    function per construct, each of which consumes what it read and hands over to the next."""

    def __init__(self, text: str) -> None:
        self.input = text
        self.pos = 0
        self.start = 0
        self.root: list[Node] = []

    def parse(self) -> ListNode:
        self._text()
        return ListNode(tuple(self.root))

    # the cursor

    def _next(self) -> str:
        if self.pos >= len(self.input):
            self._width = 0
            return _EOF
        self._width = 1
        self.pos += 1
        return self.input[self.pos - 1]

    def _backup(self) -> None:
        self.pos -= self._width

    def _peek(self) -> str:
        ch = self._next()
        self._backup()
        return ch

    def _consume(self) -> str:
        value = self.input[self.start : self.pos]
        self.start = self.pos
        return value

    # the constructs; each action's nodes are gathered in a list that becomes its ListNode

    def _text(self) -> None:
        while True:
            if self.input.startswith(_LEFT, self.pos):
                if self.pos > self.start:
                    self.root.append(TextNode(self._consume()))
                self.pos += len(_LEFT)
                self._consume()
                action: list[Node] = []
                self._action(action)
                self.root.append(ListNode(tuple(action)))
                continue
            if self._next() == _EOF:
                break
        if self.pos > self.start:
            self.root.append(TextNode(self._consume()))

    def _action(self, cur: list[Node]) -> None:
        # client-go recurses once per token; a loop reads the same tokens without Python's recursion limit
        while True:
            rest = self.input[self.pos :]
            if rest.startswith(_RIGHT):
                self.pos += len(_RIGHT)
                self._consume()
                return
            if rest.startswith("[?("):
                self._filter(cur)
                continue
            if rest.startswith(".."):
                self._recursive(cur)
                continue
            ch = self._next()
            if ch == _EOF or ch in "\r\n":
                raise JSONPathError("unclosed action")
            if ch in " @$":  # a space, or the current object, which needs no node
                self._consume()
            elif ch == "[":
                self._array(cur)
            elif ch in "\"'":
                self._quote(cur, ch)
            elif ch == ".":
                self._field(cur)
            elif ch in "+-" or ch.isdecimal():
                self._backup()
                self._number(cur)
            elif _is_alphanumeric(ch):
                self._backup()
                self._identifier(cur)
            else:
                raise JSONPathError(f"unrecognized character in action: {_rune(ch)}")

    def _identifier(self, cur: list[Node]) -> None:
        while True:
            ch = self._next()
            if ch == _EOF or ch in _TERMINATORS:
                self._backup()
                break
        value = self._consume()
        cur.append(BoolNode(value == "true") if value in ("true", "false") else IdentifierNode(value))

    def _recursive(self, cur: list[Node]) -> None:
        if cur and isinstance(cur[-1], RecursiveNode):
            raise JSONPathError("invalid multiple recursive descent")
        self.pos += len("..")
        self._consume()
        cur.append(RecursiveNode())
        if _is_alphanumeric(self._peek()):
            self._field(cur)

    def _number(self, cur: list[Node]) -> None:
        if self._peek() in ("+", "-"):
            self._next()
        while True:
            ch = self._next()
            if ch != "." and not ch.isdecimal():
                self._backup()
                break
        value = self._consume()
        if _INTEGER.fullmatch(value) and _INT64_MIN <= int(value) <= _INT64_MAX:
            cur.append(IntNode(int(value)))
            return
        if _DECIMAL.fullmatch(value) and not math.isinf(number := float(value)):
            cur.append(FloatNode(number))
            return
        raise JSONPathError(f"cannot parse number {value}")

    def _array(self, cur: list[Node]) -> None:
        while True:
            ch = self._next()
            if ch in (_EOF, "\n"):
                raise JSONPathError("unterminated array")
            if ch == "]":
                break
        text = self._consume()[1:-1]
        if text == "*":
            text = ":"
        parts = text.split(",")
        if len(parts) > 1:
            branches = tuple(_sub_action(f"[{part.strip(' ')}]") for part in parts)
            cur.append(UnionNode(branches))
            return
        key = _DICT_KEY.fullmatch(text)
        if key is not None:
            # the quoted key is read as a field path, as client-go does: `['a.b']` walks a, then b
            cur.extend(_sub_action(f".{key.group(1)}").nodes)
            return
        cur.append(_slice(text))

    def _filter(self, cur: list[Node]) -> None:
        self.pos += len("[?(")
        self._consume()
        begin = end = False
        pair = ""
        while True:
            ch = self._next()
            if ch in (_EOF, "\n"):
                raise JSONPathError("unterminated filter")
            if ch in "\"'":
                if not begin:
                    begin, pair = True, ch
                    continue
                if self.input[self.pos - 2] != "\\" and ch == pair:
                    end = True
            elif ch == ")" and begin == end:
                break
        if self._next() != "]":
            raise JSONPathError("unclosed array expect ]")
        text = self._consume()[:-2]
        comparison = _COMPARISON.fullmatch(text)
        if comparison is None:
            cur.append(FilterNode(_sub_action(text), ListNode(()), "exists"))
            return
        left, operator, right = comparison.groups()
        cur.append(FilterNode(_sub_action(left), _sub_action(right), operator))

    def _quote(self, cur: list[Node], quote: str) -> None:
        while True:
            ch = self._next()
            if ch in (_EOF, "\n"):
                raise JSONPathError("unterminated quoted string")
            if ch == quote and self.input[self.pos - 2] != "\\":
                break
        value = self._consume()
        try:
            cur.append(TextNode(unquote(value)))
        except ValueError:
            raise JSONPathError(f"unquote string {value} error invalid syntax") from None

    def _field(self, cur: list[Node]) -> None:
        self._consume()
        while self._advance():
            pass
        value = self._consume()
        cur.append(WildcardNode() if value == "*" else FieldNode(value.replace("\\", "")))

    def _advance(self) -> bool:
        ch = self._next()
        if ch == "\\":
            self._next()
        elif ch == _EOF or ch in _TERMINATORS:
            self._backup()
            return False
        return True


def _sub_action(text: str) -> ListNode:
    """client-go's `parseAction`: `text` parsed as the inside of one action (anything after that action's
    closing brace is parsed, then dropped)."""
    # a text opening with "{" parses to an action first
    return cast(ListNode, _Parser(_LEFT + text + _RIGHT).parse().nodes[0])


def _slice(text: str) -> ArrayNode:
    match = _SLICE.fullmatch(text)
    if match is None:
        raise JSONPathError(f"invalid array index {text}")
    params: list[SliceParam] = []
    for i, group in enumerate(match.groups(default="")):
        if group:
            digits = group[1:] if i > 0 else group
            if i > 0 and digits == "":
                params.append(SliceParam())
                continue
            if not _INTEGER.fullmatch(digits) or not _INT64_MIN <= int(digits) <= _INT64_MAX:
                raise JSONPathError(f"array index {digits} is not a number")
            params.append(SliceParam(int(digits), known=True))
        elif i == 1:  # a bare index [i] is the slice [i:i+1]
            params.append(SliceParam(params[0].value + 1, known=True, derived=True))
        else:
            params.append(SliceParam())
    return ArrayNode(*params)


_SIMPLE_ESCAPES: Final = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92}
_HEX_LENGTHS: Final = {"x": 2, "u": 4, "U": 8}


def unquote(quoted: str) -> str:
    """client-go's `UnquoteExtend`: Go's string unquoting, for single as well as double quotes
    (ValueError for Go's `invalid syntax`). `\\x` and octal escapes give bytes, read back as UTF-8."""
    if len(quoted) < 2 or quoted[0] != quoted[-1] or quoted[0] not in "\"'":
        raise ValueError("invalid syntax")
    quote, body = quoted[0], quoted[1:-1]
    if "\\" not in body and quote not in body:
        return body
    out = bytearray()
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == quote:
            raise ValueError("invalid syntax")
        if ch != "\\":
            out += ch.encode("utf-8", "surrogatepass")
            i += 1
            continue
        if i + 1 >= len(body):
            raise ValueError("invalid syntax")
        escape = body[i + 1]
        i += 2
        if escape in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[escape])
        elif escape in _HEX_LENGTHS:
            digits = body[i : i + _HEX_LENGTHS[escape]]
            if len(digits) < _HEX_LENGTHS[escape] or not all(d in "0123456789abcdefABCDEF" for d in digits):
                raise ValueError("invalid syntax")
            i += len(digits)
            code = int(digits, 16)
            if escape == "x":
                out.append(code)
            elif code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                raise ValueError("invalid syntax")
            else:
                out += chr(code).encode("utf-8")
        elif escape in "01234567":
            digits = body[i : i + 2]
            if len(digits) < 2 or not all(d in "01234567" for d in digits):
                raise ValueError("invalid syntax")
            i += 2
            code = int(escape + digits, 8)
            if code > 255:
                raise ValueError("invalid syntax")
            out.append(code)
        elif escape in "'\"" and escape == quote:
            out.append(ord(escape))
        else:
            raise ValueError("invalid syntax")
    return out.decode("utf-8", "replace")


# -- the evaluator ---------------------------------------------------------------------------------------

_MISSING: Final = object()


class _NoValue:
    """Go's zero reflect.Value: what a range body runs over for a null item (client-go passes the item on
    as a bare interface) and for a range with no items. Steps find nothing in it, as in null, but it
    prints as `<no value>` where null prints `null`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<no value>"


NO_VALUE: Final = _NoValue()


class _Run:
    """One execution of a template: client-go's range counters, which its JSONPath keeps on itself."""

    __slots__ = ("allow_missing_keys", "begin_range", "end_range", "in_range", "last_end")

    def __init__(self, allow_missing_keys: bool) -> None:
        self.allow_missing_keys = allow_missing_keys
        self.begin_range = 0
        self.in_range = 0
        self.end_range = 0
        #: the index, in the template's top-level nodes, of the last `{end}` met
        self.last_end = -1

    def find(self, nodes: tuple[Node, ...], first: int, data: Any) -> list[list[Any]]:
        """client-go's `FindResults` from node `first` on: one list of values per action, a range's body
        run once per value it ranges over, until the `{end}` that closes it."""
        current = [data]
        found: list[list[Any]] = []
        i = first
        while i < len(nodes):
            results = self.walk(current, nodes[i])
            if 0 < self.end_range <= self.in_range:
                self.end_range -= 1
                self.last_end = i
                break
            if self.begin_range > 0:
                self.begin_range -= 1
                self.in_range += 1
                if results:
                    for value in results:
                        found.extend(self.find(nodes, i + 1, NO_VALUE if value is None else value))
                else:  # the body still runs once, to find where the range ends
                    self.find(nodes, i + 1, NO_VALUE)
                self.in_range -= 1
                if self.last_end > i:
                    i = self.last_end
                i += 1
                continue
            found.append(results)
            i += 1
        return found

    def walk(self, values: list[Any], node: Node) -> list[Any]:
        if isinstance(node, ListNode):
            return self.walk_list(values, node)
        if isinstance(node, FieldNode):
            return self.field(values, node.name)
        if isinstance(node, TextNode):
            return [node.text]
        if isinstance(node, ArrayNode):
            return self.array(values, node)
        if isinstance(node, FilterNode):
            return self.filter(values, node)
        if isinstance(node, IntNode | FloatNode | BoolNode):
            return [node.value] * len(values)
        if isinstance(node, WildcardNode):
            return [child for value in values for child in _children(value)]
        if isinstance(node, RecursiveNode):
            return _descend(values)
        if isinstance(node, UnionNode):
            return self.union(values, node)
        return self.identifier(values, node)

    def walk_list(self, values: list[Any], node: ListNode) -> list[Any]:
        for child in node.nodes:
            values = self.walk(values, child)
        return values

    def field(self, values: list[Any], name: str) -> list[Any]:
        results = []
        for value in values:
            if isinstance(value, dict):
                found = value.get(name, _MISSING)
                if found is not _MISSING:
                    results.append(found)
        if not results and values and not self.allow_missing_keys:
            raise JSONPathError(f"{name} is not found")
        return results

    def union(self, values: list[Any], node: UnionNode) -> list[Any]:
        results: list[Any] = []
        for branch in node.branches:
            try:
                results.extend(self.walk_list(values, branch))
            except JSONPathError as err:
                err.partial = values
                raise
            if len(results) > MAX_RESULTS:
                # unions of unions multiply what they find: a path cannot make a server build millions of values
                raise JSONPathError(f"the template finds more than {MAX_RESULTS} values")
        return results

    def identifier(self, values: list[Any], node: IdentifierNode) -> list[Any]:
        if node.name == "range":
            self.begin_range += 1
            return values
        if node.name == "end":
            if self.in_range <= 0:
                raise JSONPathError("not in range, nothing to end")
            self.end_range += 1
            return []
        raise JSONPathError(f"unrecognized identifier {node.name}", values)

    def array(self, values: list[Any], node: ArrayNode) -> list[Any]:
        results: list[Any] = []
        for value in values:
            if value is None or value is NO_VALUE:
                continue
            if not isinstance(value, list):
                raise JSONPathError(f"{gofmt.type_name(value)} is not array or slice", values)
            length = len(value)
            start = node.start.value if node.start.known else 0
            if start < 0:
                start += length
            end = node.end.value if node.end.known else length
            if end < 0 or (end == 0 and node.end.derived):
                end += length
            if end == start:  # an empty selection ends the whole step, as client-go's does
                return results
            if start >= length or start < 0:
                raise JSONPathError(f"array index out of bounds: index {start}, length {length}", values)
            if end > length or end < 0:
                raise JSONPathError(f"array index out of bounds: index {end - 1}, length {length}", values)
            if start > end:
                raise JSONPathError(f"starting index {start} is greater than ending index {end}", values)
            step = 1
            if node.step.known:
                if node.step.value <= 0:
                    raise JSONPathError("step must be > 0", values)
                step = node.step.value
            results.extend(value[start:end:step])
        return results

    def filter(self, values: list[Any], node: FilterNode) -> list[Any]:
        results: list[Any] = []
        for value in values:
            if not isinstance(value, list):
                shown = "<invalid reflect.Value>" if value is NO_VALUE else gofmt.v(value)
                raise JSONPathError(f"{shown} is not array or slice and cannot be filtered", values)
            for item in value:
                if node.operator == "exists":
                    try:
                        lefts = self.walk_list([item], node.left)
                    except JSONPathError as err:
                        lefts = err.partial
                    if lefts:
                        results.append(item)
                    continue
                left = self._operand(values, item, node.left)
                if left is _MISSING:
                    continue
                right = self._operand(values, item, node.right)
                if right is _MISSING:
                    continue
                try:
                    matched = _compare(node.operator, left, right)
                except JSONPathError as err:
                    err.partial = results
                    raise
                if matched:
                    results.append(item)
        return results

    def _operand(self, values: list[Any], item: Any, side: ListNode) -> Any:
        """The one value a side of a comparison gives for `item`, or _MISSING when it gives none."""
        try:
            found = self.walk_list([item], side)
        except JSONPathError as err:
            err.partial = values
            raise
        if not found:
            return _MISSING
        if len(found) > 1:
            raise JSONPathError("can only compare one element at a time", values)
        return found[0]


def _children(value: Any) -> list[Any]:
    """What a wildcard or a recursive descent steps into: a map's values, a list's items, and, as Go's
    reflection does, a string's bytes."""
    if isinstance(value, dict):
        return list(value.values())
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        return list(value.encode("utf-8", "surrogatepass"))
    return []


def _descend(values: list[Any]) -> list[Any]:
    """Every value with children, itself first and then everything below it, depth first."""
    results: list[Any] = []
    stack = list(reversed(values))
    while stack:
        value = stack.pop()
        children = _children(value)
        if children:
            results.append(value)
            stack.extend(reversed(children))
    return results


# Go text/template's comparison kinds, as the forked funcs.go sorts values into them
_BOOL, _INT, _FLOAT, _STRING = "bool", "int", "float", "string"


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return _BOOL
    if isinstance(value, int):
        return _INT
    if isinstance(value, float):
        return _FLOAT
    if isinstance(value, str):
        return _STRING
    raise JSONPathError("invalid type for comparison")


def _equal(left: Any, right: Any) -> bool:
    if _kind(left) != _kind(right):
        raise JSONPathError("incompatible types for comparison")
    return bool(left == right)


def _less(left: Any, right: Any) -> bool:
    kind = _kind(left)
    if kind != _kind(right):
        raise JSONPathError("incompatible types for comparison")
    if kind == _BOOL:
        raise JSONPathError("invalid type for comparison")
    return bool(left < right)


def _compare(operator: str, left: Any, right: Any) -> bool:
    if operator == "==":
        return _equal(left, right)
    if operator == "!=":
        return not _equal(left, right)
    if operator == "<":
        return _less(left, right)
    if operator == ">":
        return not (_less(left, right) or _equal(left, right))
    if operator == "<=":
        return _less(left, right) or _equal(left, right)
    if operator == ">=":
        return not _less(left, right)
    raise JSONPathError(f"unrecognized filter operator {operator}")


# -- printing --------------------------------------------------------------------------------------------


def text_of(value: Any) -> str:
    """How client-go prints one result: maps and lists as compact JSON (Go's encoding/json: keys sorted,
    HTML characters escaped), null as `null`, NO_VALUE as `<no value>`, anything else as fmt prints it."""
    if isinstance(value, dict | list):
        return gofmt.json(value)
    if value is None:
        return "null"
    if value is NO_VALUE:
        return "<no value>"
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and not _INT64_MIN <= value <= _INT64_MAX:
        return gofmt.float_v(float(value))  # kube decodes an integer beyond int64 as a float64
    return gofmt.v(value)


def print_results(values: list[Any], *, json_output: bool = False) -> str:
    """client-go's `PrintResults`: one action's values, each printed, separated by single spaces; with
    `json_output` (kubectl's `-o jsonpath-as-json`), the values as one indented JSON array and a newline."""
    if json_output:
        return _indented([None if value is NO_VALUE else value for value in values], 0) + "\n"
    return " ".join(text_of(value) for value in values)


def _indented(value: Any, depth: int) -> str:
    """encoding/json.MarshalIndent(value, "", "    ")."""
    if isinstance(value, dict) and value:
        inner = "    " * (depth + 1)
        members = (f"{inner}{gofmt.json(str(key))}: {_indented(value[key], depth + 1)}" for key in sorted(value))
        return "{\n" + ",\n".join(members) + "\n" + "    " * depth + "}"
    if isinstance(value, list) and value:
        inner = "    " * (depth + 1)
        return "[\n" + ",\n".join(inner + _indented(item, depth + 1) for item in value) + "\n" + "    " * depth + "]"
    return gofmt.json(value)


# -- the compiled template -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Template:
    """A parsed template. `fields` is set when the template is one action of plain field steps (`{.a.b}`),
    which `find_results` walks without the general evaluator."""

    text: str
    root: ListNode
    fields: tuple[str, ...] | None

    def find_results(self, data: Any, *, allow_missing_keys: bool = False) -> list[list[Any]]:
        """client-go's `FindResults`: for each text and action of the template, the values it gives."""
        if self.fields is not None:
            value = data
            for name in self.fields:
                if not isinstance(value, dict) or (value := value.get(name, _MISSING)) is _MISSING:
                    if allow_missing_keys:
                        return [[]]
                    raise JSONPathError(f"{name} is not found")
            return [[value]]
        return _Run(allow_missing_keys).find(self.root.nodes, 0, data)

    def execute(self, data: Any, *, allow_missing_keys: bool = False, json_output: bool = False) -> str:
        """client-go's `Execute`: the template's text with each action replaced by its printed values
        (`json_output`: each text and action as a JSON array, as `EnableJSONOutput` prints them; a range
        over a null item, on which client-go panics, gives null there)."""
        found = self.find_results(data, allow_missing_keys=allow_missing_keys)
        return "".join(print_results(values, json_output=json_output) for values in found)


def _plain_fields(root: ListNode) -> tuple[str, ...] | None:
    if len(root.nodes) != 1 or not isinstance(action := root.nodes[0], ListNode) or not action.nodes:
        return None
    if not all(isinstance(node, FieldNode) for node in action.nodes):
        return None
    return tuple(node.name for node in action.nodes if isinstance(node, FieldNode))


def parse(text: str) -> Template:
    """Compile a template (`{.status.phase}`, `{range .items[*]}{.metadata.name} {end}`); JSONPathError
    with client-go's message when it does not parse."""
    root = _Parser(text).parse()
    return Template(text, root, _plain_fields(root))
