"""The serviceaccounts controller and the root CA publisher on the shared informers: every active namespace
has a `default` ServiceAccount and the `kube-root-ca.crt` ConfigMap; a deleted one comes back, edited data is
put back, and a terminating namespace is not refilled. A real registry with every controller running, no
HTTP."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubelite.apimachinery.meta import Obj
from kubelite.controllers.rootcacert import DESCRIPTION
from kubelite.registry.builtin import Registry
from kubelite.registry.options import DeleteParams, WriteParams
from tests.unit.test_controller_informers import Reconciles, eventually, run, running_controllers, running_loops

CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
ROOT_CA = "kube-root-ca.crt"


async def create_namespace(registry: Registry, name: str) -> None:
    await registry.store("", "namespaces").create("", {"metadata": {"name": name}}, WriteParams())


def peek(registry: Registry, resource: str, namespace: str, name: str) -> Obj | None:
    return registry.store("", resource).peek(namespace, name)


async def defaults_present(registry: Registry, namespace: str) -> None:
    async def both() -> bool:
        return (
            peek(registry, "serviceaccounts", namespace, "default") is not None
            and peek(registry, "configmaps", namespace, ROOT_CA) is not None
        )

    await eventually(both)


async def both_had_their_chance(registry: Registry, reconciles: dict[str, Reconciles]) -> None:
    """The positive barrier before asserting that neither controller created what it should not: later events
    of each informer they read (a new namespace; the defaults of namespace `sentinel` deleted) have been acted
    on, and both controllers are idle, so every earlier event has been handled."""
    await create_namespace(registry, "later")
    await registry.store("", "serviceaccounts").delete("sentinel", "default", DeleteParams())
    await registry.store("", "configmaps").delete("sentinel", ROOT_CA, DeleteParams())

    async def restored() -> bool:
        return all(
            peek(registry, resource, namespace, name) is not None
            for resource, name in (("serviceaccounts", "default"), ("configmaps", ROOT_CA))
            for namespace in ("later", "sentinel")
        )

    await reconciles["serviceaccount"].settled_after(restored)
    await reconciles["root_ca_cert_publisher"].settled_after(restored)


def root_ca_content(configmap: Obj) -> tuple[Any, Any]:
    return configmap.get("data"), configmap["metadata"].get("annotations")


def test_an_active_namespace_gets_its_account_and_the_root_ca(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        async with running_controllers(registry, CA):
            await create_namespace(registry, "team")
            await defaults_present(registry, "team")
        account = peek(registry, "serviceaccounts", "team", "default")
        configmap = peek(registry, "configmaps", "team", ROOT_CA)
        assert account is not None and configmap is not None
        assert (account["kind"], account["metadata"]["namespace"], root_ca_content(configmap)) == (
            "ServiceAccount",
            "team",
            ({"ca.crt": CA}, {"kubernetes.io/description": DESCRIPTION}),
        )

    run(tmp_path, body)


@pytest.mark.parametrize(
    ("resource", "name"),
    [("serviceaccounts", "default"), ("configmaps", ROOT_CA)],
    ids=["default-serviceaccount", "root-ca-configmap"],
)
def test_a_deleted_default_comes_back(tmp_path: Path, resource: str, name: str) -> None:
    async def body(registry: Registry) -> None:
        async with running_controllers(registry, CA):
            await create_namespace(registry, "team")
            await defaults_present(registry, "team")
            first = peek(registry, resource, "team", name)
            assert first is not None
            await registry.store("", resource).delete("team", name, DeleteParams())

            async def recreated() -> bool:
                current = peek(registry, resource, "team", name)
                return current is not None and current["metadata"]["uid"] != first["metadata"]["uid"]

            await eventually(recreated)

    run(tmp_path, body)


Edit = Callable[[Obj], None]


def change_data(configmap: Obj) -> None:
    configmap["data"] = {"ca.crt": "forged"}


def add_data(configmap: Obj) -> None:
    configmap["data"] = {"ca.crt": CA, "extra": "x"}


def drop_description(configmap: Obj) -> None:
    configmap["metadata"]["annotations"] = {"owner": "me"}


def drop_data(configmap: Obj) -> None:
    configmap.pop("data", None)


@pytest.mark.parametrize(
    ("edit", "annotations"),
    [
        (change_data, {"kubernetes.io/description": DESCRIPTION}),
        (add_data, {"kubernetes.io/description": DESCRIPTION}),
        (drop_data, {"kubernetes.io/description": DESCRIPTION}),
        (drop_description, {"owner": "me", "kubernetes.io/description": DESCRIPTION}),
    ],
    ids=["changed-data", "added-key", "removed-data", "removed-description-keeps-other-annotations"],
)
def test_an_edited_root_ca_is_restored(tmp_path: Path, edit: Edit, annotations: dict[str, str]) -> None:
    async def body(registry: Registry) -> None:
        async with running_controllers(registry, CA):
            await create_namespace(registry, "team")
            await defaults_present(registry, "team")

            async def apply(current: Obj | None) -> Obj:
                assert current is not None
                edit(current)
                return current

            edited, _ = await registry.store("", "configmaps").update("team", ROOT_CA, apply, WriteParams())

            async def restored() -> bool:
                current = peek(registry, "configmaps", "team", ROOT_CA)
                assert current is not None
                return current["metadata"]["resourceVersion"] != edited["metadata"]["resourceVersion"]

            await eventually(restored)
        configmap = peek(registry, "configmaps", "team", ROOT_CA)
        assert configmap is not None
        assert root_ca_content(configmap) == ({"ca.crt": CA}, annotations)

    run(tmp_path, body)


def test_a_terminating_namespace_is_not_refilled(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        configmaps = registry.store("", "configmaps")
        async with running_loops(registry, CA) as (_, reconciles):
            await create_namespace(registry, "going")
            await create_namespace(registry, "sentinel")
            await defaults_present(registry, "going")
            await defaults_present(registry, "sentinel")
            # a finalizer on one object keeps the namespace terminating while the rest is deleted
            held = {"metadata": {"name": "held", "finalizers": ["example.com/hold"]}}
            await configmaps.create("going", held, WriteParams())
            await registry.store("", "namespaces").delete("", "going", DeleteParams())

            async def emptied() -> bool:
                return (
                    peek(registry, "serviceaccounts", "going", "default") is None
                    and peek(registry, "configmaps", "going", ROOT_CA) is None
                )

            await eventually(emptied)
            await both_had_their_chance(registry, reconciles)
            namespace = peek(registry, "namespaces", "", "going")
            assert namespace is not None
            assert (
                namespace["status"]["phase"],
                peek(registry, "serviceaccounts", "going", "default"),
                peek(registry, "configmaps", "going", ROOT_CA),
            ) == ("Terminating", None, None)

    run(tmp_path, body)
