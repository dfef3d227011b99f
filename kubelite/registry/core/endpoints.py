"""v1 Endpoints: plain data objects (deprecated in favour of EndpointSlices; the catalog carries the warning)."""

from __future__ import annotations

from kubelite.registry.registration import stored
from kubelite.registry.strategy import PlainStrategy
from kubelite.registry.tables.core import ENDPOINTS_TABLE

REGISTRATION = stored("", "endpoints", PlainStrategy, table=ENDPOINTS_TABLE)
