"""The compile-time check of field selections against the schema ("undefined field 'x'").

kube declares an object's type with exactly its properties, so cel-go's checker refuses `self.spec.nmae`.
Objects are `map(string, dyn)` here (see decl), which the checker cannot refuse that way, so this walk of the
checked AST follows `self`, `oldSelf`, comprehension and `cel.bind` variables through the schema and reports a
selection (`.x`, `has(.x)`, `.?x`) of a field the object does not declare, in cel-go's error form.
"""

from __future__ import annotations

from kubelite.apiextensions.cel.checked import Node
from kubelite.apiextensions.cel.decl import Decl


def _type_of(node: Node, scope: dict[str, Decl | None], errors: list[tuple[int, str]]) -> Decl | None:
    """The Decl of the value `node` yields when known, reporting undefined fields found on the way."""
    kind = node.kind
    if kind == "ident":
        return scope.get(node.name)
    if kind in ("select", "has") and node.target is not None:
        base = _type_of(node.target, scope, errors)
        return _field(node, base, node.name, errors)
    if kind == "comprehension":
        assert node.iter_range is not None
        range_decl = _type_of(node.iter_range, scope, errors)
        inner = dict(scope)
        inner[node.iter_var] = range_decl.elem if range_decl is not None and range_decl.kind == "list" else None
        accu_decl = _type_of(node.accu_init, scope, errors) if node.accu_init is not None else None
        inner[node.accu_var] = accu_decl
        for part in (node.loop_condition, node.loop_step):
            if part is not None:
                _type_of(part, inner, errors)
        return _type_of(node.result, inner, errors) if node.result is not None else None
    if kind == "call":
        target = _type_of(node.target, scope, errors) if node.target is not None else None
        args = [_type_of(a, scope, errors) for a in node.args]
        if node.name == "_?._" and len(node.args) == 2 and node.args[1].kind == "const":
            _field(node, args[0], str(node.args[1].value), errors)
            return None
        if node.name == "_[_]" and len(args) == 2 and args[0] is not None and args[0].kind in ("list", "map"):
            return args[0].elem
        del target
        return None
    for child in (node.target, *node.args, *node.keys):
        if child is not None:
            _type_of(child, scope, errors)
    return None


def _field(node: Node, base: Decl | None, name: str, errors: list[tuple[int, str]]) -> Decl | None:
    if base is None:
        return None
    if base.kind == "object":
        if name not in base.fields:
            errors.append((node.id, f"undefined field '{name}'"))
            return None
        return base.fields[name]
    if base.kind == "map":
        return base.elem
    return None


def undefined_fields(root: Node, scope: dict[str, Decl | None]) -> list[tuple[int, str]]:
    """(node id, message) of each selection of a field the schema does not declare."""
    errors: list[tuple[int, str]] = []
    _type_of(root, scope, errors)
    return errors


def render(source: str, offset: int, message: str) -> str:
    """cel-go's issue text: `ERROR: <input>:line:col: message` and the line with a caret under the column."""
    line_start = source.rfind("\n", 0, offset) + 1
    line_end = source.find("\n", offset)
    line_no = source.count("\n", 0, offset) + 1
    column = offset - line_start
    text = source[line_start:] if line_end < 0 else source[line_start:line_end]
    return f"ERROR: <input>:{line_no}:{column + 1}: {message}\n | {text}\n | {'.' * column}^"


def invalid_literals(root: Node) -> list[tuple[int, str]]:
    """cel-go's literal validators, which kube enables: a constant regex given to `matches`, and a constant
    string given to `duration()` or `timestamp()`, must parse ("invalid matches argument", ...)."""
    found: list[tuple[int, str]] = []
    _literals(root, found)
    return found


def _literals(node: Node | None, found: list[tuple[int, str]]) -> None:
    if node is None:
        return
    for child in (node.target, *node.args, *node.keys, node.iter_range, node.accu_init, node.loop_condition,
                  node.loop_step, node.result):
        _literals(child, found)
    if node.kind != "call" or not node.args or node.args[0].kind != "const" or not isinstance(node.args[0].value,
                                                                                              str):
        return
    literal = node.args[0]
    if node.name == "matches" and not _valid_regex(literal.value):
        found.append((literal.id, "invalid matches argument"))
    elif node.name in ("duration", "timestamp") and node.target is None and len(node.args) == 1:
        if not _evaluates(node.name, literal.value):
            found.append((literal.id, f"invalid {node.name} argument"))


def _valid_regex(pattern: str) -> bool:
    from kubelite.apiextensions.cel.library.regex import compile_pattern

    try:
        compile_pattern(pattern)
    except ValueError:
        return False
    return True


def _evaluates(function: str, text: str) -> bool:
    from kubelite.apiextensions.cel.library import literal_check

    return literal_check(function, text)
