"""Running the x-kubernetes-validations of a custom resource: kube's Validator (pkg/apiserver/schema/cel).

`SchemaRules.compile` compiles a CRD version's schema once; `validate` walks an object (and the stored object on
update) along the schema, runs each node's rules on the value there, and reports failures as kube does: the
rule's message, messageExpression or "failed rule: ...", its reason and fieldPath, evaluation errors
("no such key: x evaluating rule: ..."), and the cost limits: a rule whose bound for this object is over
PER_CALL_LIMIT is not run ("call cost exceeds limit"), and the object's rules share RUNTIME_CEL_COST_BUDGET.
Transition rules (those reading oldSelf) run only where an old value correlates, unless optionalOldSelf; a
rule that does not read oldSelf and fails on a value the update did not change is ratcheted (not an error).
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from typing import Any

from kubelite.apiextensions.cel import cost
from kubelite.apiextensions.cel.compile import OLD_PRESENT, OLD_VALUE, CompiledRule, NodeRules, compile_schema
from kubelite.apiextensions.cel.decl import ConversionError, convert
from kubelite.apiextensions.cel.library import runtime_env
from kubelite.apimachinery.validation import OMITTED, FieldError, go_quote

_MAX_MESSAGE_BYTES = 5 * 1024
_NO_KEY = re.compile(r'^Key not found in map : "(.*)"$')
_INDEX = re.compile(r"^Index error: index=(-?\d+) size=\d+$")
_STATUS = re.compile(r"^[A-Z_]+: ")
#: how long the rules of one object may run in all, whatever their estimated cost (kubelite's bound: rules run
#: on the event loop)
WALL_BUDGET_SECONDS = 1.0
_OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"


class _Stop(Exception):
    """No further rule runs: the cost budget is spent or a rule was over its own limit."""


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _error_text(raw: str) -> str:
    """cel-go's words for cel-cpp's evaluation errors."""
    text = _STATUS.sub("", raw)
    if match := _NO_KEY.match(text):
        return f"no such key: {match.group(1)}"
    if match := _INDEX.match(text):
        return f"index out of bounds: {match.group(1)}"
    if text in ("divide by zero", "division by zero"):
        return "division by zero"
    if text.startswith("modulus by zero"):
        return "modulus by zero"
    if text.startswith("No matching overloads found"):
        return "no such overload"
    return text


def _rule_text(rule: Mapping[str, Any]) -> str:
    message = str(rule.get("message", "")).strip()
    return message or str(rule.get("rule", "")).strip()


class SchemaRules:
    """The compiled x-kubernetes-validations of one CRD version's schema."""

    def __init__(self, root: NodeRules | None) -> None:
        self._root = root

    @classmethod
    def compile(cls, schema: Mapping[str, Any], path: str) -> tuple[SchemaRules, list[FieldError]]:
        try:
            root, errors = compile_schema(schema, path)
        except (TypeError, ValueError, AttributeError, KeyError) as err:
            # a schema too malformed to type (structural validation refuses it first): no rules, one error
            # rather than a crash of the request
            return cls(None), [FieldError.internal(
                f"{path}.x-kubernetes-validations",
                f"internal error: failed to construct type information for x-kubernetes-validations rules: {err}")]
        return cls(root if root is not None and not root.empty else None), errors

    @property
    def empty(self) -> bool:
        return self._root is None

    def validate(self, obj: Mapping[str, Any], old: Mapping[str, Any] | None) -> list[FieldError]:
        if self._root is None:
            return []
        run = _Run()
        try:
            run.node(self._root, "", obj, old)
        except _Stop:
            pass
        return run.errors


class _Run:
    def __init__(self) -> None:
        self.errors: list[FieldError] = []
        self.budget = cost.RUNTIME_CEL_COST_BUDGET
        self.deadline = time.monotonic() + WALL_BUDGET_SECONDS
        #: what this run converted for the rules, of the object and of the old one
        self.converted: dict[tuple[int, int], Any] = {}
        self.converted_old: dict[tuple[int, int], Any] = {}

    def node(self, node: NodeRules, path: str, value: Any, old: Any) -> None:
        if value is None:
            return
        if node.rules:
            self.rules(node, path, value, old)
        if isinstance(value, dict):
            old_map = old if isinstance(old, dict) else {}
            if node.additional is not None:
                for key, item in value.items():
                    self.node(node.additional, f"{path}[{key}]", item, old_map.get(key))
            for key, sub in node.properties.items():
                if key in value:
                    self.node(sub, _child(path, key), value[key], old_map.get(key))
        elif isinstance(value, list) and node.items is not None:
            old_items = self._correlate(node, old)
            for i, item in enumerate(value):
                self.node(node.items, f"{path}[{i}]", item, old_items(item))

    @staticmethod
    def _correlate(node: NodeRules, old: Any) -> Any:
        # only map-type lists pair an item with its old self, by the values of the list's keys
        if not node.list_map_keys or not isinstance(old, list):
            return lambda _item: None
        keys = node.list_map_keys

        def key_of(item: Any) -> tuple[Any, ...] | None:
            # map keys are scalars; an item whose key is not (the schema's error) pairs with nothing
            if not isinstance(item, dict):
                return None
            values = tuple(item.get(k) for k in keys)
            return values if all(isinstance(v, str | int | float | bool) or v is None for v in values) else None

        index = {key: o for o in old if (key := key_of(o)) is not None}

        def old_of(item: Any) -> Any:
            key = key_of(item)
            return index.get(key) if key is not None else None

        return old_of

    def rules(self, node: NodeRules, path: str, value: Any, old: Any) -> None:
        field_path = path or "<nil>"
        # cost units do not bound time exactly (regex scans, formatting): past a wall-clock budget the object's
        # remaining rules are not run, as when its cost budget is spent, so one write cannot hold the server long
        if self.budget <= 0 or time.monotonic() > self.deadline:
            self.errors.append(FieldError.invalid(field_path, node.type_name, _OUT_OF_BUDGET))
            raise _Stop
        try:
            self_value = convert(value, node.decl, self.converted)
            old_value = convert(old, node.decl, self.converted_old) if old is not None else None
        except (ConversionError, OverflowError, ValueError):
            return  # schema validation reports a value its format refuses (or no clock can hold)
        activation, activation_error = None, ""
        try:
            # one activation for all the node's rules: the values cross into the runtime once
            activation = runtime_env().Activation({"self": self_value, "oldSelf": old_value,
                                                   OLD_PRESENT: old_value is not None, OLD_VALUE: old_value})
        except (RuntimeError, TypeError, ValueError, OverflowError) as err:
            # a value the binding cannot carry (an integer past int64): an evaluation error, never a crash
            activation_error = str(err)
        for compiled in node.rules:
            if compiled.uses_old_self and old is None and not compiled.optional_old_self:
                continue
            bound = compiled.runtime_bound.of(self_value)
            if bound > cost.PER_CALL_LIMIT:
                self.errors.append(FieldError.invalid(
                    field_path, node.type_name,
                    "'operation cancelled: actual cost limit exceeded': no further validation rules will be run "
                    f"due to call cost exceeds limit for rule: {_rule_text(compiled.rule)}"))
                raise _Stop
            if bound > self.budget or time.monotonic() > self.deadline:
                self.errors.append(FieldError.invalid(field_path, node.type_name, _OUT_OF_BUDGET))
                raise _Stop
            self.budget -= bound
            if activation is None:
                failed, raw = True, activation_error
            else:
                try:
                    result = compiled.program.eval(activation)
                    failed = result.type().name() == "ERROR"
                    raw = str(result.plain_value()) if failed else ""
                except (RuntimeError, TypeError, ValueError, OverflowError) as err:
                    failed, raw = True, str(err)
            if failed:
                text = _error_text(raw)
                rule_text = _rule_text(compiled.rule)
                if text == "no such overload":
                    detail = (f"'{text}': call arguments did not match a supported operator, function or macro "
                              f"signature for rule: {rule_text}")
                else:
                    detail = f"{text} evaluating rule: {rule_text}"
                self.errors.append(FieldError.invalid(field_path, node.type_name, detail))
                continue
            outcome = result.plain_value()
            if outcome is True:
                continue
            if outcome is not False:
                self.errors.append(FieldError.invalid(
                    field_path, node.type_name,
                    f"'no such overload': call arguments did not match a supported operator, function or macro "
                    f"signature for rule: {_rule_text(compiled.rule)}"))
                continue
            if not compiled.uses_old_self and old is not None and old == value:
                # ratcheting (kube's CRDValidationRatcheting): a failure on a value the update left as it was
                # is not an error; kube turns it into a warning
                continue
            self.failure(node, compiled, path, value, self_value, activation)

    def failure(self, node: NodeRules, compiled: CompiledRule, path: str, value: Any, self_value: Any,
                activation: Any) -> None:
        rule = compiled.rule
        # field.Path.Child(<the fieldPath's text>): a dot after the node's path, whatever the text starts with
        target = path
        if compiled.field_path:
            target = f"{path}.{compiled.field_path}" if path else compiled.field_path
        target = target or "<nil>"
        detail = self.message(compiled, self_value, activation, target, node)
        if detail is None:
            message = str(rule.get("message", "")).strip()
            detail = message or f"failed rule: {_rule_text(rule)}"
        bad_value = OMITTED if node.type_name in ("object", "array") else value
        reason = rule.get("reason")
        if reason == "FieldValueForbidden":
            self.errors.append(FieldError.forbidden(target, detail))
        elif reason == "FieldValueRequired":
            self.errors.append(FieldError.required(target, detail))
        elif reason == "FieldValueDuplicate":
            self.errors.append(FieldError.duplicate(target, bad_value))
        else:
            self.errors.append(FieldError.invalid(target, bad_value, detail))

    def message(self, compiled: CompiledRule, self_value: Any, activation: Any, target: str,
                node: NodeRules) -> str | None:
        """The messageExpression's text, or None to fall back to the message (as kube does on its failures)."""
        if compiled.message_program is None or compiled.message_bound is None:
            return None
        bound = compiled.message_bound.of(self_value)
        if bound > cost.PER_CALL_LIMIT:
            self.errors.append(FieldError.invalid(
                target, node.type_name, "no further validation rules will be run due to call cost exceeds limit "
                f"for messageExpression: {go_quote(str(compiled.rule.get('messageExpression', '')))}"))
            raise _Stop
        if bound > self.budget:
            self.errors.append(FieldError.invalid(
                target, node.type_name, "messageExpression evaluation failed due to running out of cost budget, "
                "no further validation rules will be run"))
            raise _Stop
        self.budget -= bound
        try:
            result = compiled.message_program.eval(activation)
        except (RuntimeError, TypeError, ValueError, OverflowError):
            return None
        if result.type().name() != "STRING":
            return None
        text = str(result.plain_value()).strip()
        if not text or "\n" in text or len(text.encode()) > _MAX_MESSAGE_BYTES:
            return None
        return text

