"""ServiceAccounts: no generation, and DELETE answered with the object (kube's ReturnDeletedObject)."""

from __future__ import annotations

from kubelite.registry.registration import stored
from kubelite.registry.strategy import PlainStrategy
from kubelite.registry.tables.core import SERVICE_ACCOUNT_TABLE


class ServiceAccountStrategy(PlainStrategy):
    return_deleted_object = True


REGISTRATION = stored("", "serviceaccounts", ServiceAccountStrategy, table=SERVICE_ACCOUNT_TABLE)
