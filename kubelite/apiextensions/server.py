"""The APIExtensionServer's assembly: the CRD resource, the serving of custom resources, and its controllers
(kube's apiextensions-apiserver `New`, delegated to by the KubeAPIServer for the paths it does not serve).

The server registers the CRD resource with the rest of the registry, installs its routes with the built-in
ones, then serves every stored, established CRD before the ports open (`serve_stored`), so a restart serves
custom resources from its first request. Afterwards its controllers follow the CRDs.
"""

from __future__ import annotations

from kubelite.apiextensions import crd_validation, names
from kubelite.apiextensions import openapi as crd_openapi
from kubelite.apiextensions.controllers.finalizer import FinalizerController
from kubelite.apiextensions.controllers.naming import NamingController
from kubelite.apiextensions.controllers.serving import ServingController
from kubelite.apiextensions.conversion import converter_for
from kubelite.apiextensions.registry import customresourcedefinitions as crds
from kubelite.apiextensions.rules import version_rules
from kubelite.apiextensions.service_resolver import EndpointsResolver
from kubelite.apiextensions.serving import CustomResourceServing, OpenAPISink, ResourceListener
from kubelite.apiextensions.tableconvertor import table_for
from kubelite.apiextensions.validation import validate_crd_status
from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.schema.registry import SchemaRegistry
from kubelite.apimachinery.schema.registry import registry as schema_registry
from kubelite.client.clock import Clock
from kubelite.controllers.catalog import ControlLoop
from kubelite.controllers.informers import RegistryInformerFactory
from kubelite.endpoints.installer import ResourceRoutes, ScopeOptions
from kubelite.endpoints.openapi import OpenAPIBuilder
from kubelite.registry.options import ListParams
from kubelite.registry.registration import Registry
from kubelite.registry.tables.base import TableSpec


def _table(crd: Obj, version: str) -> TableSpec | None:
    return table_for(names.printer_columns(crd, version))


class OpenAPIDocuments(OpenAPISink):
    """The served OpenAPI documents, following what each CRD publishes (kube's openapi controller)."""

    def __init__(self, builder: OpenAPIBuilder) -> None:
        self.builder = builder
        self._published: dict[str, Obj] = {}

    def crd_served(self, crd: Obj) -> None:
        name = str(crd["metadata"]["name"])
        crd_openapi.sync(self.builder, self._published.get(name), crd)
        self._published[name] = crd

    def crd_removed(self, crd: Obj) -> None:
        name = str(crd["metadata"]["name"])
        crd_openapi.sync(self.builder, self._published.pop(name, crd), None)


class APIExtensionServer:
    def __init__(self, registry: Registry, *, schemas: SchemaRegistry | None = None) -> None:
        self.registry = registry
        self.schemas = schemas or schema_registry()
        self.serving: CustomResourceServing | None = None

    async def register(self) -> None:
        """Register the CRD resource's storage (before the routes are installed)."""
        await self.registry.register(
            crds.SPEC,
            crds.registration(crd_validation.validate, crd_validation.validate_update, validate_crd_status),
        )

    def install(self, routes: ResourceRoutes, options: ScopeOptions, openapi: OpenAPIBuilder | None = None) -> None:
        """Install the CRD resource's routes and OpenAPI, and take the routes and documents custom resources will
        be added to."""
        key = (crds.SPEC.group, crds.SPEC.resource)
        routes.install(crds.SPEC, self.registry.stores[key], self.registry.subresources[key], options)
        if openapi is not None:
            openapi.add_resource(crds.SPEC)
        resolver = EndpointsResolver(self.registry)
        self.serving = CustomResourceServing(
            self.registry,
            routes,
            options,
            self.schemas,
            rules=version_rules,
            table=_table,
            converter=lambda crd: converter_for(crd, resolver),
            openapi=OpenAPIDocuments(openapi) if openapi is not None else None,
        )

    async def serve_stored(self) -> None:
        """Serve every established CRD in storage (start-up)."""
        assert self.serving is not None
        store = self.registry.store(names.GROUP, "customresourcedefinitions")
        listed = await store.list("", ListParams())
        for crd in listed["items"]:
            await self.serving.sync(crd)

    def controllers(self, informers: RegistryInformerFactory, *, clock: Clock | None = None) -> list[ControlLoop]:
        assert self.serving is not None
        return [
            NamingController(self.registry, informers, clock=clock),
            ServingController(self.serving, informers, clock=clock),
            FinalizerController(self.registry, self.serving, informers, clock=clock),
        ]

    def follow_resources(self, *listeners: ResourceListener) -> None:
        """Tell `listeners` of every custom resource served or withdrawn from now on."""
        assert self.serving is not None
        self.serving.listeners.extend(listeners)

    async def close(self) -> None:
        if self.serving is not None:
            await self.serving.close()
