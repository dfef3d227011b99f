"""A small kopf operator over the example.com/v1 Widgets of tests/e2e/test_kopf_operator.py, started there with
`kopf run`: it reports what it saw in the status subresource, keeps kopf's finalizer on every Widget so that its
deletion handler runs before the object goes, and posts an Event for each handler, as operators in the wild do."""

from __future__ import annotations

from typing import Any

import kopf

GROUP, VERSION, PLURAL = "example.com", "v1", "widgets"


@kopf.on.startup()
def configure(settings: kopf.OperatorSettings, **_: Any) -> None:
    settings.posting.reporting_component = "widget-operator"
    # a peer's keep-alive written often and its absence noticed soon: the test pauses and resumes the operator
    # through the peering object within seconds
    settings.peering.lifetime = 10
    # a short watch keeps the operator's requests bounded; its reconnects are part of what the server serves
    settings.watching.server_timeout = 30


@kopf.on.create(GROUP, VERSION, PLURAL)
def created(spec: kopf.Spec, name: str, body: kopf.Body, patch: kopf.Patch, **_: Any) -> None:
    patch.status["phase"] = "Ready"
    patch.status["observedSize"] = spec.get("size")
    kopf.info(body, reason="Created", message=f"widget {name} is ready with size {spec.get('size')}")


@kopf.on.update(GROUP, VERSION, PLURAL, field="spec.size")
def resized(old: Any, new: Any, body: kopf.Body, patch: kopf.Patch, **_: Any) -> None:
    patch.status["observedSize"] = new
    kopf.event(body, type="Normal", reason="Resized", message=f"size {old} -> {new}")


@kopf.on.delete(GROUP, VERSION, PLURAL)
def deleted(name: str, meta: kopf.Meta, body: kopf.Body, **_: Any) -> None:
    # the deletionTimestamp in the message shows the handler ran on the Terminating object, before it went
    kopf.warn(body, reason="Deleting", message=f"widget {name} deleted at {meta.get('deletionTimestamp')}")
