"""The scenarios, in the order a full run takes them; each returns its table rows.

Every scenario measures its own baselines in the same run, so `--scenario` can pick any subset.
"""

from __future__ import annotations

from collections.abc import Callable

from bench.context import Context
from bench.report import Row
from bench.scenarios import custom, informer, lists, nodewatch, reads, startup, storage, watch, writes

Scenario = Callable[[Context], list[Row]]

SCENARIOS: dict[str, Scenario] = {
    "create": writes.create,
    "cr-create": custom.cr_create,
    "storage": storage.storage,
    "get": reads.get,
    "cr-get": custom.cr_get,
    "update": writes.update,
    "list": lists.lists,
    "cr-list": custom.cr_list,
    "watch": watch.fanout,
    "watch-nodes": nodewatch.nodewatch,
    "memory": startup.memory,
    "startup": startup.startup,
    "informer": informer.informer,
}
