"""One client's side of the informer scenario, alone in its process so that its memory is its own.

    python -m bench.informer_client CLIENT URL [--namespace NS] [--events M --from-rv RV]

CLIENT is `kubelite` (a SharedIndexInformer for pods, as kubelite.client's users build one) or `official` (the
`kubernetes` package's CoreV1Api and `watch.Watch`, as its users write it: list the pods into a dict keyed by
namespace/name, then stream changes from the list's resourceVersion into the same dict).

Initial sync (no --events): every pod, all namespaces (or NS), from the server's current state.
kubelite.client streams it as a WatchList, its default (one watch request with sendInitialEvents, ended by a
bookmark; from SharedInformerFactory); the official client sends one list request without `limit`, which is
what `list_pod_for_all_namespaces()` does unless told otherwise. Both are one request the server answers from
its watch cache. The clock runs from the first request to the cache holding every pod: `has_synced` for the
informer (polled every 2 ms), the list's return and the dict filled for the official client.

Event throughput (--events M --from-rv RV): the state at RV is read exactly (`resourceVersionMatch=Exact`, not
timed), then the client watches from RV and the server replays the M updates made since from its watch-cache
window as fast as the client reads them. The clock runs from the first update decoded to the M-th applied
(kubelite: seen by an event handler, after the indexer), so the watch's set-up is left out; the process's CPU
is taken over the same span, and `events` counts the updates after the first.

Memory: `ru_maxrss` (the peak RSS) less the RSS once the library was imported and the client built, and the
RSS still held at the end over the same baseline. The cyclic collector's time is summed per phase
(gc.callbacks) to tell how much of the CPU it took. Prints `BENCHJSON {...}` as its last line.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import resource
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

POLL = 0.002
#: seconds to wait for the replayed updates before giving up (the parent notes a shortfall)
EVENTS_TIMEOUT = 300


def _rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


class Meter:
    """Wall clock, CPU, collector time and memory from the moment the client is built."""

    def __init__(self) -> None:
        self.gc_seconds = 0.0
        self._gc_started = 0.0
        gc.callbacks.append(self._on_gc)
        self.rss_before = _rss()
        self.marks: dict[str, tuple[float, float, float]] = {}
        self.mark("start")

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.process_time()
        else:
            self.gc_seconds += time.process_time() - self._gc_started

    def mark(self, name: str) -> None:
        self.marks[name] = (time.perf_counter(), time.process_time(), self.gc_seconds)

    def span(self, prefix: str, start: str, end: str) -> dict[str, float]:
        (wall0, cpu0, gc0), (wall1, cpu1, gc1) = self.marks[start], self.marks[end]
        return {f"{prefix}seconds": wall1 - wall0, f"{prefix}cpu": cpu1 - cpu0, f"{prefix}gc": gc1 - gc0}

    def memory(self) -> dict[str, int]:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        held = _rss() - self.rss_before
        return {"rss_before": self.rss_before, "peak_growth": peak - self.rss_before, "held_growth": held}


def _result(meter: Meter, count: int, applied: int) -> dict[str, Any]:
    """The event span runs from the first update decoded to the last applied: `events` counts those after
    the first, `events_total` all of them."""
    out: dict[str, Any] = {"count": count, **meter.span("sync_", "start", "synced")}
    if "last" in meter.marks:
        out.update({"events": applied - 1, "events_total": applied, **meter.span("events_", "first", "last")})
    return {**out, **meter.memory()}


# -- kubelite.client ---------------------------------------------------------------------------------------


async def _kubelite(args: argparse.Namespace) -> dict[str, Any]:
    from kubelite.client import Config, DynamicClient, RESTClient
    from kubelite.client.cache import ResourceEventHandlerFuncs
    from kubelite.client.cache.factory import SharedInformerFactory
    from kubelite.client.cache.listwatch import EXACT, ListOptions, ListWatch
    from kubelite.client.cache.shared_informer import SharedIndexInformer
    from kubelite.client.cache.wait import wait_for_cache_sync
    from kubelite.client.watch import Watch, WatchEvent

    rest = RESTClient(Config(host=args.url))
    client = DynamicClient(rest)
    seen = {"updates": 0}
    done = asyncio.Event()

    def updated(old: Any, new: Any) -> None:
        seen["updates"] += 1
        if seen["updates"] == args.events:
            meter.mark("last")
            done.set()

    factory: SharedInformerFactory | None = None
    if args.events:
        from_rv = args.from_rv

        class FirstEvent:
            """The watch as is, marking the clock when its first event has been decoded."""

            def __init__(self, inner: Watch) -> None:
                self.inner = inner

            def __aiter__(self) -> FirstEvent:
                return self

            async def __anext__(self) -> WatchEvent:
                event = await self.inner.__anext__()
                if "first" not in meter.marks:
                    meter.mark("first")
                return event

            async def close(self) -> None:
                await self.inner.close()

        class PinnedListWatch(ListWatch):
            """The first list reads the state at --from-rv exactly; the reflector then watches from there."""

            async def list(self, options: ListOptions) -> dict[str, Any]:
                if options.continue_token is None:
                    options = ListOptions(resource_version=from_rv, resource_version_match=EXACT)
                return await super().list(options)

            async def watch(self, options: ListOptions) -> Watch:
                return FirstEvent(await super().watch(options))

        pods = client.resource(("", "v1", "pods")).namespace(args.namespace)
        informer = SharedIndexInformer(PinnedListWatch(pods), name="pods", use_watch_list=False)
    else:
        factory = SharedInformerFactory(client, namespace=args.namespace)
        informer = factory.for_resource(("", "v1", "pods")).informer
    informer.add_event_handler(ResourceEventHandlerFuncs(update=updated))
    meter = Meter()
    if factory is not None:
        factory.start()
    else:
        informer.start()
    await wait_for_cache_sync(informer.has_synced, poll_interval=POLL)
    meter.mark("synced")
    count = len(informer.get_store().list_keys())
    if args.events:
        try:
            await asyncio.wait_for(done.wait(), EVENTS_TIMEOUT)
        except TimeoutError:
            pass  # the parent notes the shortfall
    result = _result(meter, count, seen["updates"])
    if factory is not None:
        await factory.shutdown()
    else:
        await informer.stop()
    await rest.close()
    return result


# -- the official client -----------------------------------------------------------------------------------


def _official(args: argparse.Namespace) -> dict[str, Any]:
    from kubernetes import client as k8s
    from kubernetes import watch

    configuration = k8s.Configuration()
    configuration.host = args.url
    api = k8s.CoreV1Api(k8s.ApiClient(configuration))
    exact = {"resource_version": args.from_rv, "resource_version_match": "Exact"} if args.events else {}
    cache: dict[str, Any] = {}

    def key(obj: Any) -> str:
        return f"{obj.metadata.namespace}/{obj.metadata.name}"

    # the API method itself, not a wrapper: watch.Watch finds the type to decode into from its docstring
    list_pods: Callable[..., Any] = api.list_pod_for_all_namespaces
    list_args: list[str] = []
    if args.namespace:
        list_pods, list_args = api.list_namespaced_pod, [args.namespace]
    meter = Meter()
    listed = list_pods(*list_args, **exact)
    for pod in listed.items:
        cache[key(pod)] = pod
    list_rv = listed.metadata.resource_version
    del listed
    meter.mark("synced")
    count = len(cache)
    applied = 0
    if args.events:
        stream = watch.Watch()
        options = {"resource_version": list_rv, "allow_watch_bookmarks": True}
        for event in stream.stream(list_pods, *list_args, timeout_seconds=EVENTS_TIMEOUT, **options):
            kind, obj = event["type"], event["object"]
            if kind in ("ADDED", "MODIFIED"):
                cache[key(obj)] = obj
            elif kind == "DELETED":
                cache.pop(key(obj), None)
            else:
                continue
            applied += 1
            if applied == 1:
                meter.mark("first")
            if applied >= args.events:
                meter.mark("last")
                stream.stop()
                break
    return _result(meter, count, applied)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.informer_client")
    parser.add_argument("client", choices=["kubelite", "official"])
    parser.add_argument("url")
    parser.add_argument("--namespace", default=None)
    parser.add_argument("--events", type=int, default=0)
    parser.add_argument("--from-rv", default="")
    args = parser.parse_args()
    result = asyncio.run(_kubelite(args)) if args.client == "kubelite" else _official(args)
    print("BENCHJSON " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
