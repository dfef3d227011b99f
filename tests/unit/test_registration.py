"""Resource registration and capabilities: the verbs the route installer serves and discovery lists are what each
path's storage implements, the built-in homes bind their printers, and a resource registered while the server
runs is installed and listed like a built-in one. Real Stores over SQLite and the watch cache, no HTTP."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import uvloop

from kubelite.admission import AdmissionChain
from kubelite.endpoints.api_resource import APIResource
from kubelite.endpoints.discovery import Discovery
from kubelite.endpoints.handlers import subresources
from kubelite.endpoints.installer import HandlerStorage, ResourceRoutes, ScopeOptions
from kubelite.registry import rest
from kubelite.registry.builtin import BUILTIN_REGISTRATIONS, Registry, build_registry
from kubelite.registry.catalog import BUILTIN_RESOURCES, GROUP_ORDER
from kubelite.registry.options import ListParams, WriteParams
from kubelite.registry.registration import stored
from kubelite.registry.spec import ResourceSpec, SubresourceSpec
from kubelite.registry.strategy import PlainStrategy
from kubelite.registry.tables import TABLES
from kubelite.storage.sqlite import SQLiteStorage

Body = Callable[[Registry], Awaitable[None]]
OPTIONS = ScopeOptions(AdmissionChain(mutating=[], validating=[]))
WIDGETS = ResourceSpec(
    "example.com",
    "v1",
    "widgets",
    "Widget",
    "widget",
    True,
    short_names=("wd",),
    subresources=(SubresourceSpec("status"),),
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


def _spec(group: str, resource: str) -> ResourceSpec:
    return next(s for s in BUILTIN_RESOURCES if (s.group, s.resource) == (group, resource))


def _install_all(registry: Registry) -> ResourceRoutes:
    routes = ResourceRoutes()
    for spec in BUILTIN_RESOURCES:
        key = (spec.group, spec.resource)
        if key in registry.stores:
            routes.install(spec, registry.stores[key], registry.subresources[key], OPTIONS)
        else:
            computed = HandlerStorage(spec, ("POST",), subresources.binding)
            routes.install(spec, computed, {}, OPTIONS, scope_store=registry.store("", "pods"))
    return routes


def test_verbs_come_from_what_each_storage_implements(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        routes = _install_all(registry)
        listed = {(r.group, r.resource): r for r in routes.api_resources()}
        namespaces = listed[("", "namespaces")]
        # a NamespaceStore is no CollectionDeleter: kube has no route deleting every namespace
        assert not isinstance(registry.store("", "namespaces"), rest.CollectionDeleter)
        assert namespaces.verbs == ("create", "delete", "get", "list", "patch", "update", "watch")
        assert [(s.name, s.verbs) for s in namespaces.subresources] == [
            ("finalize", ("update",)),
            ("status", ("get", "patch", "update")),
        ]
        pods = listed[("", "pods")]
        assert pods.verbs == ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
        assert [(s.name, s.kind, s.verbs) for s in pods.subresources] == [
            ("binding", "Binding", ("create",)),
            ("eviction", "Eviction", ("create",)),
            ("log", "Pod", ("get",)),
            ("status", "Pod", ("get", "patch", "update")),
        ]
        deployments = listed[("apps", "deployments")]
        assert [(s.name, s.group, s.version, s.kind) for s in deployments.subresources] == [
            ("scale", "autoscaling", "v1", "Scale"),
            ("status", "apps", "v1", "Deployment"),
        ]
        assert listed[("", "bindings")].verbs == ("create",)
        assert listed[("events.k8s.io", "events")].verbs == listed[("", "events")].verbs
        # what the capabilities say is what the catalog declares for OpenAPI, resource for resource
        assert list(listed.values()) == [APIResource.declared(spec) for spec in BUILTIN_RESOURCES]

    run(tmp_path, body)


def test_a_storage_that_serves_other_verbs_than_its_spec_declares_is_refused(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        spec = _spec("", "namespaces")
        with pytest.raises(ValueError, match=r"namespaces.core: the storage serves .* make them agree"):
            ResourceRoutes().install(
                spec, registry.store("", "configmaps"), registry.subresources[("", "namespaces")], OPTIONS
            )
        with pytest.raises(ValueError, match=r"pods/status has no storage"):
            ResourceRoutes().install(_spec("", "pods"), registry.store("", "pods"), {}, OPTIONS)

    run(tmp_path, body)


def test_each_home_binds_the_printer_of_its_resource(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        for key, storage in registry.stores.items():
            assert isinstance(storage, rest.TableConvertor), key
            assert storage.table_convertor().columns == TABLES[key].columns, key

    run(tmp_path, body)


def test_every_stored_builtin_resource_has_a_registration_in_its_home() -> None:
    stored_keys = {(s.group, s.resource) for s in BUILTIN_RESOURCES} - {
        ("", "bindings"),
        ("authentication.k8s.io", "selfsubjectreviews"),
        ("authorization.k8s.io", "localsubjectaccessreviews"),
        ("authorization.k8s.io", "selfsubjectaccessreviews"),
        ("authorization.k8s.io", "selfsubjectrulesreviews"),
        ("authorization.k8s.io", "subjectaccessreviews"),
    }
    assert set(BUILTIN_REGISTRATIONS) == stored_keys


def test_a_resource_registered_while_running_is_served_and_listed(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        routes = _install_all(registry)
        discovery = Discovery(routes.api_resources, GROUP_ORDER, "127.0.0.1:6443")
        assert "example.com" not in discovery.group_names
        built = await registry.register(WIDGETS, stored("example.com", "widgets", PlainStrategy))
        routes.install(WIDGETS, built.main, built.subresources, OPTIONS)
        assert discovery.group_names[-1] == "example.com"
        resources = discovery.resource_list("example.com", "v1")
        assert resources is not None
        assert [(r["name"], r["verbs"]) for r in resources["resources"]] == [
            ("widgets", ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]),
            ("widgets/status", ["get", "patch", "update"]),
        ]
        widgets = registry.store("example.com", "widgets")
        await widgets.create("default", {"metadata": {"name": "w1"}, "spec": {"size": 1}}, WriteParams())
        listed = await widgets.list("default", ListParams())
        assert [item["metadata"]["name"] for item in listed["items"]] == ["w1"]
        assert listed["kind"] == "WidgetList"
        assert widgets.prefix == "/registry/example.com/widgets/"

    run(tmp_path, body)


def test_a_registration_serves_only_its_own_resource(tmp_path: Path) -> None:
    async def body(registry: Registry) -> None:
        with pytest.raises(
            ValueError, match=re.escape("registration of leases.coordination.k8s.io cannot serve widgets.example.com")
        ):
            await registry.register(WIDGETS, BUILTIN_REGISTRATIONS[("coordination.k8s.io", "leases")])
        with pytest.raises(ValueError, match=re.escape("leases.coordination.k8s.io is registered already")):
            await registry.register(
                _spec("coordination.k8s.io", "leases"), BUILTIN_REGISTRATIONS[("coordination.k8s.io", "leases")]
            )

    run(tmp_path, body)


class _CountingStrategy(PlainStrategy):
    """Counts how often the Store defaults an object, and marks it, so mutate can see it ran first."""

    defaults = 0

    def default(self, obj: dict) -> None:  # type: ignore[type-arg]
        type(self).defaults += 1
        obj.setdefault("spec", {}).setdefault("size", 1)


def test_the_store_defaults_each_object_once_before_mutate(tmp_path: Path) -> None:
    seen: list[object] = []

    async def mutate(new: dict, old: dict | None) -> dict:  # type: ignore[type-arg]
        seen.append((new["spec"].get("size"), old is None))
        return new

    async def body(registry: Registry) -> None:
        _CountingStrategy.defaults = 0
        built = await registry.register(WIDGETS, stored("example.com", "widgets", _CountingStrategy))
        widgets = built.main
        await widgets.create("default", {"metadata": {"name": "w1"}}, WriteParams(), mutate=mutate)
        assert (_CountingStrategy.defaults, seen) == (1, [(1, True)])

        async def replace(current: dict | None) -> dict:  # type: ignore[type-arg]
            return {"metadata": {}, "spec": {}}

        await widgets.update("default", "w1", replace, WriteParams(), mutate=mutate)
        assert (_CountingStrategy.defaults, seen[-1]) == (2, (1, False))
        _, created = await widgets.update("default", "w2", replace, WriteParams(), mutate=mutate, allow_create=True)
        assert (created, _CountingStrategy.defaults, seen[-1]) == (True, 3, (1, True))
        # a status write takes the stored object's spec: the status strategy defaults nothing
        await built.subresources["status"].update("default", "w1", replace, WriteParams())
        assert _CountingStrategy.defaults == 3

    run(tmp_path, body)
