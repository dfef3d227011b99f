"""kube's cel.ValidFieldPath: a JSON path (`.spec.replicas`, `.spec['a.b']`) resolved against a structural
schema, used by selectable fields and by the `fieldPath` of an x-kubernetes-validations rule.

Returns the normalized path (field.Path text, map keys in brackets) and the schema node it reaches, or raises
`FieldPathError` with kube's words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from kubelite.apiextensions.validation.paths import child, key


class FieldPathError(ValueError):
    """The path does not resolve; the message is kube's."""


_ESCAPE_RE = re.compile(r"\\.")
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "'": "'", "\\": "\\"}


def _unescape_single_quote(text: str) -> str:
    bad: list[str] = []

    def replace(match: re.Match[str]) -> str:
        found = _ESCAPES.get(match.group(0)[1])
        if found is None:
            bad.append(match.group(0))
            return ""
        return found

    out = _ESCAPE_RE.sub(replace, text)
    if bad:
        raise FieldPathError(f"invalid string literal: invalid escape char {bad[-1]}")
    return out


def _tokens(path: str) -> list[str]:
    # '.', '[' and ']' are single tokens; a single-quoted string is one token, delimiters inside it included
    out: list[str] = []
    i = 0
    while i < len(path):
        if path[i] == "'":
            j = i + 1
            while j < len(path) and not (path[j] == "'" and path[j - 1] != "\\"):
                j += 1
            out.append(path[i : j + 1])
            i = j + 1
        elif path[i] in ".[]":
            out.append(path[i])
            i += 1
        else:
            j = i
            while j < len(path) and path[j] not in ".[]":
                j += 1
            out.append(path[i:j])
            i = j
    return out


def resolve_field_path(
    json_path: str, schema: Mapping[str, Any] | None, *, allow_array_notation: bool = True
) -> tuple[str, Mapping[str, Any] | None]:
    tokens = _tokens(json_path)
    position = 0
    valid_path = ""
    node: Mapping[str, Any] | None = schema

    def next_token() -> str:
        nonlocal position
        if position >= len(tokens):
            raise FieldPathError("unexpected end of JSON path")
        position += 1
        return tokens[position - 1]

    def descend(name: str) -> None:
        nonlocal valid_path, node
        current = node or {}
        # a structural node has properties only when some are listed; any additionalProperties, even false, counts
        if isinstance(current.get("properties"), Mapping) and current["properties"]:
            valid_path = child(valid_path, name)
            found = current["properties"].get(name) if isinstance(current["properties"], Mapping) else None
            if not isinstance(found, Mapping):
                raise FieldPathError("does not refer to a valid field")
            node = found
        elif current.get("additionalProperties") is not None:
            valid_path = key(valid_path, name)
            additional = current["additionalProperties"]
            node = additional if isinstance(additional, Mapping) else None
        else:
            raise FieldPathError("does not refer to a valid field")

    while position < len(tokens):
        token = next_token()
        if token == "[":
            if not allow_array_notation:
                raise FieldPathError("array notation is not allowed")
            token = next_token()
            if len(token) < 2 or token[0] != "'" or token[-1] != "'":
                raise FieldPathError(f"expected single quoted string but got {token}")
            descend(_unescape_single_quote(token[1:-1]))
            token = next_token()
            if token != "]":
                raise FieldPathError(f"expected ] but got {token}")
        elif token == ".":
            descend(next_token())
        else:
            raise FieldPathError(f"expected [ or . but got: {token}")
    return valid_path, node
