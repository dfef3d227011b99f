"""Stand-ins for the API under the batch loops: resource clients that log every call and answer as the server
would, and a recorder that keeps events, so a test runs one reconcile and reads what it did, in order."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from typing import Any

from kubelite.apimachinery.meta import deep_copy
from kubelite.client.clock import FakeClock
from kubelite.client.component import ComponentClient
from kubelite.client.config import Config
from kubelite.client.errors import ApiError, NotFound

Call = tuple[str, str, Any]


def run(body: Callable[[], Awaitable[Any]], *, timeout: float = 20.0) -> Any:
    return asyncio.run(asyncio.wait_for(body(), timeout))


def clients(clock: FakeClock) -> ComponentClient:
    """A component's clients that never connect (the loops' clients are swapped for stand-ins)."""
    return ComponentClient("kube-controller-manager", Config(host="http://127.0.0.1:9"), clock=clock)


def server_error(message: str) -> ApiError:
    return ApiError({"kind": "Status", "status": "Failure", "message": message, "reason": "", "code": 500})


class StubResource:
    """One resource's client: every call is logged as (verb, name, detail) and answered as the server would."""

    def __init__(self, calls: list[Call], objects: dict[str, dict[str, Any]] | None = None) -> None:
        self.calls = calls
        self.objects = objects if objects is not None else {}
        #: verb -> names whose call raises the error
        self.failing: dict[tuple[str, str], ApiError] = {}
        self._names = itertools.count()
        self._versions = itertools.count(100)

    def namespace(self, namespace: str | None) -> StubResource:
        return self

    def _fail(self, verb: str, name: str) -> None:
        error = self.failing.get((verb, name))
        if error is not None:
            raise error

    async def get(self, name: str) -> dict[str, Any]:
        self.calls.append(("get", name, None))
        if name not in self.objects:
            raise NotFound({"message": f'"{name}" not found', "reason": "NotFound", "code": 404})
        return deep_copy(self.objects[name])

    async def create(self, obj: dict[str, Any]) -> dict[str, Any]:
        meta = obj["metadata"]
        name = meta.get("name") or f"{meta['generateName']}{next(self._names)}"
        self.calls.append(("create", name, None))
        self._fail("create", name)
        created = deep_copy(obj)
        created["metadata"] = {**meta, "name": name, "uid": f"uid-{name}", "resourceVersion": "1"}
        return created

    async def delete(self, name: str, **options: Any) -> dict[str, Any]:
        self.calls.append(("delete", name, options or None))
        self._fail("delete", name)
        return {}

    async def patch(self, name: str, patch: Any, *, patch_type: str = "merge") -> dict[str, Any]:
        self.calls.append(("patch", name, (patch_type, patch)))
        self._fail("patch", name)
        return {"metadata": {"name": name}}

    async def update_status(self, obj: dict[str, Any]) -> dict[str, Any]:
        name = obj["metadata"]["name"]
        self.calls.append(("status", name, deep_copy(obj["status"])))
        self._fail("status", name)
        updated = deep_copy(obj)
        updated["metadata"]["resourceVersion"] = str(next(self._versions))
        return updated


class StubRecorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str, str, str]] = []

    def event(self, obj: dict[str, Any], event_type: str, reason: str, message: str) -> None:
        self.events.append((obj["kind"], event_type, reason, message))
