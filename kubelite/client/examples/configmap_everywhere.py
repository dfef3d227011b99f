"""Example controller: keep one ConfigMap, with the given data, in every namespace.

    python -m kubelite.client.examples.configmap_everywhere --server http://127.0.0.1:8080 --name greeting \\
        --data hello=world

(or `--kubeconfig PATH`, or nothing: KUBECONFIG, ~/.kube/config or the in-cluster config). New namespaces get
the ConfigMap, a deleted one comes back, an edited one is put back; terminating namespaces are left alone.

It shows the pattern every controller follows: shared informers for what it reads (namespaces, and the
ConfigMaps of that name), events mapped to keys (a ConfigMap's change enqueues its namespace), and a
level-triggered reconcile that reads listers and writes only the difference.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
from typing import Any

from kubelite.client import AlreadyExists, Config, Conflict, DynamicClient, NotFound, RESTClient, load_config
from kubelite.client.cache import SharedInformerFactory
from kubelite.client.controller import Controller

log = logging.getLogger("configmap-everywhere")

NAMESPACES = ("", "v1", "namespaces")
CONFIGMAPS = ("", "v1", "configmaps")
MANAGER = "configmap-everywhere"


async def run(config: Config, name: str, data: dict[str, str], *, workers: int = 2) -> None:
    async with RESTClient(config) as rest:
        client = DynamicClient(rest)
        namespaces = SharedInformerFactory(client).for_resource(NAMESPACES, namespaced=False)
        configmaps = SharedInformerFactory(client, field_selector=f"metadata.name={name}").for_resource(
            CONFIGMAPS
        )
        writer = client.resource(CONFIGMAPS)

        async def reconcile(namespace: str) -> None:
            try:
                ns = namespaces.lister.get(namespace)
            except NotFound:
                return
            if ns["metadata"].get("deletionTimestamp"):
                return
            try:
                current: dict[str, Any] | None = configmaps.lister.namespace(namespace).get(name)
            except NotFound:
                current = None
            if current is None:
                body = {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": name, "namespace": namespace},
                }
                try:
                    await writer.namespace(namespace).create({**body, "data": data}, field_manager=MANAGER)
                    log.info("created %s/%s", namespace, name)
                except AlreadyExists:
                    pass  # the cache is behind; the informer's event will bring us back
            elif (current.get("data") or {}) != data:
                desired = {**current, "data": data}
                try:
                    await writer.namespace(namespace).update(desired, field_manager=MANAGER)
                    log.info("restored %s/%s", namespace, name)
                except Conflict:
                    pass  # changed meanwhile: its event re-queues the namespace

        controller = Controller(MANAGER, reconcile, workers=workers)
        controller.watch(namespaces.informer, keys=lambda ns: [ns["metadata"]["name"]])
        controller.watch(configmaps.informer, keys=lambda cm: [cm["metadata"]["namespace"]])
        tasks = [namespaces.informer.start(), configmaps.informer.start()]
        try:
            await controller.run()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", help="API server URL (plain HTTP or insecure); else the kubeconfig")
    parser.add_argument(
        "--kubeconfig", help="kubeconfig file (default: KUBECONFIG, ~/.kube/config, in-cluster)"
    )
    parser.add_argument("--name", default="kubelite-example", help="name of the ConfigMap")
    parser.add_argument("--data", action="append", default=[], help="key=value (repeatable)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    data = dict(item.split("=", 1) for item in args.data)
    config = Config(host=args.server) if args.server else load_config(args.kubeconfig)

    async def until_signalled() -> None:
        task = asyncio.create_task(run(config, args.name, data))
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, task.cancel)
        try:
            await task
        except asyncio.CancelledError:
            pass

    asyncio.run(until_signalled())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
