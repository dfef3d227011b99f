"""Stand-ins for what the workload loops talk to: resource clients that record every write (and can be told
to fail one), an event recorder that keeps events, and builders of the objects the loops read."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from typing import Any

from kubelite.apimachinery.meta import Obj, deep_copy
from kubelite.client.clock import FakeClock
from kubelite.client.component import ComponentClient
from kubelite.client.config import Config

NOW = 1_800_000_000.0

#: (verb, namespace, name-or-None, body) -> an exception to raise, or None to answer normally
FailHook = Callable[[str, str | None, Any], BaseException | None]


class FakeResource:
    """A ResourceClient that answers from memory: creates get names and resourceVersions, writes return
    what they were sent with a new resourceVersion."""

    def __init__(self, kind: str, objects: dict[str, Obj] | None = None) -> None:
        self.kind = kind
        self.calls: list[tuple[str, str | None, Any]] = []
        self.objects: dict[str, Obj] = objects if objects is not None else {}
        self.fail: FailHook = lambda verb, name, body: None
        self._versions = itertools.count(100)
        self._names = itertools.count()

    def namespace(self, namespace: str | None) -> FakeResource:
        return self

    def _answer(self, verb: str, name: str | None, body: Any) -> None:
        self.calls.append((verb, name, deep_copy(body) if isinstance(body, dict | list) else body))
        error = self.fail(verb, name, body)
        if error is not None:
            raise error

    def _stamped(self, obj: Obj) -> Obj:
        out = deep_copy(obj)
        out.setdefault("metadata", {})["resourceVersion"] = str(next(self._versions))
        return out

    async def get(self, name: str, **_: Any) -> Obj:
        self._answer("get", name, None)
        return deep_copy(self.objects[name])

    async def create(self, obj: Obj, **_: Any) -> Obj:
        meta = obj.get("metadata") or {}
        name = meta.get("name") or f"{meta.get('generateName', '')}{next(self._names):05d}"
        self._answer("create", name, obj)
        created = self._stamped(obj)
        created["metadata"]["name"] = name
        await asyncio.sleep(0)
        return created

    async def update(self, obj: Obj, **_: Any) -> Obj:
        self._answer("update", obj["metadata"]["name"], obj)
        return self._stamped(obj)

    async def update_status(self, obj: Obj, **_: Any) -> Obj:
        self._answer("update_status", obj["metadata"]["name"], obj)
        return self._stamped(obj)

    async def patch(self, name: str, patch: Any, **kwargs: Any) -> Obj:
        self._answer("patch", name, {"patch": patch, "patch_type": kwargs.get("patch_type")})
        return {"metadata": {"name": name, "resourceVersion": str(next(self._versions))}}

    async def delete(self, name: str, **kwargs: Any) -> Obj:
        self._answer("delete", name, {"preconditions": kwargs.get("preconditions")})
        return {}

    def verbs(self) -> list[tuple[str, str | None]]:
        return [(verb, name) for verb, name, _ in self.calls]


class FakeRecorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str, str, str]] = []

    def event(self, obj: Obj, event_type: str, reason: str, message: str) -> None:
        self.events.append((obj["metadata"]["name"], event_type, reason, message))


def clients() -> ComponentClient:
    """A component client that never connects (nothing is started); on a fake clock."""
    clock = FakeClock()
    clock._wall_offset = NOW - clock.monotonic()  # wall time at NOW
    return ComponentClient("test", Config(host="http://127.0.0.1:1"), clock=clock)


def run(body: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(asyncio.wait_for(body(), 20))


def replica_set(name: str = "rs", replicas: int = 3, *, uid: str | None = None, **extra: Any) -> Obj:
    rs: Obj = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": uid or f"uid-{name}",
            "resourceVersion": "10",
            "generation": 1,
        },
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
        "status": {"replicas": 0},
    }
    rs["spec"].update(extra)
    return rs


def pod(name: str, labels: dict[str, str], owner: Obj | None = None, **meta: Any) -> Obj:
    metadata: Obj = {
        "name": name,
        "namespace": "default",
        "uid": f"uid-{name}",
        "resourceVersion": "5",
        "labels": dict(labels),
        "creationTimestamp": "2027-01-15T08:00:00Z",
        **meta,
    }
    if owner is not None:
        metadata["ownerReferences"] = [
            {
                "apiVersion": owner["apiVersion"],
                "kind": owner["kind"],
                "name": owner["metadata"]["name"],
                "uid": owner["metadata"]["uid"],
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": {}, "status": {"phase": "Pending"}}


def ready(p: Obj) -> Obj:
    out = deep_copy(p)
    out["metadata"]["resourceVersion"] = str(int(out["metadata"]["resourceVersion"]) + 1)
    out["status"] = {
        "phase": "Running",
        "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2027-01-15T08:00:00Z"}],
    }
    return out
