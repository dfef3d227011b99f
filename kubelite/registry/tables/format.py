"""Cell formatters shared by many kinds' tables: labels, selectors, container lists, int-or-string values.

Each mirrors the apimachinery helper kube's printers call (`labels.FormatLabels`,
`metav1.FormatLabelSelector`, `LabelSelectorAsSelector(...).String()`, `layoutContainerCells`,
`IntOrString.String()`), down to the placeholders (`<none>`, `<error>`) and the ordering of requirements.
"""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.registry.tables.base import items, mapping, text


def format_labels(labels: dict[str, Any] | None) -> str:
    """`labels.FormatLabels`: `k=v` pairs sorted by key, `<none>` for none."""
    if not labels:
        return "<none>"
    return ",".join(f"{key}={labels[key]}" for key in sorted(labels))


class SelectorError(ValueError):
    """A label selector kube could not turn into a `labels.Selector`."""


_OPERATORS = {"In": " in ", "NotIn": " notin "}


def selector_string(selector: Any) -> str:
    """`LabelSelectorAsSelector(selector).String()`: requirements sorted by key, "" for empty or missing."""
    if not isinstance(selector, dict):
        return ""
    requirements: list[tuple[str, str]] = []
    for key, value in mapping(selector, "matchLabels").items():
        requirements.append((key, f"{key}={value}"))
    for expression in items(selector, "matchExpressions"):
        key = text(expression, "key")
        operator = text(expression, "operator")
        values = [str(v) for v in items(expression, "values")]
        if operator in _OPERATORS:
            if not values:
                raise SelectorError(f"for '{operator}' operator, values set can't be empty")
            joined = ",".join(sorted(values))
            requirements.append((key, f"{key}{_OPERATORS[operator]}({joined})"))
        elif operator == "Exists":
            requirements.append((key, key))
        elif operator == "DoesNotExist":
            requirements.append((key, f"!{key}"))
        else:
            raise SelectorError(f"{operator!r} is not a valid label selector operator")
    requirements.sort(key=lambda requirement: requirement[0])
    return ",".join(rendered for _key, rendered in requirements)


def format_label_selector(selector: Any) -> str:
    """`metav1.FormatLabelSelector`: the selector string, `<none>` when empty, `<error>` when invalid."""
    try:
        rendered = selector_string(selector)
    except SelectorError:
        return "<error>"
    return rendered or "<none>"


def container_cells(containers: list[Any]) -> tuple[str, str]:
    """`layoutContainerCells`: the containers' names and images, each comma-joined."""
    names = ",".join(text(container, "name") for container in containers)
    images = ",".join(text(container, "image") for container in containers)
    return names, images


def template_containers(obj: Obj, *path: str) -> list[Any]:
    return items(obj, *path, "template", "spec", "containers")


def int_or_string(value: Any) -> str:
    """`intstr.IntOrString.String()`."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    return "" if value is None else str(value)
