"""StorageClasses: no generation, and DELETE answered with the object."""

from __future__ import annotations

from kubelite.registry.registration import stored
from kubelite.registry.strategy import PlainStrategy
from kubelite.registry.tables.storage import STORAGE_CLASS_TABLE


class StorageClassStrategy(PlainStrategy):
    return_deleted_object = True


REGISTRATION = stored("storage.k8s.io", "storageclasses", StorageClassStrategy, table=STORAGE_CLASS_TABLE)
