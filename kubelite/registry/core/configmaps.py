"""ConfigMaps: key syntax, the 1 MiB total, and immutability once `immutable: true` is set (the rules live in
`registry.validation.configdata`)."""

from __future__ import annotations

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.registration import stored
from kubelite.registry.strategy import Strategy
from kubelite.registry.tables.core import CONFIGMAP_TABLE
from kubelite.registry.validation.configdata import (
    MAX_SIZE,
    canonical_base64,
    is_config_map_key,
    validate_config_map,
    validate_config_map_update,
)

MAX_CONFIG_MAP_BYTES = MAX_SIZE

__all__ = ["MAX_CONFIG_MAP_BYTES", "ConfigMapStrategy", "is_config_map_key"]


class ConfigMapStrategy(Strategy):
    tracks_generation = False

    def default(self, obj: Obj) -> None:
        canonical_base64(self.spec, obj, "binaryData")

    def validate(self, obj: Obj) -> list[FieldError]:
        return validate_config_map(obj)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return validate_config_map_update(new, old)


REGISTRATION = stored("", "configmaps", ConfigMapStrategy, table=CONFIGMAP_TABLE)
