"""ListerWatcher: the two calls a reflector makes, list and watch, for one resource and selection.

`ListWatch` serves them from a dynamic `ResourceClient` (optionally one namespace, label and field selectors);
tests use `kubelite.client.cache.testing.FakeListerWatcher`. Options travel as `ListOptions`, the subset of
metav1.ListOptions that list and watch requests take.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from kubelite.client.dynamic import ResourceClient
from kubelite.client.watch import Watch

NOT_OLDER_THAN = "NotOlderThan"
EXACT = "Exact"


@dataclass(frozen=True, slots=True)
class ListOptions:
    resource_version: str | None = None
    resource_version_match: str | None = None
    limit: int | None = None
    continue_token: str | None = None
    timeout_seconds: int | None = None
    allow_watch_bookmarks: bool = False
    send_initial_events: bool | None = None


class ListerWatcher(Protocol):
    async def list(self, options: ListOptions) -> dict[str, Any]:
        """One list response (a page, when options.limit is set)."""
        ...

    async def watch(self, options: ListOptions) -> Watch: ...


class ListWatch:
    """List and watch one resource through a dynamic client, with fixed selectors."""

    def __init__(
        self,
        client: ResourceClient,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> None:
        self.client = client
        self.label_selector = label_selector
        self.field_selector = field_selector

    async def list(self, options: ListOptions) -> dict[str, Any]:
        return await self.client.list(
            label_selector=self.label_selector,
            field_selector=self.field_selector,
            limit=options.limit,
            continue_token=options.continue_token,
            resource_version=options.resource_version,
            resource_version_match=options.resource_version_match,
            timeout_seconds=options.timeout_seconds,
        )

    async def watch(self, options: ListOptions) -> Watch:
        return await self.client.watch(
            resource_version=options.resource_version,
            label_selector=self.label_selector,
            field_selector=self.field_selector,
            timeout_seconds=options.timeout_seconds,
            allow_watch_bookmarks=options.allow_watch_bookmarks,
            send_initial_events=options.send_initial_events,
            resource_version_match=options.resource_version_match,
        )
