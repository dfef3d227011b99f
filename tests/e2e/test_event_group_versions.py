"""One Event served by two group-versions (core/v1 and events.k8s.io/v1): each list names the fields its own
way, whichever was listed first, in JSON, as a Table and in protobuf, and in watches.

Both APIs serve the same stored object, with the same uid and resourceVersion, so anything kept per object
(the encoded list items, the Table facts) must be kept per group-version too.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from kubelite.apimachinery import protobuf
from tests.e2e.server import KubeliteProcess
from tests.e2e.test_api_watch import WatchStream

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


def test_each_group_version_watches_its_own_fields(server: KubeliteProcess) -> None:
    """Watchers of both APIs see one event each, named their way (every event is encoded once per wire form,
    and a form is a group-version too)."""
    ns = _event_namespace(server)
    listed = _list(server, CORE.format(ns=ns), "application/json")
    since = listed["metadata"]["resourceVersion"]
    paths = [f"{path.format(ns=ns)}?watch=true&resourceVersion={since}" for path in (CORE, EVENTS_V1)]
    with WatchStream(server, paths[0]) as core, WatchStream(server, paths[1]) as events_v1:
        patch = {"message": "restarted container"}
        patched = server.http(
            "PATCH",
            f"{CORE.format(ns=ns)}/ev1",
            patch,
            headers={"Content-Type": "application/merge-patch+json"},
        )
        assert patched.status == 200, patched.body
        (core_event,) = core.take(1)
        (v1_event,) = events_v1.take(1)
    assert (core_event["type"], v1_event["type"]) == ("MODIFIED", "MODIFIED")
    assert core_event["object"]["apiVersion"] == "v1"
    assert core_event["object"]["message"] == "restarted container"
    assert "note" not in core_event["object"]
    assert v1_event["object"]["apiVersion"] == "events.k8s.io/v1"
    assert v1_event["object"]["note"] == "restarted container"
    assert "message" not in v1_event["object"]


def test_events_v1_selects_on_its_own_field_labels(server: KubeliteProcess) -> None:
    ns = _event_namespace(server)
    for selector, found in [
        ("regarding.name=web", ["ev1"]),
        ("regarding.name=other", []),
        ("regarding.kind=Pod,reason=Started", ["ev1"]),
        ("reportingController=kubelet", []),  # the core event names no reporting component
        ("involvedObject.name=web", ["ev1"]),  # kube takes the stored labels too
    ]:
        listed = server.http("GET", EVENTS_V1.format(ns=ns) + f"?fieldSelector={selector}")
        assert listed.status == 200, (selector, listed.body)
        assert [item["metadata"]["name"] for item in listed.json()["items"]] == found, selector
    # core/v1 keeps its own labels only
    refused = server.http("GET", CORE.format(ns=ns) + "?fieldSelector=regarding.name=web")
    assert (refused.status, refused.json()["message"]) == (400, "field label not supported: regarding.name")
