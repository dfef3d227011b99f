"""JSON merge patch (RFC 7386): objects merge recursively, null deletes, everything else replaces."""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import deep_copy


def apply_merge_patch(target: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return deep_copy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = apply_merge_patch(result.get(key), value)
    return result
