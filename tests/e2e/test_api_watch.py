"""Watches over raw HTTP: the chunked stream of JSON event lines, where it starts (synthetic ADDED events,
a resourceVersion, initial events with their end bookmark), how it ends (timeoutSeconds), what it filters
(label and field selectors turning into ADDED/DELETED at the selector's edge), bookmarks, the 410 ERROR event
of a too old resourceVersion, the legacy /watch/ paths and Table watches.

Informers and `kubectl get -w` are built on exactly these frames, so they are read off the wire here with a
small line reader rather than through a client that would smooth them over.
"""

from __future__ import annotations

import http.client
import itertools
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.server import KubeliteProcess

_COUNTER = itertools.count()
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


class WatchStream:
    """One open watch request, read one JSON line (one event) at a time until a deadline."""

    def __init__(self, server: KubeliteProcess, path: str, headers: dict[str, str] | None = None) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", server.insecure_port, timeout=10)
        self.conn.request("GET", path, headers=headers or {})
        self.response = self.conn.getresponse()
        self.status = self.response.status
        self.headers = {k.lower(): v for k, v in self.response.getheaders()}
        self.closed = False

    def __enter__(self) -> WatchStream:
        return self

    def __exit__(self, *_: object) -> None:
        self.conn.close()

    def _line(self, deadline: float) -> dict[str, Any] | None:
        """The next event, or None once the server ended the stream; socket.timeout past the deadline."""
        sock = self.conn.sock
        if sock is not None:
            sock.settimeout(max(deadline - time.monotonic(), 0.01))
        line = self.response.readline()
        if not line:
            self.closed = True
            return None
        return json.loads(line)  # type: ignore[no-any-return]

    def take(self, count: int, timeout: float = 5.0) -> list[dict[str, Any]]:
        """Exactly `count` events; fails if the stream ends or stalls first."""
        deadline = time.monotonic() + timeout
        events: list[dict[str, Any]] = []
        while len(events) < count:
            event = self._line(deadline)
            assert event is not None, f"stream ended after {events}"
            events.append(event)
        return events

    def take_skipping_bookmarks(self, count: int, timeout: float = 5.0) -> list[dict[str, Any]]:
        """`count` events other than bookmarks, which a bookmark watch may interleave at any time."""
        deadline = time.monotonic() + timeout
        events: list[dict[str, Any]] = []
        while len(events) < count:
            event = self._line(deadline)
            assert event is not None, f"stream ended after {events}"
            if event["type"] != "BOOKMARK":
                events.append(event)
        return events

    def drain(self, timeout: float) -> list[dict[str, Any]]:
        """Whatever arrives until the server closes the stream or `timeout` passes."""
        deadline = time.monotonic() + timeout
        events: list[dict[str, Any]] = []
        try:
            while (event := self._line(deadline)) is not None:
                events.append(event)
        except TimeoutError:
            pass
        return events


def _namespace(server: KubeliteProcess, request: pytest.FixtureRequest) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower().removeprefix("test_"))
    name = f"w{next(_COUNTER)}-{slug}"[:63].strip("-")
    assert server.http("POST", "/api/v1/namespaces", {"metadata": {"name": name}}).status == 201
    return name


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    """This module's server sends bookmarks every second, so bookmark tests need not wait a minute."""
    data = Path(tmp_path_factory.mktemp("kubelite-watch"))
    proc = KubeliteProcess(data, extra_args=["--watch-bookmark-interval", "1s"]).start()
    yield proc
    proc.stop()


@pytest.fixture
def ns(server: KubeliteProcess, request: pytest.FixtureRequest) -> str:
    return _namespace(server, request)


def obj_path(ns: str, name: str = "") -> str:
    # secrets: no controller makes any on its own (configmaps get kube-root-ca.crt): watches see only ours
    base = f"/api/v1/namespaces/{ns}/secrets"
    return f"{base}/{name}" if name else base


def create_obj(server: KubeliteProcess, ns: str, name: str, **labels: str) -> dict[str, Any]:
    result = server.http(
        "POST", obj_path(ns), {"metadata": {"name": name, "labels": labels}, "data": {"v": "MQ=="}}
    )
    assert result.status == 201, result.body
    return result.json()  # type: ignore[no-any-return]


def replace_obj(
    server: KubeliteProcess, ns: str, name: str, data: dict[str, str], **labels: str
) -> dict[str, Any]:
    body = {"metadata": {"name": name, "labels": labels}, "data": data}
    result = server.http("PUT", obj_path(ns, name), body)
    assert result.status == 200, result.body
    return result.json()  # type: ignore[no-any-return]


def summary(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(e["type"], e["object"].get("metadata", {}).get("name", "")) for e in events]


def rv(obj: dict[str, Any]) -> int:
    return int(obj["metadata"]["resourceVersion"])


# -- the stream ----------------------------------------------------------------------------------------------


def test_watch_is_a_chunked_stream_of_json_lines(server: KubeliteProcess, ns: str) -> None:
    start = server.http("GET", obj_path(ns)).json()["metadata"]["resourceVersion"]
    with WatchStream(server, f"{obj_path(ns)}?watch=true&resourceVersion={start}") as stream:
        assert (stream.status, stream.headers["content-type"], stream.headers["transfer-encoding"]) == (
            200,
            "application/json",
            "chunked",
        )
        created = create_obj(server, ns, "a")
        updated = replace_obj(server, ns, "a", {"v": "Mg=="})
        assert server.http("DELETE", obj_path(ns, "a")).status == 200
        events = stream.take(3)
    assert [set(e) for e in events] == [{"type", "object"}] * 3
    assert summary(events) == [("ADDED", "a"), ("MODIFIED", "a"), ("DELETED", "a")]
    assert events[0]["object"] == created
    assert events[1]["object"] == updated
    assert (events[2]["object"]["kind"], events[2]["object"]["data"]) == ("Secret", {"v": "Mg=="})
    assert rv(events[2]["object"]) > rv(updated)  # a deletion is an event of its own revision


def test_watch_from_a_resource_version_sends_only_later_events(server: KubeliteProcess, ns: str) -> None:
    create_obj(server, ns, "before")
    mark = create_obj(server, ns, "mark")
    replace_obj(server, ns, "before", {"v": "Mg=="})
    create_obj(server, ns, "after")
    with WatchStream(server, f"{obj_path(ns)}?watch=true&resourceVersion={rv(mark)}") as stream:
        events = stream.take(2)
        assert stream.drain(0.5) == []
    assert summary(events) == [("MODIFIED", "before"), ("ADDED", "after")]


def test_watch_without_resource_version_starts_with_synthetic_added(server: KubeliteProcess, ns: str) -> None:
    first, second = create_obj(server, ns, "a"), create_obj(server, ns, "b")
    with WatchStream(server, f"{obj_path(ns)}?watch=true") as stream:
        initial = stream.take(2)
        create_obj(server, ns, "c")
        live = stream.take(1)
    assert [e["object"] for e in initial] == [first, second]
    assert summary(initial + live) == [("ADDED", "a"), ("ADDED", "b"), ("ADDED", "c")]


def test_watch_at_resource_version_zero_starts_with_current_state(server: KubeliteProcess, ns: str) -> None:
    create_obj(server, ns, "a")
    replace_obj(server, ns, "a", {"v": "Mg=="})
    with WatchStream(server, f"{obj_path(ns)}?watch=true&resourceVersion=0") as stream:
        events = stream.take(1)
    assert (summary(events), events[0]["object"]["data"]) == ([("ADDED", "a")], {"v": "Mg=="})


def test_timeout_seconds_ends_the_stream(server: KubeliteProcess, ns: str) -> None:
    started = time.monotonic()
    with WatchStream(server, f"{obj_path(ns)}?watch=true&timeoutSeconds=1") as stream:
        events = stream.drain(5)
        assert stream.closed
    assert events == []
    assert 0.9 <= time.monotonic() - started < 4


def test_legacy_watch_path(server: KubeliteProcess, ns: str) -> None:
    start = create_obj(server, ns, "a")
    with WatchStream(server, f"/api/v1/watch/namespaces/{ns}/secrets?resourceVersion={rv(start)}") as stream:
        assert stream.status == 200
        create_obj(server, ns, "b")
        events = stream.take(1)
    assert summary(events) == [("ADDED", "b")]


def test_legacy_watch_of_one_object(server: KubeliteProcess, ns: str) -> None:
    start = create_obj(server, ns, "a")
    create_obj(server, ns, "b")
    path = f"/api/v1/watch/namespaces/{ns}/secrets/a?resourceVersion={rv(start)}"
    with WatchStream(server, path) as stream:
        replace_obj(server, ns, "b", {"v": "Mg=="})
        replace_obj(server, ns, "a", {"v": "Mg=="})
        events = stream.take(1)
    assert summary(events) == [("MODIFIED", "a")]


def test_watch_across_all_namespaces(server: KubeliteProcess, request: pytest.FixtureRequest) -> None:
    first, second = _namespace(server, request), _namespace(server, request)
    marker = f"m{next(_COUNTER)}"
    start = server.http("GET", "/api/v1/secrets?limit=1").json()["metadata"]["resourceVersion"]
    path = f"/api/v1/secrets?watch=true&resourceVersion={start}&labelSelector=marker%3D{marker}"
    with WatchStream(server, path) as stream:
        create_obj(server, first, "x", marker=marker)
        create_obj(server, second, "y", marker=marker)
        events = stream.take(2)
    assert [(e["object"]["metadata"]["namespace"], e["object"]["metadata"]["name"]) for e in events] == [
        (first, "x"),
        (second, "y"),
    ]


# -- selectors -----------------------------------------------------------------------------------------------


def test_label_selector_watch_sees_objects_enter_and_leave(server: KubeliteProcess, ns: str) -> None:
    start = create_obj(server, ns, "a", app="other")
    with WatchStream(
        server, f"{obj_path(ns)}?watch=true&resourceVersion={rv(start)}&labelSelector=app%3Dweb"
    ) as s:
        entered = replace_obj(server, ns, "a", {"v": "Mg=="}, app="web")
        changed = replace_obj(server, ns, "a", {"v": "Mw=="}, app="web")
        left = replace_obj(server, ns, "a", {"v": "NA=="}, app="other")
        create_obj(server, ns, "b", app="other")  # never in the selector: not seen
        created = create_obj(server, ns, "c", app="web")
        events = s.take(4)
        assert s.drain(0.5) == []
    assert summary(events) == [("ADDED", "a"), ("MODIFIED", "a"), ("DELETED", "a"), ("ADDED", "c")]
    assert [events[0]["object"], events[1]["object"], events[3]["object"]] == [entered, changed, created]
    # leaving: the last state that matched, at the revision of the change that made it leave
    gone = events[2]["object"]
    assert (gone["metadata"]["labels"], gone["data"], rv(gone)) == ({"app": "web"}, {"v": "Mw=="}, rv(left))


def test_field_selector_watch_sees_only_its_object(server: KubeliteProcess, ns: str) -> None:
    start = create_obj(server, ns, "a")
    with WatchStream(
        server, f"{obj_path(ns)}?watch=true&resourceVersion={rv(start)}&fieldSelector=metadata.name%3Db"
    ) as s:
        create_obj(server, ns, "b")
        replace_obj(server, ns, "a", {"v": "Mg=="})
        replace_obj(server, ns, "b", {"v": "Mg=="})
        assert server.http("DELETE", obj_path(ns, "b")).status == 200
        events = s.take(3)
    assert summary(events) == [("ADDED", "b"), ("MODIFIED", "b"), ("DELETED", "b")]


def test_pod_field_selector_watch_on_node_name(server: KubeliteProcess, ns: str) -> None:
    """A kubelet's watch: a pod bound to its node enters the selector as ADDED."""
    pods = f"/api/v1/namespaces/{ns}/pods"
    pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
    created = server.http("POST", pods, pod).json()
    with WatchStream(
        server, f"{pods}?watch=true&resourceVersion={rv(created)}&fieldSelector=spec.nodeName%3Dn1"
    ) as s:
        binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p"}, "target": {"name": "n1"}}
        assert server.http("POST", f"{pods}/p/binding", binding).status == 201
        events = s.take(1)
    assert (summary(events), events[0]["object"]["spec"]["nodeName"]) == ([("ADDED", "p")], "n1")


# -- bookmarks and initial events ---------------------------------------------------------------------------


def test_bookmarks_arrive_when_allowed(
    server: KubeliteProcess, ns: str, request: pytest.FixtureRequest
) -> None:
    """A bookmark tells the client how far the store has got even when none of its objects changed."""
    last = create_obj(server, ns, "a")
    path = f"{obj_path(ns)}?watch=true&resourceVersion={rv(last)}&allowWatchBookmarks=true"
    with WatchStream(server, path) as stream:
        elsewhere = create_obj(server, _namespace(server, request), "unrelated")  # moves the revision on
        events = stream.take(1, timeout=4)
    bookmark = events[0]
    assert bookmark["type"] == "BOOKMARK"
    assert (bookmark["object"]["kind"], bookmark["object"]["apiVersion"]) == ("Secret", "v1")
    assert rv(bookmark["object"]) >= rv(elsewhere)
    assert set(bookmark["object"]["metadata"]) <= {"resourceVersion", "creationTimestamp"}


def test_no_bookmarks_unless_allowed(
    server: KubeliteProcess, ns: str, request: pytest.FixtureRequest
) -> None:
    last = create_obj(server, ns, "a")
    with WatchStream(server, f"{obj_path(ns)}?watch=true&resourceVersion={rv(last)}") as stream:
        create_obj(server, _namespace(server, request), "unrelated")
        assert stream.drain(2.5) == []


def test_send_initial_events_ends_with_a_marked_bookmark(server: KubeliteProcess, ns: str) -> None:
    first, second = create_obj(server, ns, "a"), create_obj(server, ns, "b")
    query = "watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
    path = f"{obj_path(ns)}?{query}"
    with WatchStream(server, path) as stream:
        events = stream.take(3)
        create_obj(server, ns, "c")
        after = stream.take_skipping_bookmarks(1)
    assert summary(events) == [("ADDED", "a"), ("ADDED", "b"), ("BOOKMARK", "")]
    assert [e["object"] for e in events[:2]] == [first, second]
    end = events[2]["object"]
    assert end["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
    assert rv(end) >= rv(second)
    assert summary(after) == [("ADDED", "c")]


def test_initial_events_end_is_only_marked_for_bookmark_watchers(server: KubeliteProcess, ns: str) -> None:
    create_obj(server, ns, "a")
    path = f"{obj_path(ns)}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
    with WatchStream(server, path) as stream:
        events = stream.drain(1.5)
    assert summary(events) == [("ADDED", "a")]


def test_send_initial_events_false_starts_at_now(server: KubeliteProcess, ns: str) -> None:
    create_obj(server, ns, "old")
    path = f"{obj_path(ns)}?watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan"
    with WatchStream(server, path) as stream:
        assert stream.status == 200
        create_obj(server, ns, "new")
        events = stream.take(1)
    assert summary(events) == [("ADDED", "new")]


@pytest.mark.parametrize(
    ("query", "causes"),
    [
        (
            "sendInitialEvents=true",
            [
                (
                    "FieldValueForbidden",
                    "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
                )
            ],
        ),
        (
            "resourceVersionMatch=NotOlderThan",
            [
                (
                    "FieldValueForbidden",
                    "Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is "
                    "provided",
                )
            ],
        ),
        (
            "sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=5",
            [
                (
                    "FieldValueForbidden",
                    "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
                ),
                ("FieldValueNotSupported", 'Unsupported value: "Exact": supported values: "NotOlderThan"'),
            ],
        ),
    ],
    ids=["initial-events-without-match", "match-without-initial-events", "exact-match"],
)
def test_invalid_watch_options_are_422(
    server: KubeliteProcess, ns: str, query: str, causes: list[tuple[str, str]]
) -> None:
    result = server.http("GET", f"{obj_path(ns)}?watch=true&{query}")
    texts = [f"resourceVersionMatch: {m}" for _, m in causes]
    summary_text = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    assert (result.status, result.json()) == (
        422,
        {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": f'ListOptions.meta.k8s.io "" is invalid: {summary_text}',
            "reason": "Invalid",
            "details": {
                "group": "meta.k8s.io",
                "kind": "ListOptions",
                "causes": [{"reason": r, "message": m, "field": "resourceVersionMatch"} for r, m in causes],
            },
            "code": 422,
        },
    )


# -- errors in the stream ------------------------------------------------------------------------------------


def test_too_old_resource_version_is_an_error_event(tmp_path: Path) -> None:
    """After a restart the watch cache starts at the current revision; older revisions are gone (410)."""
    proc = KubeliteProcess(tmp_path / "data").start()
    try:
        assert proc.http("POST", "/api/v1/namespaces", {"metadata": {"name": "old"}}).status == 201
        old = create_obj(proc, "old", "a")
        replace_obj(proc, "old", "a", {"v": "Mg=="})
        proc.restart()
        with WatchStream(proc, f"{obj_path('old')}?watch=true&resourceVersion={rv(old)}") as stream:
            assert stream.status == 200
            events = stream.drain(5)
            assert stream.closed
    finally:
        proc.stop()
    assert [e["type"] for e in events] == ["ERROR"]
    status = events[0]["object"]
    message = status.pop("message")
    assert status == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "reason": "Expired",
        "code": 410,
    }
    assert re.fullmatch(rf"too old resource version: {rv(old)} \(\d+\)", message), message


# -- Table watches ------------------------------------------------------------------------------------------


def test_table_watch_sends_column_definitions_once(server: KubeliteProcess, ns: str) -> None:
    start = create_obj(server, ns, "a")
    path = f"{obj_path(ns)}?watch=true&resourceVersion={rv(start)}"
    with WatchStream(server, path, headers={"Accept": TABLE}) as stream:
        assert stream.headers["content-type"] == "application/json"
        create_obj(server, ns, "b")
        replace_obj(server, ns, "a", {"v": "Mg==", "w": "Mw=="})
        events = stream.take(2)
    first, second = (e["object"] for e in events)
    assert [e["type"] for e in events] == ["ADDED", "MODIFIED"]
    assert (first["kind"], first["apiVersion"], second["kind"]) == ("Table", "meta.k8s.io/v1", "Table")
    assert [c["name"] for c in first["columnDefinitions"]] == ["Name", "Type", "Data", "Age"]
    assert second["columnDefinitions"] is None
    assert [r["cells"][:3] for r in first["rows"] + second["rows"]] == [
        ["b", "Opaque", 1],
        ["a", "Opaque", 2],
    ]
    # includeObject defaults to Metadata: each row carries the object's PartialObjectMetadata
    assert second["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
    assert second["rows"][0]["object"]["metadata"]["name"] == "a"


def test_watch_in_yaml_is_not_acceptable(server: KubeliteProcess, ns: str) -> None:
    """kube streams watches in JSON or protobuf only; the 406 itself is written in the YAML asked for."""
    result = server.http(
        "GET", f"{obj_path(ns)}?watch=true&timeoutSeconds=1", headers={"Accept": "application/yaml"}
    )
    assert (result.status, result.headers["content-type"]) == (406, "application/yaml")
    assert yaml.safe_load(result.body) == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "only the following media types are accepted: application/json;stream=watch, "
        "application/vnd.kubernetes.protobuf;stream=watch",
        "reason": "NotAcceptable",
        "code": 406,
    }
