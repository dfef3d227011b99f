"""ResourceQuotas: their quantities decoded and stored canonical as kube stores them, quota limits validated
(resource names, amounts, scopes), and DELETE answered with the object."""

from __future__ import annotations

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.registration import stored
from kubelite.registry.strategy import Strategy
from kubelite.registry.tables.core import RESOURCE_QUOTA_TABLE
from kubelite.registry.validation.cluster import validate_resource_quota
from kubelite.registry.validation.quantities import decode_quantities


class ResourceQuotaStrategy(Strategy):
    tracks_generation = False
    return_deleted_object = True

    def default(self, obj: Obj) -> None:
        decode_quantities(self.spec, obj)

    def validate(self, obj: Obj) -> list[FieldError]:
        return validate_resource_quota(obj)


REGISTRATION = stored("", "resourcequotas", ResourceQuotaStrategy, table=RESOURCE_QUOTA_TABLE)
