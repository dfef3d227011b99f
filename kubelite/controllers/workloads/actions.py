"""The plain data the workload controllers' logic returns: what to write, in order, and what to record.

The logic of the ReplicaSet and Deployment controllers decides; a reconcile loop carries the decision out
through the API. Between them is this vocabulary: an `Action` is one API write (create, update, update of
the status subresource, patch, delete) of one object, an `Event` is what kube's event recorder would record
on the controller's object, with kube's type, reason and message. Both are frozen dataclasses so tests can
compare whole plans with `==`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from kubelite.apimachinery.meta import Obj

Verb = Literal["create", "update", "update_status", "patch", "delete"]

STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"


@dataclass(frozen=True)
class Event:
    type: Literal["Normal", "Warning"]
    reason: str
    message: str


@dataclass(frozen=True)
class Action:
    """One write. `obj` is the whole object for create/update/update_status; for patch it is the patch body
    (`patch_type` says which); for delete it is None and `preconditions_uid` pins the object deleted."""

    verb: Verb
    resource: Literal["pods", "replicasets", "deployments"]
    namespace: str
    name: str
    obj: Any = None
    patch_type: str | None = None
    preconditions_uid: str | None = None


@dataclass
class Plan:
    """Writes in the order kube issues them; each assumes the ones before it succeeded (a loop that sees one
    fail stops there and requeues, as kube's sync returns the error). `events` are recorded as the writes
    they follow succeed; `requeue_after` (seconds) asks for another sync."""

    actions: list[Action] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    requeue_after: float | None = None

    def verbs(self) -> list[tuple[str, str, str]]:
        """(verb, resource, name) of every action: the shape of the plan, for logs and tests."""
        return [(a.verb, a.resource, a.name) for a in self.actions]


def object_key(obj: Obj) -> str:
    meta = obj.get("metadata", {})
    namespace = meta.get("namespace")
    return f"{namespace}/{meta.get('name', '')}" if namespace else str(meta.get("name", ""))
