"""v1.Toleration.ToleratesTaint, for every component that matches pods' tolerations to nodes' taints (the
scheduler, the DaemonSet controller, taint eviction)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def tolerates_taint(toleration: Mapping[str, Any], key: str, value: str, effect: str) -> bool:
    """Effect (empty matches all), key (empty with Exists matches all), then value by the operator."""
    wanted_effect = toleration.get("effect") or ""
    if wanted_effect and wanted_effect != effect:
        return False
    wanted_key = toleration.get("key") or ""
    if wanted_key and wanted_key != key:
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Exists":
        return True
    if operator == "Equal":
        return (toleration.get("value") or "") == value
    return False


def tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    """The same, for a taint as the API serves it."""
    return tolerates_taint(
        toleration, str(taint.get("key") or ""), str(taint.get("value") or ""), str(taint.get("effect") or "")
    )
