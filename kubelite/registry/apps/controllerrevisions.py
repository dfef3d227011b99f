"""ControllerRevisions: plain data objects (a workload's history)."""

from __future__ import annotations

from kubelite.registry.registration import stored
from kubelite.registry.strategy import PlainStrategy
from kubelite.registry.tables.apps import CONTROLLER_REVISION_TABLE

REGISTRATION = stored("apps", "controllerrevisions", PlainStrategy, table=CONTROLLER_REVISION_TABLE)
