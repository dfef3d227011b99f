"""The shape of a filter, shared by every filter module and the chain that composes them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web

#: what serves a request; a filter's handler may return its successor's awaitable without awaiting it
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True, slots=True)
class Filter:
    """One stage of the chain: `wrap(next_handler)` is the handler that does the stage's work and calls
    `next_handler` (or answers by itself)."""

    #: the stage as DESIGN.md names it (panic recovery, request info, authentication, ...)
    name: str
    wrap: Callable[[Handler], Handler]
