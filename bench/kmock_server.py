"""The peer: kmock's KubernetesEmulator (PyPI `kmock`) served on a free loopback port.

Runs under an interpreter that has kmock installed (its own virtualenv: see bench/prepare.sh), so it imports
nothing from this repository. Prints `port N` and `ready`, serves until SIGTERM.

`python kmock_server.py [PRELOAD]`: PRELOAD is a JSON file of [resource, namespace, object] entries (resource as
`v1/pods`) put into the emulator's store through its documented `objects[...] = ...` before serving. Seeding
over HTTP would take minutes: each kmock request scans every stored object and every earlier request.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys

import kmock


async def _serve() -> None:
    async with kmock.KubernetesEmulator() as emulator, kmock.Server(emulator, host="127.0.0.1", port=0) as server:
        if len(sys.argv) > 1:
            with open(sys.argv[1]) as f:
                for resource, namespace, obj in json.load(f):
                    emulator.objects[resource, namespace, obj["metadata"]["name"]] = obj
        print(f"port {server.port}", flush=True)
        print("ready", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()


if __name__ == "__main__":
    asyncio.run(_serve())
