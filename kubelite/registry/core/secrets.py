"""Secrets: `type` defaults to Opaque; write-only `stringData` is folded into base64 `data`, as kube's decoder
does, and `data` that is not base64 is refused there (a 400, before validation); then key syntax, the 1 MiB
total, the keys each well-known type requires and immutability (in `registry.validation.configdata`)."""

from __future__ import annotations

import base64

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.registration import stored
from kubelite.registry.strategy import Strategy
from kubelite.registry.tables.core import SECRET_TABLE
from kubelite.registry.validation.configdata import (
    canonical_base64,
    validate_secret,
    validate_secret_update,
)


class SecretStrategy(Strategy):
    tracks_generation = False
    selectable_fields = ("type",)

    def default(self, obj: Obj) -> None:
        canonical_base64(self.spec, obj, "data")
        if not obj.get("type"):
            obj["type"] = "Opaque"
        string_data = obj.pop("stringData", None)
        if isinstance(string_data, dict):
            data = obj.get("data") or {}
            for key, value in string_data.items():
                data[key] = base64.b64encode(str(value).encode()).decode()
            obj["data"] = data

    def validate(self, obj: Obj) -> list[FieldError]:
        return validate_secret(obj)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return validate_secret_update(new, old)


REGISTRATION = stored("", "secrets", SecretStrategy, table=SECRET_TABLE)
