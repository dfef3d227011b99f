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
    #: for each event, how many actions come before it: it is recorded once that many writes succeeded
    event_after: list[int] = field(default_factory=list, compare=False, repr=False)

    def add_event(self, event: Event) -> None:
        self.events.append(event)
        self.event_after.append(len(self.actions))

    def events_after(self, done: int) -> list[Event]:
        """The events whose writes are among the first `done` actions (an event added without a position
        follows the whole plan)."""
        positions = [*self.event_after, *[len(self.actions)] * (len(self.events) - len(self.event_after))]
        return [event for event, after in zip(self.events, positions, strict=True) if after <= done]

    def verbs(self) -> list[tuple[str, str, str]]:
        """(verb, resource, name) of every action: the shape of the plan, for logs and tests."""
        return [(a.verb, a.resource, a.name) for a in self.actions]


def object_key(obj: Obj) -> str:
    meta = obj.get("metadata", {})
    namespace = meta.get("namespace")
    return f"{namespace}/{meta.get('name', '')}" if namespace else str(meta.get("name", ""))
