"""The generic Store with the built-in strategies, over SQLite and the watch cache, without HTTP."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import uvloop

from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.selectors import parse_field_selector, parse_label_selector
from kubelite.registry.builtin import Registry, build_registry
from kubelite.registry.options import DeleteParams, ListParams, WriteParams
from kubelite.registry.store import Store
from kubelite.storage.sqlite import SQLiteStorage

Body = Callable[[Registry], Awaitable[None]]

RFC3339 = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
NAME_SUFFIX = re.compile(r"[bcdfghjklmnpqrstvwxz2456789]{5}")
MODIFIED = "the object has been modified; please apply your changes to the latest version and try again"
SUBDOMAIN_MESSAGE = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


def run(tmp_path: Path, body: Body) -> None:
    async def main() -> None:
        storage = await SQLiteStorage.open(tmp_path)
        registry = await build_registry(storage)
        try:
            await body(registry)
        finally:
            for cacher in registry.cachers:
                await cacher.close()
            await storage.close()

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(asyncio.wait_for(main(), 30))


def configmaps(registry: Registry) -> Store:
    return registry.store("", "configmaps")


def configmap(name: str = "", **extra: Any) -> Obj:
    meta: dict[str, Any] = {"name": name} if name else {}
    meta.update(extra.pop("metadata", {}))
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, **extra}


def deployment(name: str, image: str = "nginx") -> Obj:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": image}]},
            },
        },
    }


async def expect_status(call: Awaitable[Any]) -> StatusError:
    with pytest.raises(StatusError) as caught:
        await call
    return caught.value


def replace_data(
    data: dict[str, str], resource_version: str | None = None
) -> Callable[[Obj | None], Awaitable[Obj]]:
    async def update(current: Obj | None) -> Obj:
        assert current is not None
        current["data"] = data
        if resource_version is not None:
            current["metadata"]["resourceVersion"] = resource_version
        return current

    return update


# -- create --------------------------------------------------------------------------------------------------


def test_create_sets_system_fields(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        created = await configmaps(registry).create("default", configmap("a", data={"k": "v"}), WriteParams())
        meta = created["metadata"]
        assert (created["apiVersion"], created["kind"], created["data"]) == ("v1", "ConfigMap", {"k": "v"})
        assert (meta["name"], meta["namespace"], str(uuid.UUID(meta["uid"])), "generation" in meta) == (
            "a",
            "default",
            meta["uid"],
            False,
        )
        assert RFC3339.fullmatch(meta["creationTimestamp"])
        assert int(meta["resourceVersion"]) > 0
        assert await configmaps(registry).get("default", "a") == created

    run(tmp_path, body)


def test_create_drops_client_set_system_fields(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        sent = configmap(
            "a",
            metadata={
                "uid": "mine",
                "resourceVersion": "99",
                "generation": 7,
                "selfLink": "/x",
                "deletionTimestamp": "2020-01-01T00:00:00Z",
                "creationTimestamp": None,
            },
        )
        meta = (await configmaps(registry).create("default", sent, WriteParams()))["metadata"]
        assert meta["uid"] != "mine"
        assert [k for k in ("generation", "selfLink", "deletionTimestamp") if k in meta] == []
        assert meta["resourceVersion"] != "99"
        assert RFC3339.fullmatch(meta["creationTimestamp"])

    run(tmp_path, body)


def test_create_tracks_generation_for_kinds_with_a_spec(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        created = await registry.store("apps", "deployments").create(
            "default", deployment("web"), WriteParams()
        )
        assert (created["metadata"]["generation"], created["spec"]["replicas"]) == (1, 1)

    run(tmp_path, body)


def test_generate_name(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        names = set()
        for _ in range(5):
            created = await store.create(
                "default", configmap(metadata={"generateName": "web-"}), WriteParams()
            )
            name = created["metadata"]["name"]
            assert (name[:4], bool(NAME_SUFFIX.fullmatch(name[4:])), created["metadata"]["generateName"]) == (
                "web-",
                True,
                "web-",
            )
            names.add(name)
        assert len(names) == 5
        # an explicit name wins over generateName
        named = await store.create(
            "default", configmap("fixed", metadata={"generateName": "web-"}), WriteParams()
        )
        assert named["metadata"]["name"] == "fixed"

    run(tmp_path, body)


def test_generate_name_is_cut_to_fit(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        base = "x" * 60
        created = await configmaps(registry).create(
            "default", configmap(metadata={"generateName": base}), WriteParams()
        )
        assert (len(created["metadata"]["name"]), created["metadata"]["name"][:58]) == (63, base[:58])

    run(tmp_path, body)


def test_create_existing_name_conflicts(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        await configmaps(registry).create("default", configmap("a"), WriteParams())
        err = await expect_status(configmaps(registry).create("default", configmap("a"), WriteParams()))
        assert err.to_status() == {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": 'configmaps "a" already exists',
            "reason": "AlreadyExists",
            "details": {"name": "a", "kind": "configmaps"},
            "code": 409,
        }

    run(tmp_path, body)


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        (
            configmap("a", metadata={"namespace": "other"}),
            "the namespace of the provided object does not match the namespace sent on the request",
        ),
        (
            {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "a"}},
            "the kind in the data (Secret) does not match the expected kind (ConfigMap)",
        ),
        (
            {"apiVersion": "v2", "kind": "ConfigMap", "metadata": {"name": "a"}},
            "the API version in the data (v2) does not match the expected API version (v1)",
        ),
    ],
    ids=["namespace-mismatch", "kind-mismatch", "version-mismatch"],
)
def test_create_bad_requests(tmp_path: Path, obj: Obj, message: str) -> None:
    async def body(registry: Registry) -> None:
        err = await expect_status(configmaps(registry).create("default", obj, WriteParams()))
        assert (err.code, err.reason, err.message) == (400, "BadRequest", message)

    run(tmp_path, body)


def test_create_invalid_is_422_with_causes(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        err = await expect_status(
            configmaps(registry).create("default", configmap("Bad_Name", data={"ok": "1"}), WriteParams())
        )
        assert err.to_status() == {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": 'ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": '
            + SUBDOMAIN_MESSAGE,
            "reason": "Invalid",
            "details": {
                "name": "Bad_Name",
                "kind": "ConfigMap",
                "causes": [
                    {
                        "reason": "FieldValueInvalid",
                        "message": f'Invalid value: "Bad_Name": {SUBDOMAIN_MESSAGE}',
                        "field": "metadata.name",
                    }
                ],
            },
            "code": 422,
        }
        missing = await expect_status(
            registry.store("apps", "deployments").create(
                "default", {"metadata": {"name": "d"}, "spec": {}}, WriteParams()
            )
        )
        assert (missing.code, missing.message, missing.details) == (
            422,
            'Deployment.apps "d" is invalid: [spec.selector: Required value, spec.template: Required value]',
            {
                "name": "d",
                "group": "apps",
                "kind": "Deployment",
                "causes": [
                    {"reason": "FieldValueRequired", "message": "Required value", "field": "spec.selector"},
                    {"reason": "FieldValueRequired", "message": "Required value", "field": "spec.template"},
                ],
            },
        )

    run(tmp_path, body)


def test_create_dry_run_persists_nothing(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        before = await store.storage.current_revision()
        result = await store.create("default", configmap("a", data={"k": "v"}), WriteParams(dry_run=True))
        assert (
            result["metadata"]["name"],
            "uid" in result["metadata"],
            "resourceVersion" in result["metadata"],
        ) == ("a", True, False)
        assert (await expect_status(store.get("default", "a"))).code == 404
        assert await store.storage.current_revision() == before

    run(tmp_path, body)


# -- update --------------------------------------------------------------------------------------------------


def test_update_with_a_stale_resource_version_conflicts(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        created = await store.create("default", configmap("a", data={"k": "1"}), WriteParams())
        stale = created["metadata"]["resourceVersion"]
        await store.update("default", "a", replace_data({"k": "2"}), WriteParams())
        err = await expect_status(
            store.update("default", "a", replace_data({"k": "3"}, stale), WriteParams())
        )
        assert err.to_status() == {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": f'Operation cannot be fulfilled on configmaps "a": {MODIFIED}',
            "reason": "Conflict",
            "details": {"name": "a", "kind": "configmaps"},
            "code": 409,
        }
        assert (await store.get("default", "a"))["data"] == {"k": "2"}

    run(tmp_path, body)


def test_update_with_the_current_resource_version(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        created = await store.create("default", configmap("a", data={"k": "1"}), WriteParams())
        rv = created["metadata"]["resourceVersion"]
        updated, was_created = await store.update("default", "a", replace_data({"k": "2"}, rv), WriteParams())
        assert (was_created, updated["data"], int(updated["metadata"]["resourceVersion"]) > int(rv)) == (
            False,
            {"k": "2"},
            True,
        )
        assert (updated["metadata"]["uid"], updated["metadata"]["creationTimestamp"]) == (
            created["metadata"]["uid"],
            created["metadata"]["creationTimestamp"],
        )

    run(tmp_path, body)


def test_noop_update_keeps_the_resource_version(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        created = await store.create("default", configmap("a", data={"k": "1"}), WriteParams())
        before = await store.storage.current_revision()
        same, _ = await store.update("default", "a", replace_data({"k": "1"}), WriteParams())
        assert same == created
        assert await store.storage.current_revision() == before

    run(tmp_path, body)


def test_update_keeps_immutable_system_fields(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        created = await store.create("default", configmap("a"), WriteParams())

        async def tamper(current: Obj | None) -> Obj:
            assert current is not None
            current["metadata"].update(uid="other", creationTimestamp="2000-01-01T00:00:00Z", generation=5)
            current["data"] = {"k": "v"}
            return current

        updated, _ = await store.update("default", "a", tamper, WriteParams())
        meta = updated["metadata"]
        assert (meta["uid"], meta["creationTimestamp"], "generation" in meta, updated["data"]) == (
            created["metadata"]["uid"],
            created["metadata"]["creationTimestamp"],
            False,
            {"k": "v"},
        )

    run(tmp_path, body)


def test_generation_moves_with_spec_changes_only(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        store = registry.store("apps", "deployments")
        await store.create("default", deployment("web"), WriteParams())

        async def image(current: Obj | None) -> Obj:
            assert current is not None
            current["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
            return current

        async def label(current: Obj | None) -> Obj:
            assert current is not None
            current["metadata"]["labels"] = {"tier": "web"}
            return current

        after_spec, _ = await store.update("default", "web", image, WriteParams())
        after_label, _ = await store.update("default", "web", label, WriteParams())
        assert (after_spec["metadata"]["generation"], after_label["metadata"]["generation"]) == (2, 2)

    run(tmp_path, body)


def test_update_of_a_missing_object(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        err = await expect_status(
            configmaps(registry).update("default", "nope", replace_data({}), WriteParams())
        )
        assert (err.code, err.message) == (404, 'configmaps "nope" not found')

    run(tmp_path, body)


def test_update_name_mismatch(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        await store.create("default", configmap("a"), WriteParams())

        async def rename(current: Obj | None) -> Obj:
            assert current is not None
            current["metadata"]["name"] = "b"
            return current

        err = await expect_status(store.update("default", "a", rename, WriteParams()))
        assert (err.code, err.message) == (
            400,
            "the name of the object (b) does not match the name on the URL (a)",
        )

    run(tmp_path, body)


def test_update_dry_run_persists_nothing(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        created = await store.create("default", configmap("a", data={"k": "1"}), WriteParams())
        result, was_created = await store.update(
            "default", "a", replace_data({"k": "2"}), WriteParams(dry_run=True)
        )
        assert (result["data"], was_created) == ({"k": "2"}, False)
        assert await store.get("default", "a") == created

    run(tmp_path, body)


# -- delete --------------------------------------------------------------------------------------------------


def test_delete(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        created = await store.create("default", configmap("a"), WriteParams())
        deleted, now = await store.delete("default", "a", DeleteParams())
        assert (now, deleted["metadata"]["uid"], int(deleted["metadata"]["resourceVersion"]) > 0) == (
            True,
            created["metadata"]["uid"],
            True,
        )
        assert (await expect_status(store.get("default", "a"))).code == 404
        err = await expect_status(store.delete("default", "a", DeleteParams()))
        assert (err.code, err.reason, err.message) == (404, "NotFound", 'configmaps "a" not found')

    run(tmp_path, body)


def test_delete_dry_run_keeps_the_object(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        created = await store.create("default", configmap("a"), WriteParams())
        result, now = await store.delete("default", "a", DeleteParams(dry_run=True))
        assert (result, now) == (created, True)
        assert await store.get("default", "a") == created

    run(tmp_path, body)


def test_delete_with_finalizers_waits_for_them(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        await store.create(
            "default", configmap("a", metadata={"finalizers": ["x/one", "x/two"]}), WriteParams()
        )
        marked, now = await store.delete("default", "a", DeleteParams())
        meta = marked["metadata"]
        assert (now, meta["deletionGracePeriodSeconds"], meta["finalizers"]) == (False, 0, ["x/one", "x/two"])
        assert RFC3339.fullmatch(meta["deletionTimestamp"])
        assert await store.get("default", "a") == marked

        async def drop(finalizer: str) -> Callable[[Obj | None], Awaitable[Obj]]:
            async def update(current: Obj | None) -> Obj:
                assert current is not None
                current["metadata"]["finalizers"].remove(finalizer)
                return current

            return update

        kept, _ = await store.update("default", "a", await drop("x/one"), WriteParams())
        assert (kept["metadata"]["finalizers"], kept["metadata"]["deletionTimestamp"]) == (
            ["x/two"],
            meta["deletionTimestamp"],
        )

        async def add(current: Obj | None) -> Obj:
            assert current is not None
            current["metadata"]["finalizers"].append("x/three")
            return current

        refused = await expect_status(store.update("default", "a", add, WriteParams()))
        assert (refused.code, refused.details and refused.details["causes"]) == (
            422,
            [
                {
                    "reason": "FieldValueForbidden",
                    "message": "Forbidden: no new finalizers can be added if the object is being deleted, "
                    'found new finalizers []string{"x/three"}',
                    "field": "metadata.finalizers",
                }
            ],
        )

        await store.update("default", "a", await drop("x/two"), WriteParams())
        assert (await expect_status(store.get("default", "a"))).code == 404

    run(tmp_path, body)


def test_marking_for_deletion_moves_the_generation_once(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        store = registry.store("apps", "deployments")
        web = deployment("web")
        web["metadata"]["finalizers"] = ["x/one"]
        await store.create("default", web, WriteParams())
        marked, _ = await store.delete("default", "web", DeleteParams())
        again, _ = await store.delete("default", "web", DeleteParams())
        # a ConfigMap counts no generations, and gets none from its deletion
        cms = configmaps(registry)
        await cms.create("default", configmap("a", metadata={"finalizers": ["x/one"]}), WriteParams())
        cm, _ = await cms.delete("default", "a", DeleteParams())
        assert (marked["metadata"]["generation"], again["metadata"]["generation"], "generation" in cm["metadata"]) == (
            2,
            2,
            False,
        )

    run(tmp_path, body)


def test_delete_with_finalizers_dry_run(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        created = await store.create(
            "default", configmap("a", metadata={"finalizers": ["x/y"]}), WriteParams()
        )
        result, now = await store.delete("default", "a", DeleteParams(dry_run=True))
        assert (now, "deletionTimestamp" in result["metadata"]) == (False, True)
        assert await store.get("default", "a") == created

    run(tmp_path, body)


@pytest.mark.parametrize(
    ("which", "message"),
    [
        (
            "uid",
            "the UID in the precondition (wrong) does not match the UID in record ({uid}). "
            "The object might have been deleted and then recreated",
        ),
        (
            "resourceVersion",
            "the ResourceVersion in the precondition (1000) does not match the ResourceVersion in record "
            "({rv}). The object might have been modified",
        ),
    ],
    ids=["uid", "resource-version"],
)
def test_delete_preconditions_that_fail(tmp_path: Path, which: str, message: str) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        meta = (await store.create("default", configmap("a"), WriteParams()))["metadata"]
        params = (
            DeleteParams(precondition_uid="wrong")
            if which == "uid"
            else DeleteParams(precondition_resource_version="1000")
        )
        err = await expect_status(store.delete("default", "a", params))
        expected = message.format(uid=meta["uid"], rv=meta["resourceVersion"])
        assert (err.code, err.reason, err.message, err.details) == (
            409,
            "Conflict",
            # kube's rest.BeforeDelete names the kind in these conflicts
            f'Operation cannot be fulfilled on ConfigMap "a": {expected}',
            {"name": "a", "kind": "ConfigMap"},
        )
        assert (await store.get("default", "a"))["metadata"] == meta

    run(tmp_path, body)


def test_delete_preconditions_that_hold(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        meta = (await store.create("default", configmap("a"), WriteParams()))["metadata"]
        params = DeleteParams(
            precondition_uid=meta["uid"], precondition_resource_version=meta["resourceVersion"]
        )
        _, now = await store.delete("default", "a", params)
        assert now is True

    run(tmp_path, body)


# -- list ----------------------------------------------------------------------------------------------------


def names(listed: Obj) -> list[str]:
    return [item["metadata"]["name"] for item in listed["items"]]


def test_list_pages_with_continue_tokens(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        for name in "edcba":
            await store.create("default", configmap(name), WriteParams())
        await store.create("other", configmap("z"), WriteParams())
        first = await store.list("default", ListParams(limit=2))
        revision = first["metadata"]["resourceVersion"]
        assert (
            first["kind"],
            first["apiVersion"],
            names(first),
            first["metadata"]["remainingItemCount"],
        ) == ("ConfigMapList", "v1", ["a", "b"], 3)
        # a page after a write still shows the first page's snapshot
        await store.create("default", configmap("bb"), WriteParams())
        second = await store.list(
            "default", ListParams(limit=2, continue_token=first["metadata"]["continue"])
        )
        assert (
            names(second),
            second["metadata"]["resourceVersion"],
            second["metadata"]["remainingItemCount"],
        ) == (["c", "d"], revision, 1)
        last = await store.list("default", ListParams(limit=2, continue_token=second["metadata"]["continue"]))
        assert (names(last), last["metadata"]) == (["e"], {"resourceVersion": revision})

    run(tmp_path, body)


def test_list_across_namespaces(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        for namespace, name in (("b", "x"), ("a", "y"), ("a", "x")):
            await store.create(namespace, configmap(name), WriteParams())
        listed = await store.list("", ListParams())
        assert [(i["metadata"]["namespace"], i["metadata"]["name"]) for i in listed["items"]] == [
            ("a", "x"),
            ("a", "y"),
            ("b", "x"),
        ]
        page = await store.list("", ListParams(limit=2))
        rest = await store.list("", ListParams(limit=2, continue_token=page["metadata"]["continue"]))
        assert [(i["metadata"]["namespace"], i["metadata"]["name"]) for i in rest["items"]] == [("b", "x")]

    run(tmp_path, body)


def test_selected_pages_have_no_remaining_count(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        for name, app in (("a", "x"), ("b", "y"), ("c", "x"), ("d", "x")):
            await store.create("default", configmap(name, metadata={"labels": {"app": app}}), WriteParams())
        selector = parse_label_selector("app=x")
        first = await store.list("default", ListParams(label_selector=selector, limit=2))
        assert (names(first), "continue" in first["metadata"], "remainingItemCount" in first["metadata"]) == (
            ["a", "c"],
            True,
            False,
        )
        rest = await store.list(
            "default",
            ListParams(label_selector=selector, limit=2, continue_token=first["metadata"]["continue"]),
        )
        assert (names(rest), "continue" in rest["metadata"]) == (["d"], False)

    run(tmp_path, body)


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("metadata.name=b", ["b"]),
        ("metadata.name!=b", ["a", "c"]),
        ("metadata.namespace=default", ["a", "b", "c"]),
    ],
    ids=["name", "not-name", "namespace"],
)
def test_field_selectors(tmp_path: Path, selector: str, expected: list[str]) -> None:
    async def body(registry: Registry) -> None:
        store = configmaps(registry)
        for name in "abc":
            await store.create("default", configmap(name), WriteParams())
        listed = await store.list("default", ListParams(field_selector=parse_field_selector(selector)))
        assert names(listed) == expected

    run(tmp_path, body)


@pytest.mark.parametrize(
    ("group", "resource", "selector", "label"),
    [
        ("", "configmaps", "spec.foo=bar", "spec.foo"),
        ("", "configmaps", "metadata.name=a,status.phase=Running", "status.phase"),
        ("", "namespaces", "metadata.namespace=x", "metadata.namespace"),
    ],
    ids=["unknown-field", "one-of-two", "namespace-of-cluster-scoped"],
)
def test_unsupported_field_selector_is_400(
    tmp_path: Path, group: str, resource: str, selector: str, label: str
) -> None:
    async def body(registry: Registry) -> None:
        store = registry.store(group, resource)
        err = await expect_status(store.list("", ListParams(field_selector=parse_field_selector(selector))))
        assert (err.code, err.reason, err.message) == (
            400,
            "BadRequest",
            f"field label not supported: {label}",
        )

    run(tmp_path, body)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            ListParams(limit=1, continue_token="%%%"),
            "invalid continue token: continue key is not valid: illegal base64 data at input byte 0",
        ),
        (
            ListParams(
                limit=1,
                continue_token="eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJhXHUwMDAwIn0",
                resource_version="5",
            ),
            "specifying resource version is not allowed when using continue",
        ),
    ],
    ids=["garbage-token", "token-with-resource-version"],
)
def test_bad_continue(tmp_path: Path, params: ListParams, message: str) -> None:
    async def body(registry: Registry) -> None:
        err = await expect_status(configmaps(registry).list("default", params))
        assert (err.code, err.reason, err.message) == (400, "BadRequest", message)

    run(tmp_path, body)
