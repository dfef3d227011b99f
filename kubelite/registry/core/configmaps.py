"""ConfigMaps: key syntax, the 1 MiB size limit, immutability."""

from __future__ import annotations

import re

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.strategy import Strategy

MAX_CONFIG_MAP_BYTES = 1024 * 1024
_KEY = re.compile(r"[-._a-zA-Z0-9]+")


def is_config_map_key(key: str) -> list[str]:
    """kube's IsConfigMapKey, shared by configmaps and secrets."""
    msgs: list[str] = []
    if len(key) > 253:
        msgs.append("must be no more than 253 characters")
    if not _KEY.fullmatch(key):
        msgs.append(
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or "
            "'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
        )
    if key == ".":
        msgs.append("must not be '.'")
    elif key == "..":
        msgs.append("must not be '..'")
    elif key.startswith(".."):
        msgs.append("must not start with '..'")
    return msgs


class ConfigMapStrategy(Strategy):
    tracks_generation = False

    def validate(self, obj: Obj) -> list[FieldError]:
        errs: list[FieldError] = []
        total = 0
        for section in ("data", "binaryData"):
            for key, value in (obj.get(section) or {}).items():
                for msg in is_config_map_key(key):
                    errs.append(FieldError.invalid(f"{section}[{key}]", key, msg))
                total += len(key) + len(str(value))
        if total > MAX_CONFIG_MAP_BYTES:
            errs.append(FieldError.too_long("", "", MAX_CONFIG_MAP_BYTES))
        return errs

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        errs = self.validate(new)
        if old.get("immutable") and (
            new.get("data") != old.get("data")
            or new.get("binaryData") != old.get("binaryData")
            or not new.get("immutable")
        ):
            errs.append(FieldError.forbidden("data", "field is immutable when `immutable` is set"))
        return errs
