"""Paginated lists (client-go's `tools/pager`): fetch a list in pages of `page_size` and hand back one list.

Only the first page carries the resourceVersion; later pages follow the continue token, which pins the same
snapshot. If a continue token expires midway (410, the snapshot was compacted), the whole list is fetched again
in one request at the original resourceVersion, as the pager's `FullListIfExpired` does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

from kubelite.client.cache.listwatch import ListOptions
from kubelite.client.errors import Gone

DEFAULT_PAGE_SIZE = 500

ListPage = Callable[[ListOptions], Awaitable[dict[str, Any]]]


async def list_all(
    list_page: ListPage,
    options: ListOptions,
    *,
    page_size: int = DEFAULT_PAGE_SIZE,
    full_list_if_expired: bool = True,
) -> tuple[dict[str, Any], bool]:
    """The whole list (items of every page, the metadata of the last), and whether more than one page came."""
    current = options if options.limit or page_size <= 0 else dataclasses.replace(options, limit=page_size)
    items: list[Any] = []
    paginated = False
    while True:
        try:
            page = await list_page(current)
        except Gone:
            if not full_list_if_expired or not current.continue_token:
                raise
            whole = await list_page(dataclasses.replace(options, limit=None, continue_token=None))
            return whole, paginated
        items.extend(page.get("items") or [])
        token = (page.get("metadata") or {}).get("continue")
        if not token:
            if paginated:
                page = {**page, "items": items}
            return page, paginated
        paginated = True
        current = dataclasses.replace(
            current, continue_token=token, resource_version=None, resource_version_match=None
        )
