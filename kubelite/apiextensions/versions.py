"""kube's ordering of API versions (CompareKubeAwareVersionStrings): GA before beta before alpha, higher
numbers first, and anything not of the form vN[alphaM|betaM] after those, by name. Discovery lists a CRD's
versions in this order, and its first is the group's preferred version."""

from __future__ import annotations

import re

_KUBE_VERSION = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")
_STABILITY = {None: 0, "beta": 1, "alpha": 2}


def priority_key(version: str) -> tuple[int, int, int, int, str]:
    match = _KUBE_VERSION.match(version)
    if match is None:
        return (1, 0, 0, 0, version)
    major, stability, minor = match.groups()
    return (0, _STABILITY[stability], -int(major), -int(minor or 0), "")


def by_priority(versions: list[str]) -> list[str]:
    return sorted(versions, key=priority_key)
