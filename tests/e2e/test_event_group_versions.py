"""One Event served by two group-versions (core/v1 and events.k8s.io/v1): each list names the fields its own
way, whichever was listed first, in JSON, as a Table and in protobuf.

Both APIs serve the same stored object, with the same uid and resourceVersion, so anything kept per object
(the encoded list items, the Table facts) must be kept per group-version too.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from kubelite.apimachinery import protobuf
from tests.e2e.server import KubeliteProcess

_COUNTER = itertools.count()
CORE = "/api/v1/namespaces/{ns}/events"
EVENTS_V1 = "/apis/events.k8s.io/v1/namespaces/{ns}/events"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
PROTOBUF = "application/vnd.kubernetes.protobuf"


def _event_namespace(server: KubeliteProcess) -> str:
    ns = f"evgv-{next(_COUNTER)}"
    assert server.http("POST", "/api/v1/namespaces", {"metadata": {"name": ns}}).status == 201
    event = {
        "metadata": {"name": "ev1"},
        "involvedObject": {"kind": "Pod", "name": "web", "namespace": ns},
        "reason": "Started",
        "message": "started container",
        "type": "Normal",
        "firstTimestamp": "2026-01-01T00:00:00Z",
        "lastTimestamp": "2026-01-01T00:00:00Z",
        "count": 1,
        "source": {"component": "kubelet"},
    }
    created = server.http("POST", CORE.format(ns=ns), event)
    assert created.status == 201, created.body
    return ns


def _list(server: KubeliteProcess, path: str, accept: str) -> Any:
    result = server.http("GET", path, headers={"Accept": accept})
    assert result.status == 200, result.body
    if accept == PROTOBUF:
        assert result.headers["content-type"] == PROTOBUF
        return protobuf.decode(result.body)
    return result.json()


def _core_fields(item: dict[str, Any]) -> None:
    assert item["involvedObject"]["name"] == "web"
    assert item["message"] == "started container"
    assert "regarding" not in item and "note" not in item


def _v1_fields(item: dict[str, Any]) -> None:
    assert item["regarding"]["name"] == "web"
    assert item["note"] == "started container"
    assert item["deprecatedSource"] == {"component": "kubelet"}
    assert "involvedObject" not in item and "message" not in item


@pytest.mark.parametrize("accept", ["application/json", PROTOBUF], ids=["json", "protobuf"])
@pytest.mark.parametrize("core_first", [True, False], ids=["core-first", "events-v1-first"])
def test_each_group_version_lists_its_own_fields(server: KubeliteProcess, accept: str, core_first: bool) -> None:
    ns = _event_namespace(server)
    order = [(CORE, _core_fields), (EVENTS_V1, _v1_fields)]
    if not core_first:
        order.reverse()
    for _ in range(2):  # the second round is served from whatever the first one kept
        for path, check in order:
            listed = _list(server, path.format(ns=ns), accept)
            assert [item["metadata"]["name"] for item in listed["items"]] == ["ev1"]
            check(listed["items"][0])


@pytest.mark.parametrize("core_first", [True, False], ids=["core-first", "events-v1-first"])
def test_each_group_version_prints_its_own_table(server: KubeliteProcess, core_first: bool) -> None:
    ns = _event_namespace(server)
    paths = [CORE, EVENTS_V1] if core_first else [EVENTS_V1, CORE]
    for _ in range(2):
        for path in paths:
            table = _list(server, path.format(ns=ns) + "?includeObject=Object", TABLE)
            assert [row["cells"][1:4] for row in table["rows"]] == [["Normal", "Started", "pod/web"]]
            assert table["rows"][0]["cells"][6] == "started container"
            obj = table["rows"][0]["object"]
            if path == CORE:
                assert obj["apiVersion"] == "v1"
                _core_fields(obj)
            else:
                assert obj["apiVersion"] == "events.k8s.io/v1"
                _v1_fields(obj)
