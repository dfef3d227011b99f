"""Cost of a rule: kube's static estimate at CRD validation, and a bound at run time.

kube estimates each expression with cel-go's cost model (k8s.io/apiserver/pkg/cel/library/cost.go and
cel-go's checker/cost.go) where the schema's maxLength/maxItems/maxProperties bound the sizes, multiplies it by
how many times the rule can run in one object (the cardinality), and refuses a CRD whose rule exceeds
`STATIC_ESTIMATED_COST_LIMIT` or whose rules together exceed `STATIC_ESTIMATED_CRD_COST_LIMIT`. At run time cel-go
counts the actual cost and stops an evaluation past `PER_CALL_LIMIT`, and an object's rules share
`RUNTIME_CEL_COST_BUDGET`.

cel-expr-python counts nothing, so the same estimator walks the checked AST of a rule; at run time it walks it
again with the sizes the object really has (the longest string, list or map found at each path the rule
reads) in place of the schema's bounds. That bound is never below what cel-go would count for the same
object, so a rule can be refused before it runs, never cut off half way. The unit costs follow cel-go: 1 per
identifier, selection and plain call, 0.1 per traversed character, 0.25 per regex character times the string,
10/30/40 to build a list/map/message, and a comprehension costs its body once per element of its range.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from kubelite.apiextensions.cel.checked import Node
from kubelite.apiextensions.cel.decl import MAX_REQUEST_SIZE_BYTES, Decl

PER_CALL_LIMIT = 1_000_000
RUNTIME_CEL_COST_BUDGET = 10_000_000
STATIC_ESTIMATED_COST_LIMIT = 10_000_000
STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000

_STRING_TRAVERSAL = 0.1
_REGEX_LENGTH = 0.25
_LIST_CREATE = 10
_MAP_CREATE = 30
_STRUCT_CREATE = 40
_UNKNOWN_SIZE = MAX_REQUEST_SIZE_BYTES

Path = tuple[str, ...]
#: the size at a path from `self` ("@items", "@values", "@keys" step into lists and maps), None if unknown
SizeOf = Callable[[Path], int | None]

_TRAVERSING = frozenset(
    {"contains", "startsWith", "endsWith", "lowerAscii", "upperAscii", "replace", "split", "substring", "trim",
     "charAt", "indexOf", "lastIndexOf", "join", "format", "quote", "reverse", "url", "isURL", "quantity",
     "isQuantity", "ip", "isIP", "cidr", "isCIDR", "string", "bytes", "base64.encode", "base64.decode",
     "__kubernetes_format_validate"}
)
_REGEX = frozenset({"matches", "find", "findAll"})
_LIST_WALKING = frozenset({"isSorted", "sum", "min", "max", "indexOf", "lastIndexOf", "join"})
_SETS = frozenset({"sets.contains", "sets.equivalent", "sets.intersects"})
_COMPARISONS = frozenset({"_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_", "@in", "_+_"})


def _factor(size: int, factor: float) -> int:
    return math.ceil(size * factor)


@dataclass(slots=True)
class Estimate:
    cost: int
    sized: bool  # whether the cost depends on the size of a value at some path
    paths: tuple[Path, ...] = ()  # the paths whose sizes it depends on


class _Walk:
    def __init__(self, size_of: SizeOf) -> None:
        self.size_of = size_of
        self.sized = False
        self.paths: dict[Path, None] = {}

    def path(self, node: Node, scope: dict[str, Path]) -> Path | None:
        if node.kind == "ident":
            if node.name == "self":
                return ("self",)
            return scope.get(node.name)
        if node.kind == "select" and node.target is not None:
            base = self.path(node.target, scope)
            return None if base is None else (*base, node.name)
        if node.kind == "call" and node.name == "_[_]" and len(node.args) == 2:
            base = self.path(node.args[0], scope)
            return None if base is None else (*base, "@items")
        return None

    def size(self, node: Node, scope: dict[str, Path]) -> int:
        if node.kind == "const":
            value = node.value
            return len(value) if isinstance(value, str | bytes) else 1
        if node.kind in ("list", "map"):
            return len(node.args)
        path = self.path(node, scope)
        if path is not None:
            found = self.size_of(path)
            if found is not None:
                self.sized = True
                self.paths[path] = None
                return found
        return _UNKNOWN_SIZE

    def cost(self, node: Node | None, scope: dict[str, Path]) -> int:
        if node is None:
            return 0
        kind = node.kind
        if kind == "const":
            return 0
        if kind == "ident":
            return 1
        if kind in ("select", "has"):
            return 1 + self.cost(node.target, scope)
        if kind == "list":
            return _LIST_CREATE + sum(self.cost(a, scope) for a in node.args)
        if kind == "map":
            return _MAP_CREATE + sum(self.cost(a, scope) for a in node.args)
        if kind == "struct":
            return _STRUCT_CREATE + sum(self.cost(a, scope) for a in node.args)
        if kind == "comprehension":
            return self._comprehension(node, scope)
        return self._call(node, scope)

    def _comprehension(self, node: Node, scope: dict[str, Path]) -> int:
        assert node.iter_range is not None
        range_path = self.path(node.iter_range, scope)
        inner = dict(scope)
        if range_path is not None:
            inner[node.iter_var] = (*range_path, "@items")
        accu_path = self.path(node.accu_init, scope) if node.accu_init is not None else None
        if accu_path is not None:
            inner[node.accu_var] = accu_path  # cel.bind's variable is its accumulator
        iterations = 0
        if not (node.iter_range.kind == "list" and not node.iter_range.args):
            iterations = self.size(node.iter_range, scope)
        body = self.cost(node.loop_condition, inner) + self.cost(node.loop_step, inner)
        return (self.cost(node.iter_range, scope) + self.cost(node.accu_init, scope) + iterations * body
                + self.cost(node.result, inner))

    def _call(self, node: Node, scope: dict[str, Path]) -> int:
        name = node.name
        args = node.args
        if name == "_?_:_" and len(args) == 3:
            return self.cost(args[0], scope) + max(self.cost(args[1], scope), self.cost(args[2], scope))
        arg_cost = sum(self.cost(a, scope) for a in args) + self.cost(node.target, scope)
        receiver = node.target if node.target is not None else (args[0] if args else None)
        if name in ("_&&_", "_||_", "!_", "@not_strictly_false", "size"):
            return arg_cost + (0 if name in ("_&&_", "_||_") else 1)
        if name in _REGEX and receiver is not None:
            pattern = args[0] if node.target is not None and args else (args[1] if len(args) > 1 else None)
            pattern_size = self.size(pattern, scope) if pattern is not None else 1
            text = _factor(self.size(receiver, scope), _STRING_TRAVERSAL)
            return arg_cost + 1 + text * _factor(pattern_size, _REGEX_LENGTH)
        if name in _SETS and len(args) == 2:
            return arg_cost + 1 + self.size(args[0], scope) * self.size(args[1], scope)
        if name in _LIST_WALKING and receiver is not None and self._is_list(receiver, scope):
            return arg_cost + 1 + self.size(receiver, scope)
        if name in _TRAVERSING and receiver is not None:
            return arg_cost + 1 + _factor(self.size(receiver, scope), _STRING_TRAVERSAL)
        if name in _COMPARISONS and len(args) == 2 and self._is_sized_value(args[0], scope):
            smaller = min(self.size(args[0], scope), self.size(args[1], scope))
            return arg_cost + 1 + _factor(smaller, _STRING_TRAVERSAL)
        return arg_cost + 1

    def _is_list(self, node: Node, scope: dict[str, Path]) -> bool:
        if node.kind == "list":
            return True
        return node.kind != "const" and self.path(node, scope) is not None and self._declared_sized(node, scope)

    def _is_sized_value(self, node: Node, scope: dict[str, Path]) -> bool:
        if node.kind == "const":
            return isinstance(node.value, str | bytes)
        return self.path(node, scope) is not None and self._declared_sized(node, scope)

    def _declared_sized(self, node: Node, scope: dict[str, Path]) -> bool:
        path = self.path(node, scope)
        return path is not None and self.size_of(path) is not None


def estimate(root: Node, size_of: SizeOf) -> Estimate:
    """The worst-case cost of the expression at `root` when the value at each path has at most `size_of` it."""
    walk = _Walk(size_of)
    cost = walk.cost(root, {})
    return Estimate(cost, walk.sized, tuple(walk.paths))


class RuntimeBound:
    """The cost bound of one expression for a given object, remembered by the sizes it depends on (objects
    of one kind repeat the same few sizes, and the walk of the AST costs more than the rule itself)."""

    __slots__ = ("_cache", "_paths", "_root", "_static")

    def __init__(self, root: Node, static: Estimate) -> None:
        self._root = root
        self._static = static
        self._paths = static.paths
        self._cache: dict[tuple[int | None, ...], int] = {}

    def of(self, value: object) -> int:
        if not self._static.sized:
            return self._static.cost
        sizes = observed_sizes(value)
        key = tuple(sizes(path) for path in self._paths)
        found = self._cache.get(key)
        if found is None:
            if len(self._cache) >= 256:
                self._cache.clear()
            found = self._cache[key] = estimate(self._root, sizes).cost
        return found


def declared_sizes(root: Decl) -> SizeOf:
    """The schema's bounds (kube's sizeEstimator): the max elements of the node a path leads to."""

    def size_of(path: Path) -> int | None:
        node: Decl | None = root
        for step in path[1:]:
            if node is None:
                return None
            if step in ("@items", "@values"):
                node = node.elem
            elif step == "@keys":
                return None
            else:
                node = node.fields.get(step) if node.kind == "object" else None
        if node is None or node.kind in ("object", "int", "double", "bool"):
            return None
        return node.max_elements

    return size_of


def observed_sizes(value: object) -> SizeOf:
    """The sizes an object really has: the longest value found at a path, across every element of a list."""

    def size_of(path: Path) -> int | None:
        current: list[object] = [value]
        for step in path[1:]:
            nxt: list[object] = []
            for item in current:
                if step in ("@items", "@values"):
                    if isinstance(item, list):
                        nxt.extend(item)
                    elif isinstance(item, dict):
                        nxt.extend(item.values())
                elif step == "@keys" and isinstance(item, dict):
                    nxt.extend(item.keys())
                elif isinstance(item, dict) and step in item:
                    nxt.append(item[step])
            current = nxt
        sizes = [len(v) for v in current if isinstance(v, str | bytes | list | dict)]
        return max(sizes) if sizes else (0 if not current else None)

    return size_of


def exceed_message(cost_name: str, cost: int, limit: int) -> str:
    """kube's getCostErrorMessage."""
    factor = cost / limit
    if factor > 100.0:
        text = "more than 100x"
    elif factor < 1.5:
        text = f"{factor:f}x"
    else:
        text = f"{factor:.1f}x"
    return (f"{cost_name} exceeds budget by factor of {text} (try simplifying the rule, or adding maxItems, "
            "maxProperties, and maxLength where arrays, maps, and strings are declared)")
