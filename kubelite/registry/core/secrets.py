"""Secrets: write-only `stringData` folded into base64 `data`; `type` defaults to Opaque."""

from __future__ import annotations

import base64
import binascii

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.core.configmaps import is_config_map_key
from kubelite.registry.strategy import Strategy

MAX_SECRET_BYTES = 1024 * 1024


class SecretStrategy(Strategy):
    tracks_generation = False
    selectable_fields = ("type",)

    def default(self, obj: Obj) -> None:
        obj.setdefault("type", "Opaque")
        string_data = obj.pop("stringData", None)
        if isinstance(string_data, dict):
            data = obj.get("data") or {}
            for key, value in string_data.items():
                data[key] = base64.b64encode(str(value).encode()).decode()
            obj["data"] = data

    def validate(self, obj: Obj) -> list[FieldError]:
        errs: list[FieldError] = []
        total = 0
        for key, value in (obj.get("data") or {}).items():
            for msg in is_config_map_key(key):
                errs.append(FieldError.invalid(f"data[{key}]", key, msg))
            try:
                total += len(base64.b64decode(str(value), validate=True))
            except (binascii.Error, ValueError):
                errs.append(FieldError.invalid(f"data[{key}]", "<secret contents redacted>", "illegal base64 data"))
        if total > MAX_SECRET_BYTES:
            errs.append(FieldError.too_long("data", "", MAX_SECRET_BYTES))
        return errs

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        errs = self.validate(new)
        if new.get("type") != old.get("type"):
            errs.append(FieldError.invalid("type", new.get("type"), "field is immutable"))
        if old.get("immutable") and (new.get("data") != old.get("data") or not new.get("immutable")):
            errs.append(FieldError.forbidden("data", "field is immutable when `immutable` is set"))
        return errs
