"""field.Path's text: children joined by dots, keys and indices in brackets (unquoted), a nil root printing
nothing, so `child("", "type")` is `type` as kube prints a path that starts at nil."""

from __future__ import annotations


def child(path: str, *names: str) -> str:
    for name in names:
        path = f"{path}.{name}" if path else name
    return path


def key(path: str, name: str | int) -> str:
    return f"{path}[{name}]"
