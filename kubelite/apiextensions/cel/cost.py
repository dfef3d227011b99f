"""Cost of a rule: kube's static estimate at CRD validation, and a bound at run time.

kube estimates each expression with cel-go's cost model (cel-go `checker/cost.go`, with kube's estimator for
its own functions in k8s.io/apiserver/pkg/cel/library/cost.go), where the schema's maxLength, maxItems and
maxProperties bound the sizes, multiplies it by how many times the rule can run in one object (the
cardinality), and refuses a CRD whose rule exceeds `STATIC_ESTIMATED_COST_LIMIT` or whose rules together
exceed `STATIC_ESTIMATED_CRD_COST_LIMIT`. At run time cel-go counts the actual cost and stops an evaluation past
`PER_CALL_LIMIT`, and an object's rules share `RUNTIME_CEL_COST_BUDGET`.

cel-expr-python counts nothing, so `estimate` walks the checked AST with the same rules: 1 per identifier and
field selection, 0 per constant and presence test, 1 per plain call, 0.1 per character traversed, 0.25 per
regex character times the string, 10/30/40 to build a list/map/message, a comprehension's body once per
element of its range, and sizes that flow through paths (`self.spec.items.@items.name`), literals, function
results and comprehension variables. Only upper bounds are kept (kube compares the maximum). At run time the
same walk runs with the sizes the object really has at each path (`observed_sizes`): a bound never below what
cel-go counts for the same object, so a rule can be refused before it runs, never cut off half way.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from kubelite.apiextensions.cel.checked import DYN, CelType, Node
from kubelite.apiextensions.cel.decl import Decl

PER_CALL_LIMIT = 1_000_000
RUNTIME_CEL_COST_BUDGET = 10_000_000
STATIC_ESTIMATED_COST_LIMIT = 10_000_000
STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000

U64 = 2**64 - 1
_TRAVERSE = 0.1
_REGEX = 0.25
_MAX_NAME_FORMAT_REGEX = 128

Path = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Size:
    lo: int
    hi: int

    def union(self, other: Size) -> Size:
        return Size(min(self.lo, other.lo), max(self.hi, other.hi))

    def plus(self, other: Size) -> Size:
        return Size(_sat(self.lo + other.lo), _sat(self.hi + other.hi))

    def times(self, other: Size) -> Size:
        return Size(_sat(self.lo * other.lo), _sat(self.hi * other.hi))


UNKNOWN = Size(0, U64)
ONE = Size(1, 1)

#: the size at a path from a root variable ("@items", "@values", "@keys" step into lists and maps)
SizeOf = Callable[[Path], Size | None]


def _sat(value: int) -> int:
    return value if value < U64 else U64


def _factor(value: int, factor: float) -> int:
    return _sat(math.ceil(value * factor)) if value < U64 else U64


@dataclass(slots=True)
class _Entry:
    """The sizes of the keys and values of a list or map built in the expression."""

    container: str  # list or map
    key: Size
    value: Size


@dataclass(slots=True)
class _Var:
    path: Path
    size: Size | None
    entry: _Entry | None


_SCALARS = frozenset({"bool", "double", "duration", "int", "timestamp", "uint"})
_LIST_FUNCTIONS = frozenset({"isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"})
_COMPARISONS = frozenset(
    {"less_string", "greater_string", "less_equals_string", "greater_equals_string", "less_bytes",
     "greater_bytes", "less_equals_bytes", "greater_equals_bytes", "equals", "not_equals"}
)
_UNIT_COST = frozenset(
    {"masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
     "isLinkLocalUnicast", "isGlobalUnicast", "format.named", "sign", "asInteger", "isInteger",
     "asApproximateFloat", "isGreaterThan", "isLessThan", "compareTo", "add", "sub", "getScheme", "getHostname",
     "getHost", "getPort", "getEscapedPath", "getQuery", "major", "minor", "patch"}
)
_ACCUMULATORS = frozenset({"@result", "__result__"})


def _is_scalar(t: CelType) -> bool:
    if t.kind in _SCALARS:
        return True
    return t.kind == "abstract" and t.name == "optional_type" and bool(t.params) and _is_scalar(t.params[0])


class _Coster:
    def __init__(self, size_of: SizeOf, types: Mapping[int, CelType]) -> None:
        self.size_of = size_of
        self.types = types
        self.paths: dict[int, Path] = {}
        self.sizes: dict[int, Size] = {}
        self.entries: dict[int, _Entry] = {}
        self.scopes: dict[str, list[_Var]] = {}
        self.consulted: dict[Path, None] = {}

    # -- bookkeeping -------------------------------------------------------------------------------

    def type_of(self, node: Node) -> CelType:
        return self.types.get(node.id, DYN)

    def var(self, name: str) -> _Var | None:
        stack = self.scopes.get(name)
        return stack[-1] if stack else None

    def push(self, name: str, var: _Var) -> None:
        self.scopes.setdefault(name, []).append(var)

    def pop(self, name: str) -> None:
        self.scopes[name].pop()

    def path(self, node: Node) -> Path:
        if node.kind == "ident":
            var = self.var(node.name)
            if var is not None:
                return var.path
        return self.paths.get(node.id, ())

    def size(self, node: Node) -> Size | None:
        """cel-go's computeSize: a size already computed, a literal's, the path's, a scalar's, a variable's."""
        found = self.sizes.get(node.id)
        if found is not None:
            return found
        if node.kind == "const":
            value = node.value
            if isinstance(value, str | bytes):
                return Size(len(value), len(value))
            return ONE
        if node.kind in ("list", "map"):
            return Size(len(node.args), len(node.args))
        path = self.path(node)
        if path and path[0] not in _ACCUMULATORS:
            by_path = self.size_of(path)
            if by_path is not None:
                self.consulted[path] = None
                self.sizes[node.id] = by_path
                return by_path
        if _is_scalar(self.type_of(node)):
            return ONE
        if node.kind == "ident":
            var = self.var(node.name)
            if var is not None and var.size is not None:
                return var.size
        return None

    def size_or_unknown(self, node: Node) -> Size:
        found = self.size(node)
        return found if found is not None else UNKNOWN

    def entry(self, node: Node) -> _Entry | None:
        found = self.entries.get(node.id)
        if found is not None:
            return found
        if node.kind == "ident":
            var = self.var(node.name)
            if var is not None:
                return var.entry
        return None

    # -- costs ---------------------------------------------------------------------------------------

    def cost(self, node: Node | None) -> int:
        if node is None:
            return 0
        kind = node.kind
        if kind == "const":
            return 0
        if kind == "ident":
            var = self.var(node.name)
            self.paths[node.id] = var.path if var is not None else (node.name,)
            return 1
        if kind == "has":
            # kube keeps has() free (PresenceTestHasCost(false))
            return self.cost(node.target)
        if kind == "select":
            assert node.target is not None
            total = self.cost(node.target)
            if self.type_of(node.target).kind in ("map", "message", "type_param") or self._selects_object(node):
                total += 1
            self.paths[node.id] = (*self.path(node.target), node.name)
            return total
        if kind == "list":
            total = sum(self.cost(a) for a in node.args)
            value = Size(U64, 0) if node.args else Size(0, 0)
            for a in node.args:
                value = value.union(self.size_or_unknown(a))
            self.entries[node.id] = _Entry("list", ONE, value)
            return _sat(total + 10)
        if kind == "map":
            total = sum(self.cost(k) for k in node.keys) + sum(self.cost(a) for a in node.args)
            key, value = (Size(U64, 0), Size(U64, 0)) if node.args else (Size(0, 0), Size(0, 0))
            for k in node.keys:
                key = key.union(self.size_or_unknown(k))
            for a in node.args:
                value = value.union(self.size_or_unknown(a))
            self.entries[node.id] = _Entry("map", key, value)
            return _sat(total + 30)
        if kind == "struct":
            return _sat(sum(self.cost(a) for a in node.args) + 40)
        if kind == "comprehension":
            return self._comprehension(node)
        return self._call(node)

    def _selects_object(self, node: Node) -> bool:
        # an object is a struct in kube (a selection from it costs 1); it is a map(string, dyn) here, whose
        # values are dyn to the checker, so the schema says what the operand is
        assert node.target is not None
        path = self.path(node.target)
        if not path:
            return False
        return self.size_of(path) is not None and self._declared_kind(path) in ("object", "map")

    def _declared_kind(self, path: Path) -> str | None:
        kind_of = getattr(self.size_of, "kind_of", None)
        return kind_of(path) if kind_of is not None else None

    def _comprehension(self, node: Node) -> int:
        assert node.iter_range is not None and node.accu_init is not None
        if self._is_bind(node):
            total = self.cost(node.iter_range) + self.cost(node.accu_init)
            self.push(node.accu_var, _Var(self.path(node.accu_init), self.size(node.accu_init),
                                          self.entry(node.accu_init)))
            total += self.cost(node.result)
            self.pop(node.accu_var)
            if node.result is not None:
                result_size = self.size(node.result)
                if result_size is not None:
                    self.sizes[node.id] = result_size
            return _sat(total)
        total = self.cost(node.iter_range) + self.cost(node.accu_init)
        self.push(node.accu_var, _Var(self.path(node.accu_init), self.size(node.accu_init),
                                      self.entry(node.accu_init)))
        range_entry = self.entry(node.iter_range)
        container = range_entry.container if range_entry is not None else self.type_of(node.iter_range).kind
        if container not in ("list", "map"):
            # a field of an object is dyn to the checker: the schema says whether it is a list
            container = self._declared_kind(self.path(node.iter_range)) or container
        if container == "list":
            item_size = range_entry.value if range_entry is not None else None
            step = "@items"
        else:
            item_size = range_entry.key if range_entry is not None else None
            step = "@keys"
        self.push(node.iter_var, _Var((*self.path(node.iter_range), step), item_size, None))
        body = self.cost(node.loop_condition) + self.cost(node.loop_step)
        self.pop(node.iter_var)
        total += self.cost(node.result)
        self.pop(node.accu_var)
        count = self.size_or_unknown(node.iter_range)
        total = _sat(total + _sat(count.hi * body))
        init_kind = node.accu_init.kind
        if init_kind == "const":
            init_size = self.size(node.accu_init)
            if init_size is not None:
                self.sizes[node.id] = init_size
        elif init_kind in ("list", "map"):
            self.sizes[node.id] = count
            if node.loop_step is not None:
                step_entry = self.entry(node.loop_step)
                if step_entry is not None:
                    self.entries[node.id] = step_entry
        return total

    @staticmethod
    def _is_bind(node: Node) -> bool:
        condition = node.loop_condition
        return (node.iter_range is not None and node.iter_range.kind == "list" and not node.iter_range.args
                and condition is not None and condition.kind == "const" and condition.value is False
                and node.accu_var not in _ACCUMULATORS)

    def _call(self, node: Node) -> int:
        if node.name == "dyn" and len(node.args) == 1:
            total = 1 + self.cost(node.args[0])
            inner = self.size(node.args[0])
            if inner is not None:
                self.sizes[node.id] = inner
            entry = self.entry(node.args[0])
            if entry is not None:
                self.entries[node.id] = entry
            return _sat(total)
        arg_costs = [self.cost(a) for a in node.args]
        if node.name == "_?._":
            # cel-go's select_optional_field: a plain call
            return _sat(1 + sum(arg_costs))
        if not node.overloads:
            return 0
        total = 0
        if node.target is not None:
            total += self.cost(node.target)
        function_cost = 0
        result: Size | None = None
        for overload in node.overloads:
            cost, size = self._function(node, overload, arg_costs)
            function_cost = max(function_cost, cost)
            if size is not None:
                result = size if result is None else result.union(size)
            if overload in ("index_list", "index_map") and node.args:
                container = self.entry(node.args[0])
                result = container.value if container is not None else result
                self.paths[node.id] = (*self.path(node.args[0]),
                                       "@items" if overload == "index_list" else "@values")
            if result is None:
                result = self._computed(node)
        if result is not None:
            self.sizes[node.id] = result
        return _sat(total + function_cost)

    def _computed(self, node: Node) -> Size | None:
        path = self.paths.get(node.id)
        if path and path[0] not in _ACCUMULATORS:
            by_path = self.size_of(path)
            if by_path is not None:
                self.consulted[path] = None
                return by_path
        if _is_scalar(self.type_of(node)):
            return ONE
        return None

    def _element_size(self, target: Node) -> Size | None:
        """kube's listElementNode: for a list reached by a path, the size of its elements when they are strings
        or bytes (0 for other elements); None when the target is no such list."""
        t = self.type_of(target)
        path = self.path(target)
        if not path:
            return None
        is_list = t.kind == "list" or self._declared_kind(path) == "list"
        if not is_list:
            return None
        item_path = (*path, "@items")
        item_kind = t.params[0].kind if t.kind == "list" and t.params else "dyn"
        declared = self._declared_kind(item_path)
        if item_kind in ("string", "bytes") or declared in ("string", "bytes"):
            found = self.size_of(item_path)
            if found is not None:
                self.consulted[item_path] = None
            return found if found is not None else UNKNOWN
        return Size(0, 0)

    def _function(self, node: Node, overload: str, arg_costs: list[int]) -> tuple[int, Size | None]:
        args = node.args
        target = node.target
        name = node.name
        arg_sum = _sat(sum(arg_costs))
        if (overload == "optional_ofNonZeroValue" and len(args) == 1 and args[0].kind == "call"
                and args[0].name.startswith("__kubernetes_")):
            # the wrapper compile puts around a rewritten call costs nothing of its own (see library.format)
            return arg_sum, self.size(args[0])
        kube = self._kube_function(node, name, overload, target, args)
        if kube is not None:
            return _sat(kube[0] + arg_sum), kube[1]
        if overload == "string_format" and target is not None:
            return _sat(_factor(self.size_or_unknown(target).hi, _TRAVERSE) + arg_sum), None
        if overload in ("string_to_bytes", "bytes_to_string") and len(args) == 1:
            size = self.size_or_unknown(args[0])
            result = Size(size.lo, _sat(size.hi * 4)) if overload == "string_to_bytes" else Size(size.lo // 4,
                                                                                                 size.hi)
            return _sat(_factor(size.hi, _TRAVERSE) + arg_sum), result
        if overload == "strings_quote" and len(args) == 1:
            size = self.size_or_unknown(args[0])
            return _sat(_factor(size.hi, _TRAVERSE) + arg_sum), Size(size.lo + 2, _sat(size.hi * 2 + 2))
        if overload in ("starts_with_string", "ends_with_string") and len(args) == 1:
            return _sat(_factor(self.size_or_unknown(args[0]).hi, _TRAVERSE) + arg_sum), None
        if overload == "in_list" and len(args) == 2:
            return _sat(self.size_or_unknown(args[1]).hi + arg_sum), None
        if overload == "matches_string" and target is not None and len(args) == 1:
            text = _factor(_sat(self.size_or_unknown(target).hi + 1), _TRAVERSE)
            regex = _factor(self.size_or_unknown(args[0]).hi, _REGEX)
            return _sat(_sat(text * regex) + arg_sum), None
        if overload == "contains_string" and target is not None and len(args) == 1:
            text = _factor(self.size_or_unknown(target).hi, _TRAVERSE)
            sub = _factor(self.size_or_unknown(args[0]).hi, _TRAVERSE)
            return _sat(_sat(text * sub) + arg_sum), None
        if overload in ("logical_or", "logical_and"):
            return arg_sum, None
        if overload == "conditional" and len(args) == 3:
            size = self.size_or_unknown(args[1]).union(self.size_or_unknown(args[2]))
            left, right = self.entry(args[1]), self.entry(args[2])
            if left is not None and right is not None:
                self.entries[node.id] = _Entry(left.container, left.key.union(right.key),
                                               left.value.union(right.value))
            return _sat(arg_costs[0] + max(arg_costs[1], arg_costs[2])), size
        if overload in ("add_string", "add_bytes", "add_list") and len(args) == 2:
            size = self.size_or_unknown(args[0]).plus(self.size_or_unknown(args[1]))
            left, right = self.entry(args[0]), self.entry(args[1])
            if left is not None and right is not None:
                self.entries[node.id] = _Entry(left.container, left.key.union(right.key),
                                               left.value.union(right.value))
            # cel-go concatenates lists as a view (cost 1); the runtime here copies them, so a concatenation costs
            # its result's size, as a string's does: doubling a list eight times is not cheap
            return _sat(_factor(size.hi, _TRAVERSE) + arg_sum), size
        if overload in _COMPARISONS and len(args) == 2:
            smallest = min(self.size_or_unknown(args[0]).hi, self.size_or_unknown(args[1]).hi)
            return _sat(_factor(smallest, _TRAVERSE) + arg_sum), None
        return _sat(1 + arg_sum), None

    def _kube_function(self, node: Node, name: str, overload: str, target: Node | None,
                       args: list[Node]) -> tuple[int, Size | None] | None:
        """kube's CostEstimator.EstimateCallCost for its libraries (and the strings extension)."""
        if name in _LIST_FUNCTIONS and target is not None:
            element = self._element_size(target)
            if element is not None:
                per_item = 1 + _factor(element.hi, _TRAVERSE)
                return _sat(self.size_or_unknown(target).hi * per_item), None
            return _factor(self.size_or_unknown(target).hi, _TRAVERSE), None
        if name == "url" and len(args) == 1:
            size = self.size_or_unknown(args[0])
            return _factor(size.hi, _TRAVERSE), size
        if name in ("lowerAscii", "upperAscii", "substring", "trim") and target is not None:
            size = self.size_or_unknown(target)
            return _factor(size.hi, _TRAVERSE), size
        if name == "replace" and target is not None and len(args) >= 2:
            return self._replace(target, args)
        if name == "split" and target is not None:
            size = self.size_or_unknown(target)
            limit = size.hi
            if len(args) > 1 and args[1].kind == "const" and isinstance(args[1].value, int):
                limit = args[1].value
            return _factor(size.hi, 2 * _TRAVERSE), Size(0, max(limit, 0))
        if name == "join" and target is not None:
            items = self.size_or_unknown(target)
            element = self._element_size(target)
            size = items.times(element) if element is not None else Size(0, 0)
            if args:
                separators = Size(max(items.lo - 1, 0), max(items.hi - 1, 0))
                size = size.plus(self.size_or_unknown(args[0]).times(separators))
            return _factor(size.hi, _TRAVERSE), size
        if name in ("find", "findAll") and target is not None and args:
            size = self.size_or_unknown(target)
            text = _factor(_sat(size.hi + 1), _TRAVERSE)
            regex = _factor(self.size_or_unknown(args[0]).hi, _REGEX)
            return _sat(text * regex), Size(0, size.hi)
        if name in ("cidr", "isIP", "isCIDR", "quantity", "isQuantity", "semver", "isSemver") and args:
            return _factor(self.size_or_unknown(args[0]).hi, _TRAVERSE), None
        if name == "ip":
            if overload == "cidr_ip":
                return 1, None
            if args:
                return _factor(self.size_or_unknown(args[0]).hi, _TRAVERSE), None
        if name == "ip.isCanonical" and args:
            return _factor(self.size_or_unknown(args[0]).hi, 2 * _TRAVERSE), None
        if name in ("containsIP", "containsCIDR") and args:
            cost = math.ceil((16 + 16) * _TRAVERSE)
            if name == "containsCIDR":
                cost += math.ceil(16 * _TRAVERSE) + 1
            if overload in ("cidr_contains_ip_string", "cidr_contains_cidr_string"):
                cost += _factor(self.size_or_unknown(args[0]).hi, _TRAVERSE)
            return _sat(cost), None
        if name == "__kubernetes_format_validate" and len(args) >= 2:
            # validate(<format>, s): kube sizes its string argument
            text = _factor(self.size_or_unknown(args[1]).hi, _TRAVERSE)
            return _factor(text, _MAX_NAME_FORMAT_REGEX * _REGEX), None
        if name in _UNIT_COST:
            return 1, None
        if name == "_==_" and len(args) == 2:
            left, right = self.type_of(args[0]), self.type_of(args[1])
            if left == right and left.kind == "message":
                if left.name in ("net.IP", "net.CIDR", "kubernetes.Quantity", "kubernetes.Semver"):
                    return 1, None
                if left.name == "kubernetes.NamedFormat":
                    return math.ceil(64 * _TRAVERSE), None
                if left.name == "kubernetes.URL":
                    return _factor(self.size_or_unknown(args[1]).hi, _TRAVERSE), None
        return None

    def _replace(self, target: Node, args: list[Node]) -> tuple[int, Size | None]:
        size = self.size_or_unknown(target)
        old = self.size_or_unknown(args[0])
        new = self.size_or_unknown(args[1])
        if old.lo == 0:
            count_hi, kept_hi = (_sat(size.hi + 1) if size.hi < U64 else size.hi), size.hi
        elif new.hi <= old.lo:
            count_hi, kept_hi = 0, size.hi
        else:
            count_hi, kept_hi = math.ceil(size.hi / old.lo), 0
        if old.hi == 0:
            count_lo, kept_lo = (size.lo + 1 if size.lo < U64 else size.lo), size.lo
        elif old.hi <= new.lo:
            count_lo, kept_lo = 0, size.lo
        else:
            count_lo, kept_lo = math.ceil(size.lo / old.hi), 0
        result = Size(count_lo, count_hi).times(new).plus(Size(kept_lo, kept_hi))
        return _factor(size.hi, 2 * _TRAVERSE), result


@dataclass(slots=True)
class Estimate:
    cost: int
    sized: bool  # whether the cost depends on the size of a value at some path
    paths: tuple[Path, ...] = ()  # the paths whose sizes it depends on


def estimate(root: Node, size_of: SizeOf, types: Mapping[int, CelType] | None = None) -> Estimate:
    """The worst-case cost of the expression at `root` when the value at each path has at most `size_of` it."""
    coster = _Coster(size_of, types or {})
    cost = coster.cost(root)
    return Estimate(cost, bool(coster.consulted), tuple(coster.consulted))


class _DeclaredSizes:
    """kube's sizeEstimator: the max elements of the schema node a path leads to (from the root, whatever
    the root variable), 0 for objects and scalars; `kind_of` tells what the node is."""

    def __init__(self, root: Decl) -> None:
        self.root = root

    def node(self, path: Path) -> Decl | None:
        node: Decl | None = self.root
        for step in path[1:]:
            if node is None:
                return None
            if step in ("@items", "@values"):
                node = node.elem
            elif step == "@keys":
                return Decl("string") if node.kind == "map" else None
            else:
                node = node.fields.get(step) if node.kind == "object" else None
        return node

    def __call__(self, path: Path) -> Size | None:
        node = self.node(path)
        if node is None:
            return None
        return Size(0, node.max_elements if node.kind in ("list", "map", "string", "bytes", "dyn", "duration",
                                                          "timestamp") else 0)

    def kind_of(self, path: Path) -> str | None:
        node = self.node(path)
        return node.kind if node is not None else None


def declared_sizes(root: Decl) -> SizeOf:
    return _DeclaredSizes(root)


class _ObservedSizes:
    """The sizes an object really has: the longest value found at a path, across every element of a list.
    Kinds come from the schema, as for the static estimate."""

    def __init__(self, value: object, declared: _DeclaredSizes | None) -> None:
        self.value = value
        self.declared = declared

    def __call__(self, path: Path) -> Size | None:
        if self.declared is not None and self.declared(path) is None:
            return None
        current: list[object] = [self.value]
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
        longest = max((len(v) for v in current if isinstance(v, str | bytes | list | dict)), default=0)
        return Size(0, longest)

    def kind_of(self, path: Path) -> str | None:
        return self.declared.kind_of(path) if self.declared is not None else None


def observed_sizes(value: object, root: Decl | None = None) -> SizeOf:
    return _ObservedSizes(value, _DeclaredSizes(root) if root is not None else None)


class RuntimeBound:
    """The cost bound of one expression for a given object, remembered by the sizes it depends on (objects
    of one kind repeat the same few sizes, and the walk of the AST costs more than the rule itself)."""

    __slots__ = ("_cache", "_decl", "_paths", "_root", "_static", "_types")

    def __init__(self, root: Node, static: Estimate, types: Mapping[int, CelType], decl: Decl) -> None:
        self._root = root
        self._static = static
        self._paths = static.paths
        self._types = types
        self._decl = decl
        self._cache: dict[tuple[Size | None, ...], int] = {}

    def of(self, value: object) -> int:
        if not self._static.sized:
            return self._static.cost
        sizes = observed_sizes(value, self._decl)
        key = tuple(sizes(path) for path in self._paths)
        found = self._cache.get(key)
        if found is None:
            if len(self._cache) >= 256:
                self._cache.clear()
            found = self._cache[key] = estimate(self._root, sizes, self._types).cost
        return found


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
