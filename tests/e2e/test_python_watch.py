"""Watches through the official Python client's `kubernetes.watch.Watch`: ordering, resuming from a
resourceVersion, label-selector transitions, bookmarks, and 410 Expired after compaction.

Events are the client's view: `Watch.stream` deserializes objects into models, yields BOOKMARK objects raw,
and turns an ERROR event into an ApiException, so these tests pin what a Python controller sees.
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client, watch
from kubernetes.client.rest import ApiException

from tests.e2e.server import KubeliteProcess

Event = tuple[str, str, str]  # (type, name, resourceVersion)


@pytest.fixture(scope="module")
def api(server: KubeliteProcess) -> Iterator[Any]:
    api_client = server.python_client()
    yield api_client
    api_client.close()


@pytest.fixture
def core(api: Any) -> client.CoreV1Api:
    return client.CoreV1Api(api)


#: what kube's controllers put in every new namespace: the root CA bundle and the default service account
ROOT_CA = "kube-root-ca.crt"


def settled_namespace(core: client.CoreV1Api) -> str:
    """A new namespace once the controllers are done with it, so that a watch sees only the test's changes."""
    name = f"pw-{uuid.uuid4().hex[:8]}"
    core.create_namespace({"metadata": {"name": name}})
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        configmaps = [cm.metadata.name for cm in core.list_namespaced_config_map(name).items]
        accounts = [sa.metadata.name for sa in core.list_namespaced_service_account(name).items]
        if (configmaps, accounts) == ([ROOT_CA], ["default"]):
            return name
        time.sleep(0.05)
    raise AssertionError(f"namespace {name} did not get its {ROOT_CA} and default service account")


@pytest.fixture
def ns(core: client.CoreV1Api) -> str:
    return settled_namespace(core)


def collect(
    core: client.CoreV1Api,
    ns: str,
    rv: str,
    *,
    seconds: int = 2,
    stop_after: int | None = None,
    **kwargs: Any,
) -> list[dict[str, Any]]:
    """Every event of one watch until the server ends it at timeoutSeconds (or `stop_after` events)."""
    w = watch.Watch()
    events: list[dict[str, Any]] = []
    for event in w.stream(
        core.list_namespaced_config_map, ns, resource_version=rv, timeout_seconds=seconds, **kwargs
    ):
        events.append(event)
        if stop_after is not None and len(events) >= stop_after:
            w.stop()
    return events


def summary(events: list[dict[str, Any]]) -> list[Event]:
    out = []
    for e in events:
        obj = e["object"]
        out.append((e["type"], obj.metadata.name, obj.metadata.resource_version))
    return out


def apply_changes(core: client.CoreV1Api, ns: str, prefix: str, count: int) -> list[Event]:
    """Creates, updates and deletes; returns the events a watcher must see, in order."""
    expected: list[Event] = []
    for i in range(count):
        name = f"{prefix}-{i}"
        created = core.create_namespaced_config_map(ns, {"metadata": {"name": name}, "data": {"i": str(i)}})
        expected.append(("ADDED", name, created.metadata.resource_version))
        if i % 2 == 0:
            patched = core.patch_namespaced_config_map(name, ns, {"data": {"i": f"{i}-changed"}})
            expected.append(("MODIFIED", name, patched.metadata.resource_version))
        if i % 3 == 0:
            deleted = core.delete_namespaced_config_map(name, ns)
            assert deleted.status == "Success"
            # a DELETED event carries the deletion's revision, which no answer shows: keep the name only
            expected.append(("DELETED", name, ""))
    return expected


def _without_delete_rvs(events: list[Event]) -> list[Event]:
    return [(t, n, "" if t == "DELETED" else rv) for t, n, rv in events]


def test_events_after_resource_version_in_order(core: client.CoreV1Api, ns: str) -> None:
    start = core.list_namespaced_config_map(ns).metadata.resource_version
    expected = apply_changes(core, ns, "before", 6)

    # half of the changes happen before the watch opens (replayed), half while it is open (live)
    live: list[Event] = []
    writer_core = client.CoreV1Api(core.api_client)

    def write_later() -> None:
        time.sleep(0.5)
        live.extend(apply_changes(writer_core, ns, "during", 6))

    writer = threading.Thread(target=write_later)
    writer.start()
    try:
        events = collect(core, ns, start, seconds=3)
    finally:
        writer.join()

    got = summary(events)
    assert _without_delete_rvs(got) == expected + _without_delete_rvs(live)
    revisions = [int(rv) for _, _, rv in got]
    assert revisions == sorted(set(revisions)), "resourceVersions must strictly increase"
    assert all(type(e["object"]).__name__ == "V1ConfigMap" for e in events)


def test_resume_from_last_seen_resource_version(core: client.CoreV1Api, ns: str) -> None:
    start = core.list_namespaced_config_map(ns).metadata.resource_version
    first_batch = apply_changes(core, ns, "a", 4)
    seen = collect(core, ns, start, seconds=2, stop_after=3)
    assert _without_delete_rvs(summary(seen)) == first_batch[:3]
    last_rv = seen[-1]["object"].metadata.resource_version

    # changes while no watch is open
    second_batch = apply_changes(core, ns, "b", 4)
    resumed = collect(core, ns, last_rv, seconds=2)
    assert _without_delete_rvs(summary(resumed)) == first_batch[3:] + second_batch


def test_label_selector_transitions(core: client.CoreV1Api, ns: str) -> None:
    start = core.list_namespaced_config_map(ns).metadata.resource_version

    def label(name: str, value: str) -> str:
        return core.patch_namespaced_config_map(
            name, ns, {"metadata": {"labels": {"app": value}}}
        ).metadata.resource_version

    created = core.create_namespaced_config_map(ns, {"metadata": {"name": "x", "labels": {"app": "a"}}})
    core.create_namespaced_config_map(ns, {"metadata": {"name": "never", "labels": {"app": "b"}}})
    changed = core.patch_namespaced_config_map("x", ns, {"data": {"k": "v"}}).metadata.resource_version
    left = label("x", "b")
    label("never", "c")
    back = label("x", "a")
    core.delete_namespaced_config_map("x", ns)

    events = collect(core, ns, start, seconds=2, label_selector="app=a")
    assert _without_delete_rvs(summary(events)) == [
        ("ADDED", "x", created.metadata.resource_version),
        ("MODIFIED", "x", changed),
        ("DELETED", "x", ""),  # stopped matching
        ("ADDED", "x", back),  # matches again
        ("DELETED", "x", ""),
    ]
    # as kube's cache watcher: leaving the selector shows the object as it last matched, at the new revision
    stopped = events[2]["object"]
    assert (stopped.metadata.labels, stopped.metadata.resource_version) == ({"app": "a"}, left)


def test_watch_sees_only_its_namespace(core: client.CoreV1Api, ns: str) -> None:
    other = settled_namespace(core)
    start = core.list_namespaced_config_map(ns).metadata.resource_version
    core.create_namespaced_config_map(other, {"metadata": {"name": "elsewhere"}})
    mine = core.create_namespaced_config_map(ns, {"metadata": {"name": "mine"}})
    assert summary(collect(core, ns, start, seconds=1)) == [("ADDED", "mine", mine.metadata.resource_version)]


# -- bookmarks -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bookmarking_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    proc = KubeliteProcess(
        Path(tmp_path_factory.mktemp("bookmarks")), extra_args=["--watch-bookmark-interval", "1s"]
    ).start()
    yield proc
    proc.stop()


def _watch_while_elsewhere_changes(
    proc: KubeliteProcess, **kwargs: Any
) -> tuple[list[dict[str, Any]], str, str]:
    """Watch one namespace's configmaps for four seconds while configmaps change in another namespace: the
    watch cache's revision moves on, and nothing of it matches the watch.

    Returns the events, the revision of the one change in the watched namespace, and the last change's."""
    api_client = proc.python_client()
    try:
        core = client.CoreV1Api(api_client)
        watched, busy = settled_namespace(core), settled_namespace(core)
        start = core.list_namespaced_config_map(watched).metadata.resource_version
        mine = core.create_namespaced_config_map(
            watched, {"metadata": {"name": "cm"}}
        ).metadata.resource_version
        last: list[str] = []
        writer_core = client.CoreV1Api(proc.python_client())

        def write_elsewhere() -> None:
            for i in range(6):
                time.sleep(0.5)
                cm = writer_core.create_namespaced_config_map(busy, {"metadata": {"name": f"other-{i}"}})
                last.append(cm.metadata.resource_version)

        writer = threading.Thread(target=write_elsewhere)
        writer.start()
        try:
            w = watch.Watch()
            events = list(
                w.stream(
                    core.list_namespaced_config_map,
                    watched,
                    resource_version=start,
                    timeout_seconds=4,
                    **kwargs,
                )
            )
        finally:
            writer.join()
            writer_core.api_client.close()
        events.append({"type": "CLIENT", "resource_version": w.resource_version})
        return events, mine, last[-1]
    finally:
        api_client.close()


def test_bookmarks(bookmarking_server: KubeliteProcess) -> None:
    events, mine, last = _watch_while_elsewhere_changes(bookmarking_server, allow_watch_bookmarks=True)
    client_state = events.pop()
    assert (events[0]["type"], events[0]["object"].metadata.name) == ("ADDED", "cm")
    assert events[0]["object"].metadata.resource_version == mine
    bookmarks = events[1:]
    assert {e["type"] for e in bookmarks} == {"BOOKMARK"}, (
        "changes elsewhere reach this watch only as bookmarks"
    )
    revisions = []
    for e in bookmarks:
        obj = e["object"]  # the client leaves bookmark objects undecoded
        assert (obj["kind"], obj["apiVersion"], set(obj)) == (
            "ConfigMap",
            "v1",
            {"kind", "apiVersion", "metadata"},
        )
        revisions.append(int(obj["metadata"]["resourceVersion"]))
    # kube promises no unique bookmarks, only that none goes back in time
    assert revisions == sorted(revisions)
    assert len(set(revisions)) >= 2, "the bookmarks follow the revision as it moves"
    assert int(mine) < revisions[0] and revisions[-1] <= int(last)
    assert client_state["resource_version"] == str(revisions[-1])  # the client resumes from the last bookmark


def test_no_bookmarks_unless_asked(bookmarking_server: KubeliteProcess) -> None:
    events, mine, _ = _watch_while_elsewhere_changes(bookmarking_server)
    assert [(e["type"], e.get("resource_version")) for e in events[1:]] == [("CLIENT", mine)]
    assert (events[0]["type"], events[0]["object"].metadata.resource_version) == ("ADDED", mine)


# -- 410 Gone after compaction -------------------------------------------------------------------------


def _poll(predicate: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.25)
    raise AssertionError("condition not met in time")


CONTINUE_EXPIRED = (
    "The provided continue parameter is too old to display a consistent list result. "
    "You can start a new list without the continue parameter, or use the continue token in this response "
    "to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent "
    "list - objects that were created, modified, or deleted between the time the first chunk was returned "
    "and now may show up in the list."
)


@dataclass
class Compacted:
    proc: KubeliteProcess
    namespace: str
    #: a continue token and a list revision from before the compaction
    token: str
    old_rv: str
    #: the revision of the last write
    last: str


@pytest.fixture(scope="module")
def compacted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Compacted]:
    """A server that compacts every 2s (to the revision seen at the previous tick), after it compacted away
    the revision of a paginated list."""
    proc = KubeliteProcess(
        Path(tmp_path_factory.mktemp("compaction")), extra_args=["--etcd-compaction-interval", "2s"]
    ).start()
    try:
        api_client = proc.python_client()
        core = client.CoreV1Api(api_client)
        ns = "compacted"
        core.create_namespace({"metadata": {"name": ns}})
        for i in range(3):
            core.create_namespaced_config_map(ns, {"metadata": {"name": f"cm-{i}"}})
        first_page = core.list_namespaced_config_map(ns, limit=1)
        token, old_rv = first_page.metadata._continue, first_page.metadata.resource_version
        assert token and [i.metadata.name for i in first_page.items] == ["cm-0"]
        for i in range(5):
            core.patch_namespaced_config_map("cm-1", ns, {"data": {"n": str(i)}})
        last = core.patch_namespaced_config_map("cm-2", ns, {"data": {"n": "x"}}).metadata.resource_version

        def gone() -> bool:
            try:
                core.list_namespaced_config_map(ns, resource_version=old_rv, resource_version_match="Exact")
            except ApiException as exc:
                assert exc.status == 410
                return True
            return False

        _poll(gone, timeout=15)
        api_client.close()
        yield Compacted(proc, ns, token, old_rv, last)
    finally:
        proc.stop()


def test_list_with_compacted_continue_token(compacted: Compacted) -> None:
    api_client = compacted.proc.python_client()
    try:
        with pytest.raises(ApiException) as caught:
            client.CoreV1Api(api_client).list_namespaced_config_map(
                compacted.namespace, limit=1, _continue=compacted.token
            )
    finally:
        api_client.close()
    assert caught.value.status == 410
    body = json.loads(caught.value.body)
    assert (body["kind"], body["status"], body["reason"], body["code"]) == (
        "Status",
        "Failure",
        "Expired",
        410,
    )
    assert body["message"] == CONTINUE_EXPIRED


def test_compacted_continue_offers_an_inconsistent_continuation(compacted: Compacted) -> None:
    """kube's 410 carries a token that continues the list at the newest revision after the same key."""
    api_client = compacted.proc.python_client()
    core = client.CoreV1Api(api_client)
    try:
        with pytest.raises(ApiException) as caught:
            core.list_namespaced_config_map(compacted.namespace, limit=1, _continue=compacted.token)
        token = json.loads(caught.value.body)["metadata"].get("continue")
        assert token
        rest = core.list_namespaced_config_map(compacted.namespace, _continue=token)
    finally:
        api_client.close()
    assert [i.metadata.name for i in rest.items] == ["cm-1", "cm-2", "kube-root-ca.crt"]
    assert [i.data for i in rest.items[:2]] == [{"n": "4"}, {"n": "x"}]


def test_watch_from_compacted_revision(compacted: Compacted) -> None:
    # the running watch cache may still hold those events; a fresh one (after a restart) holds none
    compacted.proc.restart()
    api_client = compacted.proc.python_client()
    core = client.CoreV1Api(api_client)
    try:
        now = core.list_namespaced_config_map(compacted.namespace).metadata.resource_version
        w = watch.Watch()
        with pytest.raises(ApiException) as caught:
            list(
                w.stream(
                    core.list_namespaced_config_map,
                    compacted.namespace,
                    resource_version=compacted.old_rv,
                    timeout_seconds=2,
                )
            )
    finally:
        api_client.close()
    # the server sends an ERROR event on a 200 stream; the client raises it with the Status' reason, message
    assert caught.value.status == 410
    assert caught.value.body is None
    match = re.fullmatch(
        rf"Expired: too old resource version: {compacted.old_rv} \((\d+)\)", caught.value.reason
    )
    assert match, caught.value.reason
    # the oldest revision the fresh cache serves from is its first list's
    assert int(compacted.last) <= int(match.group(1)) <= int(now)
