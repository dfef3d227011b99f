"""A conversion webhook for the e2e tests, run as its own process: `python -m tests.e2e.webhooks.conversion_webhook
CERT KEY`. It converts `example.com` Shapes between v1 (`spec.size`) and v2 (`spec.dimensions.size`), answers
ConversionReview v1, and prints the port it listens on (HTTPS on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import ssl
import sys
from typing import Any

from aiohttp import web


def convert(obj: dict[str, Any], desired: str) -> dict[str, Any]:
    out = dict(obj, apiVersion=desired)
    spec = dict(obj.get("spec") or {})
    if desired.endswith("/v2") and "size" in spec:
        spec["dimensions"] = {"size": spec.pop("size")}
    elif desired.endswith("/v1") and "dimensions" in spec:
        spec["size"] = spec.pop("dimensions").get("size")
    out["spec"] = spec
    labels = dict((obj.get("metadata") or {}).get("labels") or {})
    labels["converted-by"] = "webhook"
    out["metadata"] = {**obj["metadata"], "labels": labels}
    return out


async def handle(request: web.Request) -> web.Response:
    review = await request.json()
    req = review["request"]
    if any((o.get("spec") or {}).get("refuse") for o in req["objects"]):
        result = {"status": "Failure", "message": "refusing to convert"}
        converted: list[Any] = []
    else:
        result = {"status": "Success"}
        converted = [convert(o, req["desiredAPIVersion"]) for o in req["objects"]]
    return web.json_response(
        {
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "ConversionReview",
            "response": {"uid": req["uid"], "result": result, "convertedObjects": converted},
        }
    )


async def main(cert: str, key: str) -> None:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    app = web.Application()
    app.router.add_post("/convert", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=ctx)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    print(port, flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
