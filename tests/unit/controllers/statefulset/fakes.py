"""An in-memory API for one StatefulSet sync: the caches are the stores, writes land at once."""

from __future__ import annotations

import itertools
from typing import Any

from kubelite.apimachinery.meta import Obj, deep_copy
from kubelite.client.errors import AlreadyExists, Conflict, NotFound

_uids = itertools.count(1)


def _status(reason: str, code: int, message: str) -> dict[str, Any]:
    return {"kind": "Status", "status": "Failure", "reason": reason, "code": code, "message": message}


class FakeObjects:
    def __init__(self) -> None:
        self.pods: dict[str, Obj] = {}
        self.claims: dict[str, Obj] = {}
        self.revisions: dict[str, Obj] = {}
        self.sets: dict[str, Obj] = {}
        self.writes: list[tuple[str, str, str]] = []
        #: (verb, resource, name) -> error raised instead of writing
        self.fail: dict[tuple[str, str, str], Exception] = {}

    def _write(self, verb: str, resource: str, name: str) -> None:
        error = self.fail.get((verb, resource, name))
        if error is not None:
            raise error
        self.writes.append((verb, resource, name))

    @staticmethod
    def _stamp(obj: Obj) -> Obj:
        obj = deep_copy(obj)
        meta = obj.setdefault("metadata", {})
        meta.setdefault("uid", f"uid-{next(_uids)}")
        meta["resourceVersion"] = str(int(meta.get("resourceVersion") or 0) + 1)
        return obj

    def get_claim(self, namespace: str, name: str) -> Obj | None:
        return self.claims.get(name)

    def get_pod(self, namespace: str, name: str) -> Obj | None:
        return self.pods.get(name)

    def get_set(self, namespace: str, name: str) -> Obj | None:
        return self.sets.get(name)

    async def create_pod(self, pod: Obj) -> Obj:
        name = pod["metadata"]["name"]
        if name in self.pods:
            raise AlreadyExists(_status("AlreadyExists", 409, f'pods "{name}" already exists'))
        self._write("create", "pods", name)
        stored = self._stamp(pod)
        stored["status"] = {"phase": "Pending"}
        self.pods[name] = stored
        return stored

    async def update_pod(self, pod: Obj) -> Obj:
        name = pod["metadata"]["name"]
        self._write("update", "pods", name)
        self.pods[name] = self._stamp(pod)
        return self.pods[name]

    async def delete_pod(self, pod: Obj) -> None:
        name = pod["metadata"]["name"]
        if name not in self.pods:
            raise NotFound(_status("NotFound", 404, f'pods "{name}" not found'))
        self._write("delete", "pods", name)
        del self.pods[name]

    async def create_claim(self, claim: Obj) -> Obj:
        name = claim["metadata"]["name"]
        self._write("create", "persistentvolumeclaims", name)
        self.claims[name] = self._stamp(claim)
        return self.claims[name]

    async def update_claim(self, claim: Obj) -> Obj:
        name = claim["metadata"]["name"]
        self._write("update", "persistentvolumeclaims", name)
        self.claims[name] = self._stamp(claim)
        return self.claims[name]

    async def create_revision(self, revision: Obj) -> Obj:
        name = revision["metadata"]["name"]
        if name in self.revisions:
            raise AlreadyExists(_status("AlreadyExists", 409, f'controllerrevisions.apps "{name}" already exists'))
        self._write("create", "controllerrevisions", name)
        self.revisions[name] = self._stamp(revision)
        return self.revisions[name]

    async def get_revision(self, namespace: str, name: str) -> Obj:
        return deep_copy(self.revisions[name])

    async def update_revision(self, revision: Obj) -> Obj:
        name = revision["metadata"]["name"]
        self._write("update", "controllerrevisions", name)
        self.revisions[name] = self._stamp(revision)
        return self.revisions[name]

    async def delete_revision(self, revision: Obj) -> None:
        name = revision["metadata"]["name"]
        self._write("delete", "controllerrevisions", name)
        self.revisions.pop(name, None)

    async def update_status(self, sts: Obj) -> Obj:
        name = sts["metadata"]["name"]
        current = self.sets.get(name)
        wanted = sts["metadata"].get("resourceVersion")
        if current is not None and wanted and current["metadata"].get("resourceVersion") != wanted:
            raise Conflict(_status("Conflict", 409, "the object has been modified"))
        self._write("update_status", "statefulsets", name)
        self.sets[name] = self._stamp(sts)
        return self.sets[name]
