"""Assembly and lifecycle of a kubelite server: storage, registry, routes, controllers and the two ports."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import socket
from dataclasses import dataclass, field

from aiohttp import web
from aiohttp.abc import AbstractStreamWriter
from aiohttp.http_parser import RawRequestMessage
from aiohttp.streams import StreamReader
from aiohttp.web_protocol import RequestHandler

from kubelite.admission import AdmissionChain
from kubelite.admission.plugins.csr_requestor import CSRRequestor
from kubelite.admission.plugins.default_storage_class import DefaultStorageClass
from kubelite.admission.plugins.default_tolerations import DefaultTolerationSeconds
from kubelite.admission.plugins.namespace_lifecycle import NamespaceLifecycle
from kubelite.admission.plugins.priority import PriorityAdmission
from kubelite.admission.plugins.resource_quota import on_registry as resource_quota
from kubelite.admission.plugins.serviceaccount import ServiceAccountAdmission
from kubelite.apiextensions.server import APIExtensionServer
from kubelite.apimachinery import protobuf
from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.meta import Obj
from kubelite.auth.authn.tokens import TokenAuthenticator
from kubelite.auth.authn.x509 import X509Authenticator
from kubelite.auth.authz.always_allow import AlwaysAllow
from kubelite.auth.certs import PKI, ensure_pki, first_service_ip, write_kubeconfig
from kubelite.controllers.bootstrap import bootstrap
from kubelite.controllers.catalog import PROVISIONER_CONTROLLER
from kubelite.controllers.certificates.signer import CertificateAuthority
from kubelite.controllers.garbage_collector import GarbageCollector
from kubelite.controllers.informers import RegistryInformerFactory
from kubelite.controllers.manager import build_controllers, run_controllers
from kubelite.controllers.resourcequota import admission as quota
from kubelite.endpoints.discovery import Discovery
from kubelite.endpoints.filters import chain
from kubelite.endpoints.handlers import subresources
from kubelite.endpoints.handlers.reviews import make_review_handler
from kubelite.endpoints.installer import HandlerStorage, ResourceRoutes, ScopeOptions
from kubelite.endpoints.openapi import OpenAPIBuilder
from kubelite.registry.builtin import Registry, RegistryOptions, build_registry
from kubelite.registry.catalog import BUILTIN_RESOURCES, GROUP_ORDER
from kubelite.registry.options import ListParams
from kubelite.registry.store import Store
from kubelite.server import gc_tuning
from kubelite.server.cluster import SimulatedCluster, leader_identity
from kubelite.server.config import ServerConfig
from kubelite.server.connection import ConnectionServer
from kubelite.server.director import Director
from kubelite.server.healthz import HealthChecks
from kubelite.server.listener import ListenerSite, listen
from kubelite.server.metrics_api import install_metrics_api
from kubelite.server.nonresource import DiscoveryHandlers, OpenAPIHandlers
from kubelite.storage.cacher.bookmarks import send_bookmarks_every
from kubelite.storage.sqlite import SQLiteStorage

log = logging.getLogger(__name__)


@dataclass
class RunningServer:
    insecure_port: int | None = None
    secure_port: int | None = None
    kubeconfig: str | None = None
    runners: list[web.ServerRunner] = field(default_factory=list)
    sites: list[ListenerSite] = field(default_factory=list)


class APIServer:
    def __init__(self, config: ServerConfig) -> None:
        config.validate()
        self.config = config
        self.storage: SQLiteStorage | None = None
        self.registry: Registry | None = None
        self.extensions: APIExtensionServer
        self.running = RunningServer()
        self._tasks: set[asyncio.Task[None]] = set()
        self._ready = False
        self._advertised = ""
        self.authorizer = AlwaysAllow()
        #: the tokens of the components kubelite runs itself (controller manager, scheduler, kubelets)
        self.component_tokens = TokenAuthenticator()
        self._gc_tuner = gc_tuning.FreezeAfterFullCollection()

    async def start(self) -> RunningServer:
        cfg = self.config
        cfg.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.storage = await SQLiteStorage.open(cfg.data_dir, lock=True, check_timeout=cfg.store_check_timeout)
        if cfg.compaction_interval:
            self.storage.start_compaction(cfg.compaction_interval)
        # Loading the watch caches allocates every stored object at once; the cyclic collector would rescan
        # them again and again while they load (about 5x the load time with 100,000 objects). They live as
        # long as the server, so they are moved out of its sight afterwards.
        gc.disable()
        try:
            options = RegistryOptions(service_cluster_ip_range=cfg.service_cluster_ip_range)
            self.registry = registry = await build_registry(self.storage, options=options)
            self.extensions = APIExtensionServer(registry)
            await self.extensions.register()
        finally:
            gc.freeze()
            gc.enable()
        # and what the caches gain later is moved out of sight after each full collection
        self._gc_tuner.install()
        self._tasks.add(asyncio.create_task(gc_tuning.sweep_periodically(), name="gc sweep"))
        # the integrity check ran beside the caches' load; a damaged store is refused before a port opens
        await self.storage.verify()

        # sockets first: the secure port number goes into the kubeconfig and the `kubernetes` endpoints
        secure_sock = listen(cfg.bind_address, cfg.secure_port) if cfg.secure_port >= 0 else None
        insecure_sock = listen(cfg.insecure_bind_address, cfg.insecure_port) if cfg.insecure_port >= 0 else None
        secure_port = secure_sock.getsockname()[1] if secure_sock else 0
        advertise = cfg.bind_address if cfg.bind_address not in ("0.0.0.0", "::") else "127.0.0.1"

        pki: PKI = ensure_pki(
            cfg.cert_dir,
            hosts=["localhost", cfg.bind_address],
            ips=[first_service_ip(cfg.service_cluster_ip_range)],
        )
        service_ip = first_service_ip(cfg.service_cluster_ip_range)
        await bootstrap(
            registry,
            service_ip=service_ip,
            advertise_address=advertise,
            secure_port=secure_port or 6443,
            # kind's way: the default class comes with the provisioner that serves it
            default_storage_class=cfg.cluster.controller_selection().enabled(PROVISIONER_CONTROLLER),
        )
        self._tasks.add(asyncio.create_task(self._bookmark_loop()))

        self._advertised = f"{advertise}:{secure_port or 6443}"  # what /api tells clients to dial
        director = self._director(registry)
        # custom resources of stored CRDs are served from the first request, as the built-in ones
        await self.extensions.serve_stored()
        if insecure_sock is not None:
            server = self._web_server(director, chain.authenticate_insecure)
            self.running.insecure_port = await self._serve(server, insecure_sock, None)
        if secure_sock is not None:
            x509 = X509Authenticator(pki.ca_cert)
            authenticator = chain.secure_authenticator(x509.authenticate, self.component_tokens.authenticate)
            server = self._web_server(director, authenticator)
            self.running.secure_port = await self._serve(server, secure_sock, pki)
            host = "127.0.0.1" if cfg.bind_address in ("0.0.0.0", "::", "127.0.0.1") else cfg.bind_address
            kubeconfig = cfg.data_dir / "admin.kubeconfig"
            write_kubeconfig(kubeconfig, server_url=f"https://{host}:{self.running.secure_port}", pki=pki)
            self.running.kubeconfig = str(kubeconfig)
        self._ready = True
        # The controllers are kube-controller-manager's, whose start readiness does not wait for; their
        # informers' first sync (every pod, with 100,000 stored) would otherwise hold start-up up by seconds.
        # One informer per resource, shared by every controller (kube-controller-manager's informer factory).
        informers = RegistryInformerFactory(registry)
        selection = cfg.cluster.controller_selection()
        signing_ca = CertificateAuthority.from_pem(pki.ca_cert.read_bytes(), pki.ca_key.read_bytes())
        loops = build_controllers(
            registry, informers, root_ca=pki.ca_cert.read_text(), selection=selection, signing_ca=signing_ca
        )
        loops += self.extensions.controllers(informers)
        # the garbage collector follows the custom resources served from now on, as kube's rediscovers them
        self.extensions.follow_resources(*(loop for loop in loops if isinstance(loop, GarbageCollector)))
        controllers = run_controllers(registry, informers, root_ca=pki.ca_cert.read_text(), loops=loops)
        self._tasks.add(asyncio.create_task(controllers, name="controllers"))
        cluster = self._simulated_cluster(pki)
        if cluster is not None:
            self._tasks.add(asyncio.create_task(cluster.run(), name="simulated cluster"))
        # build the OpenAPI documents off the request path, so the first kubectl apply does not wait for them
        self._tasks.add(asyncio.create_task(asyncio.to_thread(self.openapi.warm)))
        self._tasks.add(asyncio.create_task(asyncio.to_thread(protobuf.warm_up)))
        return self.running

    def _simulated_cluster(self, pki: PKI) -> SimulatedCluster | None:
        """The components beside the API, on the secure port when it is on (where their users count)."""
        cfg = self.config
        if self.running.secure_port is not None:
            host = "127.0.0.1" if cfg.bind_address in ("0.0.0.0", "::", "127.0.0.1") else cfg.bind_address
            url, tokens = f"https://{host}:{self.running.secure_port}", self.component_tokens
        elif self.running.insecure_port is not None:
            url, tokens = f"http://{cfg.insecure_bind_address}:{self.running.insecure_port}", None
        else:
            log.warning("no port is open: the controller manager, the scheduler and the kubelets do not run")
            return None
        return SimulatedCluster(
            cfg.cluster,
            api_url=url,
            ca_pem=pki.ca_cert.read_bytes(),
            tokens=tokens,
            identity=leader_identity(cfg.data_dir),
        )

    async def _bookmark_loop(self) -> None:
        assert self.registry is not None
        await send_bookmarks_every(self.config.watch_bookmark_interval, self.registry.cachers, self.registry.clock)

    def _director(self, registry: Registry) -> Director:
        namespaces = registry.store("", "namespaces")
        accounts = registry.store("", "serviceaccounts")
        priority_classes = registry.store("scheduling.k8s.io", "priorityclasses")
        storage_classes = registry.store("storage.k8s.io", "storageclasses")

        async def get_namespace(name: str) -> Obj | None:
            return await _cached_or_stored(namespaces, "", name)

        async def get_service_account(namespace: str, name: str) -> Obj | None:
            return await _cached_or_stored(accounts, namespace, name)

        async def get_priority_class(name: str) -> Obj | None:
            return await _cached_or_stored(priority_classes, "", name)

        async def list_storage_classes() -> list[Obj]:
            listed = await storage_classes.list("", ListParams(resource_version="0"))
            return list(listed.get("items") or [])

        lifecycle = NamespaceLifecycle(get_namespace)
        priority = PriorityAdmission(get_priority_class, priority_classes.peek_all)
        # kube's default plugin order, for the plugins kubelite has
        admission = AdmissionChain(
            mutating=[
                CSRRequestor(),
                ServiceAccountAdmission(get_service_account),
                priority,
                DefaultTolerationSeconds(),
                DefaultStorageClass(list_storage_classes),
            ],
            # ResourceQuota comes last: it charges usage only for what every other plugin let through
            validating=[lifecycle, priority, resource_quota(registry, quota.handles, quota.check_request)],
        )
        routes = ResourceRoutes()
        options = ScopeOptions(
            admission,
            bookmark_interval=self.config.watch_bookmark_interval,
            min_request_timeout=self.config.min_request_timeout,
        )
        # computed resources have no storage of their own: their handler is all they are (bindings write pods)
        review = make_review_handler(self.authorizer)
        computed = {("", "bindings"): subresources.binding}
        for spec in BUILTIN_RESOURCES:
            key = (spec.group, spec.resource)
            storage = registry.stores.get(key)
            if storage is not None:
                routes.install(spec, storage, registry.subresources.get(key, {}), options)
            else:
                handler = HandlerStorage(spec, ("POST",), computed.get(key) or review)
                routes.install(spec, handler, {}, options, scope_store=registry.store("", "pods"))
        if self.config.cluster.nodes > 0:
            install_metrics_api(routes, registry, options)
        self.openapi = OpenAPIBuilder(BUILTIN_RESOURCES)
        self.extensions.install(routes, options, self.openapi)
        address = self._advertised
        discovery = DiscoveryHandlers(Discovery(routes.api_resources, GROUP_ORDER, address))
        openapi = OpenAPIHandlers(self.openapi)

        async def ready() -> bool:
            return self._ready

        async def ping() -> bool:
            return True

        health = HealthChecks({"ping": ping, "log": ping, "etcd": ping, "poststarthook/bootstrap-controller": ready})
        return Director(routes, discovery, openapi, health)

    def _web_server(self, director: Director, authenticator: chain.Authenticator) -> web.Server:
        """aiohttp's low-level server with the handler chain as its one handler: every path goes to the
        chain, so an Application's router and middleware machinery would only add work to each request."""
        handler = chain.build_handler(director, authenticator, self.authorizer)
        loop = asyncio.get_running_loop()

        def make_request(
            message: RawRequestMessage,
            payload: StreamReader,
            protocol: RequestHandler,
            writer: AbstractStreamWriter,
            task: asyncio.Task[None],
        ) -> web.Request:
            # bodies are bounded by the handlers, which answer 413 as kube does
            return web.Request(message, payload, protocol, writer, task, loop, client_max_size=1 << 40)

        return ConnectionServer(
            handler,
            request_factory=make_request,
            handler_cancellation=True,
            access_log=None,
            read_header_timeout=self.config.read_header_timeout,
            idle_timeout=self.config.idle_timeout,
        )

    async def _serve(self, server: web.Server, sock: socket.socket, pki: PKI | None) -> int:
        runner = web.ServerRunner(server, handle_signals=False, shutdown_timeout=1.0)
        await runner.setup()
        ssl_context = pki.server_ssl_context() if pki else None
        # Go bounds the TLS handshake by the read-header timeout too
        site = ListenerSite(runner, sock, ssl_context=ssl_context, handshake_timeout=self.config.read_header_timeout)
        await site.start()
        self.running.runners.append(runner)
        self.running.sites.append(site)
        return int(sock.getsockname()[1])

    async def stop(self) -> None:
        self._gc_tuner.uninstall()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for runner in self.running.runners:
            await runner.cleanup()
        extensions = getattr(self, "extensions", None)
        if extensions is not None:  # its webhook converters hold connections
            await extensions.close()
        if self.registry:
            for cacher in self.registry.cachers:
                await cacher.close()
        if self.storage:
            await self.storage.close()


async def _cached_or_stored(store: Store, namespace: str, name: str) -> Obj | None:
    """The object for an admission plugin to read (kube's read an informer's cache): the watch cache's own when
    it has every acknowledged write of that object, storage's otherwise, so a write that just happened is
    always seen. None when there is none."""
    try:
        return await store.get(namespace, name, shared=True)
    except StatusError as exc:
        if exc.code == 404:
            return None
        raise
