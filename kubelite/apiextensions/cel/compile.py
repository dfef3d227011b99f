"""Compiling the x-kubernetes-validations of a schema: declarations, checked programs, CRD-time errors.

For every schema node with rules this builds the node's environment (`self`, `oldSelf` typed from the node,
kube's libraries), compiles each rule and messageExpression, estimates its cost times the node's cardinality,
and reports what kube's CRD validation reports, at kube's paths and in its words
(pkg/apis/apiextensions/validation: "compilation failed: ...", "cel expression must evaluate to a bool",
"estimated rule cost exceeds budget by factor of ...", the total for the whole schema).

A rule with `optionalOldSelf` sees `oldSelf` as an optional. cel-expr-python cannot declare an optional
variable (nor does kube load cel.bind), so that rule is compiled as
`[<optional made of two hidden variables>].map(oldSelf, <rule>)[0]`, the rule on a line of its own so that
reported positions only need their line number shifted back; its cost is that of the rule alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cel_expr_python import cel

from kubelite.apiextensions.cel import checked, cost, fields
from kubelite.apiextensions.cel.decl import Decl, max_cardinality, schema_decl
from kubelite.apiextensions.cel.library import REWRITES, new_env, runtime_env
from kubelite.apimachinery.validation import FieldError

OLD_PRESENT = "__oldSelfPresent"
OLD_VALUE = "__oldSelfValue"
_WRAP_PREFIX = f"[{OLD_PRESENT} ? optional.of({OLD_VALUE}) : optional.none()].map(oldSelf,\n"
_WRAP_SUFFIX = "\n)[0]"
_STATUS_PREFIX = re.compile(r"^[A-Z_]+: ")
_STATUS_SUFFIX = re.compile(r" \[[A-Z_]+\]$")
_LINE = re.compile(r"<input>:(\d+):")
_NEWLINES = re.compile(r"[\n\r]+")
_REASONS = ("FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired")


@dataclass(slots=True)
class CompiledRule:
    """One rule, compiled: the program, what it reads, and its static cost."""

    rule: Mapping[str, Any]
    program: cel.Expression
    ast: checked.Node
    uses_old_self: bool
    optional_old_self: bool
    static_cost: int
    runtime_bound: cost.RuntimeBound
    message_program: cel.Expression | None = None
    message_ast: checked.Node | None = None
    message_bound: cost.RuntimeBound | None = None
    field_path: str = ""


@dataclass(slots=True)
class NodeRules:
    """The compiled rules of one schema node and of the nodes below it."""

    decl: Decl
    type_name: str
    rules: list[CompiledRule] = field(default_factory=list)
    properties: dict[str, NodeRules] = field(default_factory=dict)
    items: NodeRules | None = None
    additional: NodeRules | None = None
    list_map_keys: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return (not self.rules and not self.properties and self.items is None and self.additional is None)


def _issues(err: Exception, shift: int = 0) -> str:
    text = _STATUS_SUFFIX.sub("", _STATUS_PREFIX.sub("", str(err)))
    if shift:
        text = _LINE.sub(lambda m: f"<input>:{int(m.group(1)) - shift}:", text)
    return text


def _rule_value(rule: Mapping[str, Any]) -> dict[str, Any]:
    # kube prints the internal ValidationRule struct, whose JSON keeps Go's field names
    return {
        "Rule": rule.get("rule", ""),
        "Message": rule.get("message", ""),
        "MessageExpression": rule.get("messageExpression", ""),
        "Reason": rule.get("reason"),
        "FieldPath": rule.get("fieldPath", ""),
        "OptionalOldSelf": rule.get("optionalOldSelf"),
    }


def _runnable(program: cel.Expression) -> cel.Expression:
    """The checked program, its check-only calls rewritten (see library.REWRITES), in the runtime environment."""
    serialized = program.serialize()
    rewritten = checked.rewrite_calls(serialized, REWRITES)
    return runtime_env().deserialize(serialized if rewritten is None else rewritten)


def _wrapped_rule(root: checked.Node) -> checked.Node:
    """The rule inside `[<optional>].map(oldSelf, <rule>)[0]`: the one element the map step appends."""
    comprehension = root.args[0] if root.kind == "call" and root.args else None
    step = comprehension.loop_step if comprehension is not None else None
    if step is not None and step.kind == "call" and len(step.args) == 2 and step.args[1].args:
        return step.args[1].args[0]
    return root


def _reads(node: checked.Node | None, name: str) -> bool:
    """Whether the expression below `node` reads the variable `name`."""
    if node is None:
        return False
    if node.kind == "ident":
        return node.name == name
    children = [node.target, *node.args, *node.keys, node.iter_range, node.accu_init, node.loop_condition,
                node.loop_step, node.result]
    return any(_reads(child, name) for child in children)


_FIELD_PATH_TOKEN = re.compile(r"'(?:[^'\\]|\\.)*'|[.\[\]]|[^.\[\]']+")


def valid_field_path(json_path: str, schema: Mapping[str, Any]) -> str | None:
    """kube's ValidFieldPath: a rule's fieldPath (`.spec.x`, `['a.b']`, `.labels['k']`) followed through the
    schema, as the text of the field.Path it names (a property is a child, a map key is `[key]`); None when it
    does not lead to a field."""
    out = ""
    current: Any = schema
    tokens = _FIELD_PATH_TOKEN.findall(json_path)
    if "".join(tokens) != json_path:
        return None
    i = 0

    def step(name: str) -> bool:
        nonlocal out, current
        if not isinstance(current, Mapping):
            return False
        properties = current.get("properties")
        additional = current.get("additionalProperties")
        if properties:
            if name not in properties:
                return False
            out = f"{out}.{name}" if out else name
            current = properties[name]
        elif isinstance(additional, Mapping):
            out = f"{out}[{name}]"
            current = additional
        else:
            return False
        return True

    while i < len(tokens):
        token = tokens[i]
        if token == "." and i + 1 < len(tokens) and tokens[i + 1] not in ".[]":
            if not step(tokens[i + 1]):
                return None
            i += 2
        elif (token == "[" and i + 2 < len(tokens) and tokens[i + 1].startswith("'") and len(tokens[i + 1]) >= 2
              and tokens[i + 2] == "]"):
            name = re.sub(r"\\(.)", r"\1", tokens[i + 1][1:-1])
            if not step(name):
                return None
            i += 3
        else:
            return None
    return out


class _Compiler:
    def __init__(self) -> None:
        self.errors: list[FieldError] = []
        self.costs: list[tuple[str, int]] = []
        self.shape_errors = 0  # how many errors rule_shapes found so far

    def node(self, schema: Mapping[str, Any], path: str, root: bool, cardinality: int | None,
             uncorrelatable: str | None = None) -> NodeRules | None:
        embedded = root or bool(schema.get("x-kubernetes-embedded-resource"))
        decl = schema_decl(schema, resource_root=embedded)
        if decl is None:
            return None
        out = NodeRules(decl, str(schema.get("type", "")),
                        list_map_keys=tuple(schema.get("x-kubernetes-list-map-keys") or ()))
        shape_errors_before = self.shape_errors
        additional = schema.get("additionalProperties")
        if isinstance(additional, Mapping):
            limit = schema.get("maxProperties")
            sub = self.node(additional, f"{path}.additionalProperties", False,
                            None if cardinality is None or limit is None else cardinality * max(int(limit), 0),
                            uncorrelatable)
            if sub is not None and not sub.empty:
                out.additional = sub
        for name, prop in (schema.get("properties") or {}).items():
            if isinstance(prop, Mapping):
                map_type = schema.get("x-kubernetes-map-type")
                sub = self.node(prop, f"{path}.properties[{name}]", False, cardinality,
                                uncorrelatable or (path if map_type not in (None, "granular", "atomic") else None))
                if sub is not None and not sub.empty:
                    out.properties[name] = sub
        items = schema.get("items")
        if isinstance(items, Mapping):
            limit = schema.get("maxItems")
            # only the items of map lists pair with their old selves
            sub = self.node(items, f"{path}.items", False,
                            None if cardinality is None or limit is None else cardinality * max(int(limit), 0),
                            uncorrelatable or (path if schema.get("x-kubernetes-list-type") != "map" else None))
            if sub is not None and not sub.empty:
                out.items = sub
        rules = [(f"{path}.x-kubernetes-validations[{i}]", rule)
                 for i, rule in enumerate(schema.get("x-kubernetes-validations") or [])]
        # rules under allOf run on this same node (kube's AllOfValidators)
        for i, sub in enumerate(schema.get("allOf") or []):
            if isinstance(sub, Mapping):
                rules += [(f"{path}.allOf[{i}].x-kubernetes-validations[{j}]", rule)
                          for j, rule in enumerate(sub.get("x-kubernetes-validations") or [])]
        # kube checks a node's rules after its children, and compiles none where the rules' own fields are
        # wrong here or below
        if rules and not self.rule_shapes(rules) and self.shape_errors == shape_errors_before:
            card = cardinality if cardinality is not None else max_cardinality(decl.min_size)
            env = new_env({"self": decl.cel_type(), "oldSelf": decl.cel_type()})
            wrapped_env = None
            if any(isinstance(rule, Mapping) and rule.get("optionalOldSelf") for _, rule in rules):
                wrapped_env = new_env({"self": decl.cel_type(), OLD_PRESENT: cel.Type.BOOL,
                                       OLD_VALUE: decl.cel_type()})
            for rule_path, rule in rules:
                if not isinstance(rule, Mapping):
                    continue
                compiled = self.rule(rule, rule_path, schema, decl, env, wrapped_env, card)
                if compiled is not None and compiled.uses_old_self and uncorrelatable is not None:
                    self.errors.append(FieldError.invalid(
                        f"{rule_path}.rule", compiled.rule.get("rule", ""),
                        f"oldSelf cannot be used on the uncorrelatable portion of the schema within {uncorrelatable}"))
                if compiled is not None:
                    out.rules.append(compiled)
        return out

    def rule_shapes(self, rules: list[tuple[str, Any]]) -> bool:
        """kube's checks of the rules' own fields; True when one failed (kube then compiles none of them)."""
        found = False

        def add(error: FieldError) -> None:
            nonlocal found
            self.errors.append(error)
            self.shape_errors += 1
            found = True

        for path, rule in rules:
            if not isinstance(rule, Mapping):
                continue
            text = str(rule.get("rule", ""))
            message = rule.get("message")
            message_text = str(message or "")
            if not text.strip():
                add(FieldError.required(f"{path}.rule", "rule is not specified"))
            elif message_text and not message_text.strip():
                add(FieldError.invalid(f"{path}.message", message_text, "must be non-empty if specified"))
            elif _NEWLINES.search(message_text.strip()):
                add(FieldError.invalid(f"{path}.message", message_text, "must not contain line breaks"))
            elif _NEWLINES.search(text.strip()) and not message_text.strip():
                add(FieldError.required(f"{path}.message", "message must be specified if rule contains line breaks"))
            expression = str(rule.get("messageExpression") or "")
            if expression and not expression.strip():
                add(FieldError.required(f"{path}.messageExpression",
                                        "messageExpression must be non-empty if specified"))
            reason = rule.get("reason")
            if reason is not None and reason not in _REASONS:
                add(FieldError.not_supported(f"{path}.reason", reason, _REASONS))
            field_path = rule.get("fieldPath")
            if isinstance(field_path, str) and field_path:
                if not field_path.strip():
                    add(FieldError.invalid(f"{path}.fieldPath", field_path, "must be non-empty if specified"))
                if _NEWLINES.search(field_path):
                    add(FieldError.invalid(f"{path}.fieldPath", field_path, "must not contain line breaks"))
        return found

    def rule(self, rule: Mapping[str, Any], path: str, schema: Mapping[str, Any], decl: Decl, env: cel.Env,
             wrapped_env: cel.Env | None, cardinality: int) -> CompiledRule | None:
        source = str(rule.get("rule", ""))
        if not source.strip():
            return None
        field_path = ""
        raw_field_path = rule.get("fieldPath")
        if isinstance(raw_field_path, str) and raw_field_path.strip():
            found = valid_field_path(raw_field_path, schema)
            if found is None:
                self.errors.append(FieldError.invalid(f"{path}.fieldPath", raw_field_path, "must be a valid path"))
            else:
                field_path = found
        optional_old = bool(rule.get("optionalOldSelf"))
        text, shift, rule_env = (source, 0, env)
        if optional_old and wrapped_env is not None:
            text, shift, rule_env = (f"{_WRAP_PREFIX}{source}{_WRAP_SUFFIX}", 1, wrapped_env)
        try:
            program = rule_env.compile(text)
        except RuntimeError as err:
            self.errors.append(FieldError.invalid(f"{path}.rule", _rule_value(rule),
                                                  "compilation failed: " + _issues(err, shift)))
            return None
        # a field of an object is dyn here (objects are maps), so a dyn result is checked when it runs
        if program.return_type() not in (cel.Type.BOOL, cel.Type.DYN):
            self.errors.append(FieldError.invalid(f"{path}.rule", _rule_value(rule),
                                                  "cel expression must evaluate to a bool"))
            return None
        program = _runnable(program)
        parsed = checked.parse_checked(program.serialize())
        ast = parsed.root
        body = _wrapped_rule(ast) if optional_old else ast
        undefined = fields.undefined_fields(body, {"self": decl, "oldSelf": None if optional_old else decl})
        undefined += fields.invalid_literals(body)
        if undefined:
            offset = len(_WRAP_PREFIX) if optional_old else 0
            issues = "\n".join(fields.render(source, parsed.positions.get(node_id, offset) - offset, message)
                                for node_id, message in sorted(undefined, key=lambda u: parsed.positions.get(u[0], 0)))
            self.errors.append(FieldError.invalid(f"{path}.rule", _rule_value(rule), "compilation failed: " + issues))
            return None
        uses_old = _reads(body, "oldSelf")
        sizes = cost.declared_sizes(decl)
        estimate = cost.estimate(body, sizes, parsed.types)
        total = estimate.cost * cardinality if estimate.cost else 0
        if total > cost.STATIC_ESTIMATED_COST_LIMIT:
            self.errors.append(FieldError.forbidden(
                f"{path}.rule", cost.exceed_message("estimated rule cost", total, cost.STATIC_ESTIMATED_COST_LIMIT)))
        self.costs.append((f"{path}.rule", total))
        compiled = CompiledRule(rule, program, ast, uses_old, optional_old, estimate.cost,
                                cost.RuntimeBound(body, estimate, parsed.types, decl), field_path=field_path)
        message_source = str(rule.get("messageExpression", ""))
        if message_source.strip():
            self.message_expression(compiled, message_source, path, decl, env)
        if optional_old and not uses_old:
            self.errors.append(FieldError.invalid(f"{path}.optionalOldSelf", True,
                                                  "may not be set if oldSelf is not used in rule"))
        return compiled

    def message_expression(self, compiled: CompiledRule, source: str, path: str, decl: Decl,
                           env: cel.Env) -> None:
        rule = compiled.rule
        try:
            program = env.compile(source)
        except RuntimeError as err:
            self.errors.append(FieldError.invalid(f"{path}.messageExpression", _rule_value(rule),
                                                  "messageExpression compilation failed: " + _issues(err)))
            return
        if program.return_type() not in (cel.Type.STRING, cel.Type.DYN):
            self.errors.append(FieldError.invalid(f"{path}.messageExpression", _rule_value(rule),
                                                  "messageExpression must evaluate to a string"))
            return
        program = _runnable(program)
        parsed = checked.parse_checked(program.serialize())
        undefined = fields.undefined_fields(parsed.root, {"self": decl, "oldSelf": decl})
        undefined += fields.invalid_literals(parsed.root)
        if undefined:
            issues = "\n".join(fields.render(source, parsed.positions.get(node_id, 0), message)
                                for node_id, message in sorted(undefined, key=lambda u: parsed.positions.get(u[0], 0)))
            self.errors.append(FieldError.invalid(f"{path}.messageExpression", _rule_value(rule),
                                                  "messageExpression compilation failed: " + issues))
            return
        estimate = cost.estimate(parsed.root, cost.declared_sizes(decl), parsed.types)
        if estimate.cost > cost.STATIC_ESTIMATED_COST_LIMIT:
            self.errors.append(FieldError.forbidden(
                f"{path}.messageExpression",
                cost.exceed_message("estimated messageExpression cost", estimate.cost,
                                    cost.STATIC_ESTIMATED_COST_LIMIT)))
        self.costs.append((f"{path}.messageExpression", estimate.cost))
        compiled.message_program, compiled.message_ast = program, parsed.root
        compiled.message_bound = cost.RuntimeBound(parsed.root, estimate, parsed.types, decl)


def compile_schema(schema: Mapping[str, Any], path: str) -> tuple[NodeRules | None, list[FieldError]]:
    """The compiled rules of a CRD version's openAPIV3Schema (at `path`) and the errors kube reports for them."""
    compiler = _Compiler()
    root = compiler.node(schema, path, True, 1)
    total = sum(c for _, c in compiler.costs)
    if total > cost.STATIC_ESTIMATED_CRD_COST_LIMIT:
        # kube names the (at most 4) most expensive expressions of at least 1% of the limit, then the total
        heavy = [pc for pc in compiler.costs if pc[1] >= cost.STATIC_ESTIMATED_CRD_COST_LIMIT // 100]
        for expensive_path, _ in sorted(heavy, key=lambda pc: -pc[1])[:4]:
            compiler.errors.append(FieldError.forbidden(
                expensive_path, "contributed to estimated rule cost total exceeding cost limit for entire "
                "OpenAPIv3 schema"))
        compiler.errors.append(FieldError.forbidden(path, cost.exceed_message(
            "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", total,
            cost.STATIC_ESTIMATED_CRD_COST_LIMIT)))
    return root, compiler.errors
