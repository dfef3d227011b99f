"""Custom resource conversion against a real HTTPS conversion webhook on loopback.

The webhook is an aiohttp server with a serving certificate issued by a CA made for the test; each test
sets how it answers and reads back the reviews it received. Messages are kube's (pkg/apiserver/conversion,
client-go's rest client) and are asserted whole.
"""

from __future__ import annotations

import asyncio
import base64
import datetime
import json
import socket
import ssl
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
import uvloop
from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from kubelite.apiextensions.conversion import conversion_settings, converter_for
from kubelite.apimachinery.errors import StatusError
from kubelite.auth.certs import ADMIN_USER, PKI, ensure_pki

GROUP = "stable.example.com"
V1 = f"{GROUP}/v1"
V2 = f"{GROUP}/v2"
SERVICE_NAME, SERVICE_NAMESPACE = "conv", "webhooks"

Answer = Callable[[dict[str, Any]], Awaitable[web.StreamResponse]]


def run(body: Callable[[], Awaitable[None]]) -> None:
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(asyncio.wait_for(body(), 20))


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> PKI:
    return ensure_pki(tmp_path_factory.mktemp("pki"), hosts=[f"{SERVICE_NAME}.{SERVICE_NAMESPACE}.svc"], ips=[])


@pytest.fixture(scope="module")
def other_ca() -> bytes:
    """A CA that signed nothing here, under another name (Go would otherwise hint at the namesake it tried)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "other-ca")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.PEM)


def ca_bundle(pki: PKI) -> str:
    return base64.b64encode(pki.ca_cert.read_bytes()).decode()


def _convert_spec(obj: dict[str, Any], desired: str) -> dict[str, Any]:
    """The test webhook's conversion: v1 spec.cronSpec is v2 spec.schedule."""
    out = json.loads(json.dumps(obj))
    spec = out.setdefault("spec", {})
    if desired == V2 and "cronSpec" in spec:
        spec["schedule"] = spec.pop("cronSpec")
    if desired == V1 and "schedule" in spec:
        spec["cronSpec"] = spec.pop("schedule")
    out["apiVersion"] = desired
    return out


def converted_review(review: dict[str, Any], **response: Any) -> dict[str, Any]:
    request = review["request"]
    body = {
        "uid": request["uid"],
        "result": {"status": "Success"},
        "convertedObjects": [_convert_spec(o, request["desiredAPIVersion"]) for o in request["objects"]],
    }
    body.update(response)
    return {"apiVersion": review["apiVersion"], "kind": "ConversionReview", "response": body}


async def converting(review: dict[str, Any]) -> web.StreamResponse:
    return web.json_response(converted_review(review))


@dataclass
class Webhook:
    port: int
    answer: Answer = converting
    reviews: list[dict[str, Any]] = field(default_factory=list)
    requests: list[web.Request] = field(default_factory=list)
    peers: list[Any] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}/convert"


@asynccontextmanager
async def webhook_server(pki: PKI, *, tls: bool = True, client_certs: bool = False) -> AsyncIterator[Webhook]:
    hook = Webhook(port=0)

    async def handle(request: web.Request) -> web.StreamResponse:
        hook.requests.append(request)
        hook.peers.append(request.transport.get_extra_info("peername") if request.transport else None)
        review = json.loads(await request.read())
        hook.reviews.append(review)
        return await hook.answer(review)

    app = web.Application()
    app.router.add_post("/convert", handle)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.1)
    await runner.setup()
    server_tls: ssl.SSLContext | None = None
    if tls:
        server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        server_tls.load_cert_chain(pki.apiserver_cert, pki.apiserver_key)
        if client_certs:
            server_tls.load_verify_locations(cafile=pki.ca_cert)
            server_tls.verify_mode = ssl.CERT_REQUIRED
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=server_tls)
    await site.start()
    hook.port = runner.addresses[0][1]
    try:
        yield hook
    finally:
        await runner.cleanup()


def crd(client_config: dict[str, Any], review_versions: list[str] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"crontabs.{GROUP}"},
        "spec": {
            "group": GROUP,
            "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab", "listKind": "CronTabList"},
            "scope": "Namespaced",
            "versions": [
                {"name": "v1", "served": True, "storage": True},
                {"name": "v2", "served": True, "storage": False},
            ],
            "conversion": {
                "strategy": "Webhook",
                "webhook": {
                    "clientConfig": client_config,
                    "conversionReviewVersions": review_versions or ["v1", "v1beta1"],
                },
            },
        },
    }


def crontab(name: str, api_version: str = V1, **metadata: Any) -> dict[str, Any]:
    spec = {"cronSpec": "* * * * */5"} if api_version == V1 else {"schedule": "* * * * */5"}
    return {
        "apiVersion": api_version,
        "kind": "CronTab",
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": f"uid-{name}",
            "resourceVersion": "7",
            "generation": 1,
            **metadata,
        },
        "spec": spec,
    }


async def no_service(namespace: str, name: str, port: int) -> tuple[str, int]:
    raise AssertionError(f"no Service expected, asked for {namespace}/{name}:{port}")


def url_config(hook: Webhook, pki: PKI) -> dict[str, Any]:
    return {"url": hook.url, "caBundle": ca_bundle(pki)}


async def failure(converter: Any, objects: list[dict[str, Any]], to: str = V2) -> StatusError:
    with pytest.raises(StatusError) as caught:
        await converter.convert(objects, to)
    return caught.value


def assert_conversion_failed(error: StatusError, message: str) -> None:
    assert (error.code, error.reason, error.message) == (500, "", message)
    assert error.to_status()["status"] == "Failure"


# -- successful reviews ----------------------------------------------------------------------------------


def test_v1_review_sends_only_what_needs_converting_and_keeps_the_order(pki: PKI) -> None:
    async def body() -> None:
        async with webhook_server(pki) as hook:
            converter = converter_for(crd(url_config(hook, pki)), no_service)
            already = crontab("b", V2)
            objects = [crontab("a"), already, crontab("c")]
            out = await converter.convert(objects, V2)
            await converter.close()

            assert [o["metadata"]["name"] for o in out] == ["a", "b", "c"]
            assert out[1] is already
            assert out[0]["apiVersion"] == V2 and out[0]["spec"] == {"schedule": "* * * * */5"}
            assert out[0]["metadata"] == objects[0]["metadata"]

            assert len(hook.reviews) == 1
            review = hook.reviews[0]
            assert list(review) == ["kind", "apiVersion", "request", "response"]
            assert (review["apiVersion"], review["kind"]) == ("apiextensions.k8s.io/v1", "ConversionReview")
            request = review["request"]
            assert uuid.UUID(request["uid"]).version == 4
            assert request["desiredAPIVersion"] == V2
            assert request["objects"] == [objects[0], objects[2]]
            assert review["response"] == {"uid": "", "convertedObjects": None, "result": {"metadata": {}}}
            sent = hook.requests[0]
            assert sent.path == "/convert" and sent.query_string == "timeout=30s"
            assert sent.headers["Content-Type"] == "application/json"

    run(body)


def test_v1beta1_review_when_only_v1beta1_is_accepted(pki: PKI) -> None:
    async def body() -> None:
        async with webhook_server(pki) as hook:

            async def answer(review: dict[str, Any]) -> web.StreamResponse:
                # v1beta1 answers are not checked for their uid, as kube never checked them
                return web.json_response(converted_review(review, uid="not-the-request-uid"))

            hook.answer = answer
            converter = converter_for(crd(url_config(hook, pki), ["v1beta1"]), no_service)
            out = await converter.convert([crontab("a")], V2)
            await converter.close()
            assert hook.reviews[0]["apiVersion"] == "apiextensions.k8s.io/v1beta1"
            assert out[0]["apiVersion"] == V2 and out[0]["spec"] == {"schedule": "* * * * */5"}

    run(body)


def test_first_supported_review_version_wins(pki: PKI) -> None:
    async def body() -> None:
        async with webhook_server(pki) as hook:
            converter = converter_for(crd(url_config(hook, pki), ["v2", "v1beta1", "v1"]), no_service)
            await converter.convert([crontab("a")], V2)
            await converter.close()
            assert hook.reviews[0]["apiVersion"] == "apiextensions.k8s.io/v1beta1"

            none_known = converter_for(crd(url_config(hook, pki), ["v7"]), no_service)
            assert_conversion_failed(
                await failure(none_known, [crontab("a")]), "no supported conversion review versions"
            )
            await none_known.close()

    run(body)


def test_service_reference_dials_the_resolved_address_and_verifies_the_service_name(pki: PKI) -> None:
    async def body() -> None:
        async with webhook_server(pki) as hook:
            asked: list[tuple[str, str, int]] = []

            async def resolve(namespace: str, name: str, port: int) -> tuple[str, int]:
                asked.append((namespace, name, port))
                return "127.0.0.1", hook.port

            service = {"namespace": SERVICE_NAMESPACE, "name": SERVICE_NAME, "path": "/convert/", "port": 443}
            converter = converter_for(crd({"service": service, "caBundle": ca_bundle(pki)}), resolve)
            out = await converter.convert([crontab("a")], V2)
            assert out[0]["apiVersion"] == V2
            assert asked == [(SERVICE_NAMESPACE, SERVICE_NAME, 443)]
            assert hook.requests[0].host == "conv.webhooks.svc:443"
            assert hook.requests[0].path == "/convert"
            await converter.close()

            # the certificate names conv.webhooks.svc: another Service at the same address is not trusted
            other = {**service, "name": "other"}
            converter = converter_for(crd({"service": other, "caBundle": ca_bundle(pki)}), resolve)
            assert_conversion_failed(
                await failure(converter, [crontab("a")]),
                "conversion webhook for stable.example.com/v1, Kind=CronTab failed: "
                'Post "https://other.webhooks.svc:443/convert?timeout=30s": tls: failed to verify certificate: '
                "x509: certificate is valid for localhost, kubernetes, kubernetes.default, kubernetes.default.svc, "
                "kubernetes.default.svc.cluster.local, conv.webhooks.svc, not other.webhooks.svc",
            )
            await converter.close()

    run(body)


def test_service_resolver_failure_is_the_post_failure(pki: PKI) -> None:
    async def resolve(namespace: str, name: str, port: int) -> tuple[str, int]:
        raise StatusError(404, "NotFound", f'services "{name}" not found')

    async def body() -> None:
        service = {"namespace": SERVICE_NAMESPACE, "name": SERVICE_NAME, "port": 8443}
        converter = converter_for(crd({"service": service, "caBundle": ca_bundle(pki)}), resolve)
        assert_conversion_failed(
            await failure(converter, [crontab("a")]),
            "conversion webhook for stable.example.com/v1, Kind=CronTab failed: "
            'Post "https://conv.webhooks.svc:8443/?timeout=30s": services "conv" not found',
        )
        await converter.close()

    run(body)


def test_connections_are_reused_until_close(pki: PKI) -> None:
    async def body() -> None:
        async with webhook_server(pki) as hook:
            converter = converter_for(crd(url_config(hook, pki)), no_service)
            await converter.convert([crontab("a")], V2)
            await converter.convert([crontab("b")], V2)
            assert hook.peers[0] == hook.peers[1]
            await converter.close()
            await converter.convert([crontab("c")], V2)
            assert hook.peers[2] != hook.peers[0]
            await converter.close()

    run(body)


# -- answers refused ---------------------------------------------------------------------------------------


def answering(payload: Callable[[dict[str, Any]], Any]) -> Answer:
    async def answer(review: dict[str, Any]) -> web.StreamResponse:
        return web.json_response(payload(review))

    return answer


def test_uid_mismatch(pki: PKI) -> None:
    async def body() -> None:
        async with webhook_server(pki) as hook:
            hook.answer = answering(lambda review: converted_review(review, uid="wrong"))
            converter = converter_for(crd(url_config(hook, pki)), no_service)
            error = await failure(converter, [crontab("a")])
            await converter.close()
            sent = hook.reviews[0]["request"]["uid"]
            assert_conversion_failed(
                error,
                f'conversion webhook for stable.example.com/v1, Kind=CronTab failed: expected response.uid="{sent}", '
                'got "wrong"',
            )

    run(body)


def test_failed_result_reports_its_message(pki: PKI) -> None:
    async def body() -> None:
        async with webhook_server(pki) as hook:
            converter = converter_for(crd(url_config(hook, pki)), no_service)
            hook.answer = answering(
                lambda review: converted_review(review, result={"status": "Failure", "message": "spec is unreadable"})
            )
            assert_conversion_failed(
                await failure(converter, [crontab("a")]),
                "conversion webhook for stable.example.com/v1, Kind=CronTab failed: spec is unreadable",
            )
            hook.answer = answering(lambda review: converted_review(review, result={"status": "Failure"}))
            assert_conversion_failed(
                await failure(converter, [crontab("a")]),
                "conversion webhook for stable.example.com/v1, Kind=CronTab failed: "
                "response.result.status was 'Failure', not 'Success'",
            )
            await converter.close()

    run(body)


def test_wrong_count(pki: PKI) -> None:
    async def body() -> None:
        async with webhook_server(pki) as hook:
            hook.answer = answering(
                lambda review: converted_review(
                    review, convertedObjects=[_convert_spec(review["request"]["objects"][0], V2)]
                )
            )
            converter = converter_for(crd(url_config(hook, pki)), no_service)
            assert_conversion_failed(
                await failure(converter, [crontab("a"), crontab("b")]),
                "conversion webhook for stable.example.com/v1, Kind=CronTabList returned 1 objects, expected 2",
            )
            await converter.close()

    run(body)


def renaming(review: dict[str, Any]) -> dict[str, Any]:
    answer = converted_review(review)
    answer["response"]["convertedObjects"][-1]["metadata"]["name"] = "renamed"
    return answer


def test_changed_name_is_refused(pki: PKI) -> None:
    async def body() -> None:
        async with webhook_server(pki) as hook:
            hook.answer = answering(renaming)
            converter = converter_for(crd(url_config(hook, pki)), no_service)
            assert_conversion_failed(
                await failure(converter, [crontab("a")]),
                "conversion webhook for stable.example.com/v1, Kind=CronTab returned invalid object: "
                "must have the same name: a != renamed",
            )
            assert_conversion_failed(
                await failure(converter, [crontab("a"), crontab("b")]),
                "conversion webhook for stable.example.com/v1, Kind=CronTabList returned invalid converted object "
                "at index 1: must have the same name: b != renamed",
            )
            await converter.close()

    run(body)


def test_wrong_version_or_kind_is_refused(pki: PKI) -> None:
    async def body() -> None:
        async with webhook_server(pki) as hook:
            converter = converter_for(crd(url_config(hook, pki)), no_service)

            def unconverted(review: dict[str, Any]) -> dict[str, Any]:
                return converted_review(review, convertedObjects=review["request"]["objects"])

            hook.answer = answering(unconverted)
            assert_conversion_failed(
                await failure(converter, [crontab("a")]),
                "conversion webhook for stable.example.com/v1, Kind=CronTab returned invalid object at index 0: "
                "invalid groupVersion (expected stable.example.com/v2, received stable.example.com/v1)",
            )

            def other_kind(review: dict[str, Any]) -> dict[str, Any]:
                answer = converted_review(review)
                answer["response"]["convertedObjects"][0]["kind"] = "AtTab"
                return answer

            hook.answer = answering(other_kind)
            assert_conversion_failed(
                await failure(converter, [crontab("a"), crontab("b")]),
                "conversion webhook for stable.example.com/v1, Kind=CronTabList returned invalid converted object "
                "at index 0: invalid kind (expected CronTab, received AtTab)",
            )
            await converter.close()

    run(body)


def test_changed_labels_and_annotations_are_kept_and_other_metadata_restored(pki: PKI) -> None:
    async def body() -> None:
        async with webhook_server(pki) as hook:

            def relabeling(review: dict[str, Any]) -> dict[str, Any]:
                answer = converted_review(review)
                meta = answer["response"]["convertedObjects"][0]["metadata"]
                meta["labels"] = {"tier": "gold"}
                meta["annotations"] = {"converted-by": "webhook"}
                meta["resourceVersion"] = "999"
                meta["finalizers"] = ["sneaky"]
                del meta["generation"]
                return answer

            hook.answer = answering(relabeling)
            converter = converter_for(crd(url_config(hook, pki)), no_service)
            original = crontab("a", labels={"tier": "bronze", "app": "cron"})
            [out] = await converter.convert([original], V2)
            assert out["metadata"] == {
                "name": "a",
                "namespace": "default",
                "uid": "uid-a",
                "resourceVersion": "7",
                "generation": 1,
                "labels": {"tier": "gold"},
                "annotations": {"converted-by": "webhook"},
            }
            assert original["metadata"]["labels"] == {"tier": "bronze", "app": "cron"}

            def dropping_labels(review: dict[str, Any]) -> dict[str, Any]:
                answer = converted_review(review)
                del answer["response"]["convertedObjects"][0]["metadata"]["labels"]
                return answer

            hook.answer = answering(dropping_labels)
            [out] = await converter.convert([original], V2)
            assert "labels" not in out["metadata"]
            await converter.close()

    run(body)


def test_invalid_metadata_is_refused(pki: PKI) -> None:
    async def body() -> None:
        async with webhook_server(pki) as hook:
            converter = converter_for(crd(url_config(hook, pki)), no_service)

            def with_metadata(**changes: Any) -> Answer:
                def payload(review: dict[str, Any]) -> dict[str, Any]:
                    answer = converted_review(review)
                    answer["response"]["convertedObjects"][0]["metadata"].update(changes)
                    return answer

                return answering(payload)

            hook.answer = with_metadata(labels={"tier": "bad value!"})
            assert_conversion_failed(
                await failure(converter, [crontab("a")]),
                "conversion webhook for stable.example.com/v1, Kind=CronTab returned invalid metadata: "
                'metadata.labels: Invalid value: "bad value!": a valid label must be an empty string or consist of '
                "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
                "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
                "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
            )
            hook.answer = with_metadata(annotations={"n": 5})
            assert_conversion_failed(
                await failure(converter, [crontab("a")]),
                "conversion webhook for stable.example.com/v1, Kind=CronTab returned invalid metadata: "
                "metadata.annotations[n] must be a string, but is int64 in converted object",
            )

            def without_metadata(review: dict[str, Any]) -> dict[str, Any]:
                answer = converted_review(review)
                del answer["response"]["convertedObjects"][1]["metadata"]
                return answer

            hook.answer = answering(without_metadata)
            assert_conversion_failed(
                await failure(converter, [crontab("a"), crontab("b")]),
                "conversion webhook for stable.example.com/v1, Kind=CronTabList returned invalid converted object "
                "at index 1: must have the same name: b != ",
            )
            await converter.close()

    run(body)


# -- the call failing -------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_webhook_down(pki: PKI) -> None:
    async def body() -> None:
        port = free_port()
        url = f"https://127.0.0.1:{port}/convert"
        converter = converter_for(crd({"url": url, "caBundle": ca_bundle(pki)}), no_service)
        assert_conversion_failed(
            await failure(converter, [crontab("a")]),
            "conversion webhook for stable.example.com/v1, Kind=CronTab failed: "
            f'Post "{url}?timeout=30s": dial tcp 127.0.0.1:{port}: connect: connection refused',
        )
        await converter.close()

    run(body)


def test_timeout(pki: PKI) -> None:
    async def body() -> None:
        async with webhook_server(pki) as hook:

            async def slow(review: dict[str, Any]) -> web.StreamResponse:
                await asyncio.sleep(5)
                return await converting(review)

            hook.answer = slow
            converter = converter_for(crd(url_config(hook, pki)), no_service, timeout=0.3)
            started = time.monotonic()
            error = await failure(converter, [crontab("a")])
            assert time.monotonic() - started < 3
            assert_conversion_failed(
                error,
                "conversion webhook for stable.example.com/v1, Kind=CronTab failed: "
                f'Post "{hook.url}?timeout=300ms": context deadline exceeded',
            )
            assert hook.requests[0].query_string == "timeout=300ms"
            await converter.close()

    run(body)


def test_tls_with_a_wrong_ca(pki: PKI, other_ca: bytes) -> None:
    async def body() -> None:
        async with webhook_server(pki) as hook:
            bundle = base64.b64encode(other_ca).decode()
            converter = converter_for(crd({"url": hook.url, "caBundle": bundle}), no_service)
            assert_conversion_failed(
                await failure(converter, [crontab("a")]),
                "conversion webhook for stable.example.com/v1, Kind=CronTab failed: "
                f'Post "{hook.url}?timeout=30s": tls: failed to verify certificate: '
                "x509: certificate signed by unknown authority",
            )
            await converter.close()
            assert hook.reviews == []

    run(body)


def test_error_answers(pki: PKI) -> None:
    async def body() -> None:
        async with webhook_server(pki) as hook:
            converter = converter_for(crd(url_config(hook, pki)), no_service)
            prefix = "conversion webhook for stable.example.com/v1, Kind=CronTab failed: "
            cases: list[tuple[web.StreamResponse, str]] = [
                (
                    web.Response(status=500, text="boom\n"),
                    'an error on the server ("boom") has prevented the request from succeeding',
                ),
                (
                    web.json_response({"error": "x"}, status=502),
                    'an error on the server ("unknown") has prevented the request from succeeding',
                ),
                (web.json_response({}, status=404), "the server could not find the requested resource"),
                (
                    web.json_response(
                        {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": "go away", "code": 403},
                        status=403,
                    ),
                    "go away",
                ),
                (web.Response(status=200, content_type="application/json"), ""),
                (web.Response(status=200, text="not json", content_type="application/json"), ""),
                (web.Response(status=200, text='{"kind":', content_type="application/json"), ""),
            ]
            expected = [
                *(message for _, message in cases[:4]),
                "0-length response with status code: 200 and content type: application/json",
                "couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type "
                'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; '
                'Kind string "json:\\"kind,omitempty\\"" }',
                "couldn't get version/kind; json parse error: unexpected end of JSON input",
            ]
            for (response, _), message in zip(cases, expected, strict=True):

                async def answer(review: dict[str, Any], response: web.StreamResponse = response) -> web.StreamResponse:
                    return response

                hook.answer = answer
                assert_conversion_failed(await failure(converter, [crontab("a")]), prefix + message)

            hook.answer = answering(lambda review: {"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1"})
            assert_conversion_failed(
                await failure(converter, [crontab("a")]),
                prefix + "expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, "
                "got admission.k8s.io/v1, Kind=AdmissionReview",
            )
            hook.answer = answering(lambda review: {"kind": "ConversionReview", "apiVersion": review["apiVersion"]})
            assert_conversion_failed(await failure(converter, [crontab("a")]), prefix + "no response provided")
            await converter.close()

    run(body)


def test_response_size_is_bounded(pki: PKI) -> None:
    async def body() -> None:
        async with webhook_server(pki) as hook:
            hook.answer = answering(
                lambda review: converted_review(review, padding="x" * 20_000)  # an unknown field, only size matters
            )
            converter = converter_for(crd(url_config(hook, pki)), no_service, max_response_bytes=10_000)
            assert_conversion_failed(
                await failure(converter, [crontab("a")]),
                "conversion webhook for stable.example.com/v1, Kind=CronTab failed: "
                "the response body of the webhook exceeds the limit of 10000 bytes",
            )
            await converter.close()

    run(body)


def test_unusable_client_config_answers_as_an_unresolvable_resource(pki: PKI) -> None:
    async def body() -> None:
        for client_config in ({}, {"url": "https://127.0.0.1:1/x", "caBundle": base64.b64encode(b"junk").decode()}):
            converter = converter_for(crd(client_config), no_service)
            assert converter.setup_error is not None
            error = await failure(converter, [crontab("a")])
            assert (error.code, error.reason, error.message) == (
                500,
                "InternalError",
                "Internal error occurred: error resolving resource",
            )
            await converter.close()

    run(body)


# -- no webhook needed ---------------------------------------------------------------------------------------


def test_no_call_when_nothing_needs_converting(pki: PKI) -> None:
    async def body() -> None:
        async with webhook_server(pki) as hook:
            converter = converter_for(crd(url_config(hook, pki)), no_service)
            assert converter.setup_error is None
            objects = [crontab("a", V2), crontab("b", V2)]
            out = await converter.convert(objects, V2)
            assert out == objects and all(o is i for o, i in zip(out, objects, strict=True))
            assert await converter.convert([], V2) == []
            # an object of apiVersion and kind alone converts without the webhook, as in kube
            assert await converter.convert([{"apiVersion": V1, "kind": "CronTab"}], V2) == [
                {"apiVersion": V2, "kind": "CronTab"}
            ]
            await converter.close()
            assert hook.reviews == []

    run(body)


def test_none_strategy_rewrites_the_api_version_only() -> None:
    async def body() -> None:
        definition = crd({})
        definition["spec"]["conversion"] = {"strategy": "None"}
        converter = converter_for(definition, no_service)
        original, already = crontab("a"), crontab("b", V2)
        out = await converter.convert([original, already], V2)
        assert out[0] == {**original, "apiVersion": V2}
        assert list(out[0]) == list(original)
        assert original["apiVersion"] == V1
        assert out[1] is already
        await converter.close()

        del definition["spec"]["conversion"]  # no conversion at all is strategy None
        assert (await converter_for(definition, no_service).convert([original], V2))[0]["apiVersion"] == V2

    run(body)


@pytest.mark.parametrize("strategy", ["None", "Webhook"])
def test_versions_the_crd_does_not_define_are_refused(strategy: str, pki: PKI) -> None:
    async def body() -> None:
        definition = crd({"url": "https://127.0.0.1:1/convert", "caBundle": ca_bundle(pki)})
        definition["spec"]["conversion"]["strategy"] = strategy
        converter = converter_for(definition, no_service)
        assert_conversion_failed(
            await failure(converter, [crontab("a")], f"{GROUP}/v9"),
            "request to convert CR to an invalid group/version: stable.example.com/v9",
        )
        assert_conversion_failed(
            await failure(converter, [crontab("a", "other.example.com/v1")]),
            "request to convert CR from an invalid group/version: other.example.com/v1",
        )
        assert_conversion_failed(
            await failure(converter, [crontab("a"), crontab("b", f"{GROUP}/v0")]),
            "request to convert CR list failed, list index 1 has invalid group/version: stable.example.com/v0",
        )
        await converter.close()

    run(body)


def test_converted_object_without_kind(pki: PKI) -> None:
    async def body() -> None:
        async with webhook_server(pki) as hook:

            def kindless(review: dict[str, Any]) -> dict[str, Any]:
                answer = converted_review(review)
                for obj in answer["response"]["convertedObjects"]:
                    del obj["kind"]
                    obj["metadata"] = {"name": obj["metadata"]["name"]}
                    del obj["spec"]
                return answer

            hook.answer = answering(kindless)
            converter = converter_for(crd(url_config(hook, pki)), no_service)
            # kube passes this one on unwrapped for a single object
            assert_conversion_failed(
                await failure(converter, [crontab("a")]),
                """Object 'Kind' is missing in '{"apiVersion":"stable.example.com/v2","metadata":{"name":"a"}}'""",
            )
            assert_conversion_failed(
                await failure(converter, [crontab("a"), crontab("b")]),
                "conversion webhook for stable.example.com/v1, Kind=CronTabList returned invalid converted object "
                "at index 0: Object 'Kind' is missing in "
                """'{"apiVersion":"stable.example.com/v2","metadata":{"name":"a"}}'""",
            )
            await converter.close()

    run(body)


def test_conversion_settings_change_with_what_the_converter_is_built_from() -> None:
    base = crd({"url": "https://127.0.0.1:1/convert"})
    relabeled = json.loads(json.dumps(base))
    relabeled["metadata"]["labels"] = {"a": "b"}
    relabeled["spec"]["versions"][1]["served"] = False
    assert conversion_settings(relabeled) == conversion_settings(base)
    moved = json.loads(json.dumps(base))
    moved["spec"]["conversion"]["webhook"]["clientConfig"]["url"] = "https://127.0.0.1:2/convert"
    assert conversion_settings(moved) != conversion_settings(base)
    grown = json.loads(json.dumps(base))
    grown["spec"]["versions"].append({"name": "v3", "served": True, "storage": False})
    assert conversion_settings(grown) != conversion_settings(base)


def test_plain_http_behind_an_https_url(pki: PKI) -> None:
    async def body() -> None:
        async with webhook_server(pki, tls=False) as hook:
            converter = converter_for(crd(url_config(hook, pki)), no_service)
            assert_conversion_failed(
                await failure(converter, [crontab("a")]),
                "conversion webhook for stable.example.com/v1, Kind=CronTab failed: "
                f'Post "{hook.url}?timeout=30s": http: server gave HTTP response to HTTPS client',
            )
            await converter.close()

    run(body)


def test_client_certificate_is_presented(pki: PKI) -> None:
    async def body() -> None:
        async with webhook_server(pki, client_certs=True) as hook:
            converter = converter_for(
                crd(url_config(hook, pki)), no_service, client_cert=(pki.admin_cert, pki.admin_key)
            )
            [out] = await converter.convert([crontab("a")], V2)
            assert out["apiVersion"] == V2
            peer = hook.requests[0].transport.get_extra_info("peercert") if hook.requests[0].transport else None
            assert peer is not None and ("commonName", ADMIN_USER) in [rdn[0] for rdn in peer["subject"]]
            await converter.close()

    run(body)


def test_connection_closed_before_an_answer_is_sent_once_more_then_eof(pki: PKI) -> None:
    async def body() -> None:
        accepted: list[bytes] = []

        async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            accepted.append(await reader.readuntil(b"\r\n\r\n"))
            writer.close()

        server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        server_tls.load_cert_chain(pki.apiserver_cert, pki.apiserver_key)
        server = await asyncio.start_server(hang_up, "127.0.0.1", 0, ssl=server_tls)
        port = server.sockets[0].getsockname()[1]
        url = f"https://127.0.0.1:{port}/convert"
        try:
            converter = converter_for(crd({"url": url, "caBundle": ca_bundle(pki)}), no_service)
            assert_conversion_failed(
                await failure(converter, [crontab("a")]),
                f'conversion webhook for stable.example.com/v1, Kind=CronTab failed: Post "{url}?timeout=30s": EOF',
            )
            await converter.close()
        finally:
            server.close()
            await server.wait_closed()
        assert len(accepted) == 2
        assert accepted[0].startswith(b"POST /convert?timeout=30s HTTP/1.1\r\n")

    run(body)
