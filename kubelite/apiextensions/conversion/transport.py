"""Posting to a webhook the way kube's webhook client (k8s.io/apiserver/pkg/util/webhook over client-go's
rest client) does, and reporting its failures in that client's words.

A webhook is reached by `url`, or by a Service reference: then the URL kube prints and the TLS server name
are `<name>.<namespace>.svc:<port>`, while the connection goes to the address the Service resolver gives (the
cluster has no network of its own here, the resolver reads the Service's endpoints). TLS trusts the
`caBundle` alone (the system roots when it is empty). A call is bounded by one deadline, also sent as the
`timeout` query parameter; the answer's body is bounded too. Every failure becomes `CallError`, whose text is
what client-go's `Result.Into` error says: `Post "<url>": dial tcp ...`, `an error on the server (...) ...`.
"""

from __future__ import annotations

import asyncio
import json
import os
import posixpath
import ssl
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from yarl import URL

from kubelite.apimachinery import gofmt
from kubelite.apimachinery.protobuf.wellknown import format_duration

#: (namespace, name, port) of a Service -> the (host, port) to dial for it
ServiceResolver = Callable[[str, str, int], Awaitable[tuple[str, int]]]

#: client-go quotes at most this much of an unstructured error body
_MAX_ERROR_BODY = 2048


class ConfigError(Exception):
    """The webhook's client configuration cannot be used (kube fails to build the client)."""


class CallError(Exception):
    """The call failed or its answer was not a usable 2xx body; the text is client-go's error."""


@dataclass(frozen=True, slots=True)
class _Service:
    namespace: str
    name: str
    port: int
    path: str

    @property
    def server_name(self) -> str:
        return f"{self.name}.{self.namespace}.svc"


def _clean_path(path: str) -> str:
    """Go's path.Join("/", path): rooted, cleaned, no trailing slash (client-go builds the request path so)."""
    cleaned = posixpath.normpath("/" + path)
    return "/" + cleaned.lstrip("/")


def _host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def ssl_context(ca_bundle: bytes, client_cert: tuple[str | Path, str | Path] | None) -> ssl.SSLContext:
    """A client context trusting `ca_bundle` only, or the system roots when it is empty."""
    try:
        if ca_bundle.strip():
            ctx = ssl.create_default_context(cadata=ca_bundle.decode("ascii", errors="replace"))
        else:
            ctx = ssl.create_default_context()
    except (ssl.SSLError, ValueError) as exc:
        raise ConfigError(f"unable to load root certificates: {exc}") from exc
    if client_cert is not None:
        try:
            ctx.load_cert_chain(client_cert[0], client_cert[1])
        except (OSError, ssl.SSLError) as exc:
            raise ConfigError(f"unable to load the client certificate: {exc}") from exc
    ctx.set_alpn_protocols(["http/1.1"])
    return ctx


def _x509_text(error: ssl.SSLCertVerificationError, host: str) -> str:
    """Go's x509 verification error for what OpenSSL reports."""
    code = error.verify_code
    if code in (2, 18, 19, 20, 21):  # no chain to a trusted root
        return "x509: certificate signed by unknown authority"
    if code in (62, 64):  # hostname / IP mismatch; Go lists the names the certificate has, unknown here
        return f"x509: certificate is not valid for {host}"
    if code in (9, 10):
        return "x509: certificate has expired or is not yet valid"
    return f"x509: {error.verify_message}"


def _generic_server_message(code: int, body: bytes, content_type: str | None) -> str:
    """apimachinery's NewGenericServerResponse message for a non-2xx answer without a Status body."""
    text_response = True
    if content_type:
        media = content_type.split(";", 1)[0].strip().lower()
        text_response = media.startswith("text/")
    server_message = "unknown"
    if text_response:
        server_message = body[:_MAX_ERROR_BODY].decode("utf-8", errors="replace").strip()
    fixed = {
        409: "the server reported a conflict",
        404: "the server could not find the requested resource",
        400: "the server rejected our request for an unknown reason",
        401: "the server has asked for the client to provide credentials",
        405: "the server does not allow this method on the requested resource",
        422: "the server rejected our request due to an error in our request",
        503: "the server is currently unable to handle the request",
        504: "the server was unable to return a response in the time allotted, but may still be processing the request",
        429: "the server has received too many requests and has asked us to try again later",
    }
    if code in fixed:
        return fixed[code]
    if code in (403, 415):
        return server_message
    if code == 406:
        if server_message in ("", "unknown"):
            return "the server was unable to respond with a content type that the client supports"
        return server_message
    if code >= 500:
        return f"an error on the server ({gofmt.quote(server_message)}) has prevented the request from succeeding"
    return f"the server responded with the status code {code} but did not return more information"


def _failure_status_message(body: bytes) -> str | None:
    """The message of a v1 Status with status Failure in an error answer's body (client-go prefers it)."""
    try:
        status = json.loads(body)
    except ValueError:
        return None
    if (
        isinstance(status, dict)
        and status.get("kind") == "Status"
        and status.get("apiVersion") in (None, "", "v1")
        and status.get("status") == "Failure"
    ):
        message = status.get("message")
        return message if isinstance(message, str) else ""
    return None


class _TooLarge(Exception):
    pass


class WebhookClient:
    """One webhook's HTTP client: one connection pool for the life of the converter that owns it."""

    def __init__(
        self,
        client_config: Mapping[str, Any],
        resolve_service: ServiceResolver,
        *,
        ca_bundle: bytes,
        client_cert: tuple[str | Path, str | Path] | None,
        timeout: float,
        max_response_bytes: int,
    ) -> None:
        if timeout <= 0:
            raise ConfigError(f"the webhook timeout must be positive, not {timeout}")
        self._timeout = timeout
        self._max_response_bytes = max_response_bytes
        self._resolve_service = resolve_service
        query = f"?timeout={format_duration(round(timeout * 1e9))}"
        service = client_config.get("service")
        url = client_config.get("url")
        self._service: _Service | None = None
        if isinstance(service, Mapping):
            port = service.get("port")
            path = service.get("path")
            self._service = _Service(
                namespace=str(service.get("namespace") or ""),
                name=str(service.get("name") or ""),
                port=port if isinstance(port, int) and not isinstance(port, bool) and port else 443,
                path=_clean_path(path if isinstance(path, str) else ""),
            )
            self._display_url = f"https://{self._service.server_name}:{self._service.port}{self._service.path}{query}"
            self._query = query
        elif isinstance(url, str) and url:
            try:
                parsed = URL(url)
            except ValueError as exc:
                raise ConfigError(f"Unparsable URL: {exc}") from exc
            if parsed.scheme not in ("http", "https") or not parsed.host:
                raise ConfigError(f"Unparsable URL: {url!r}")
            self._display_url = f"{parsed.scheme}://{parsed.raw_authority}{_clean_path(parsed.path)}{query}"
            self._dial = _host_port(parsed.host, parsed.port or (443 if parsed.scheme == "https" else 80))
        else:
            raise ConfigError("webhook configuration must have either service or URL")
        self._ssl = ssl_context(ca_bundle, client_cert)
        self._session: aiohttp.ClientSession | None = None

    @property
    def url(self) -> str:
        """The URL as kube prints it in errors (a Service by its DNS name)."""
        return self._display_url

    def _session_for_loop(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(ssl=self._ssl, limit=0),
                timeout=aiohttp.ClientTimeout(total=None),
                auto_decompress=True,
            )
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def post(self, body: bytes) -> bytes:
        """POST `body` (JSON); the non-empty body of a 2xx answer, else CallError."""
        session = self._session_for_loop()
        headers = {"Content-Type": "application/json", "Accept": "application/json, */*"}
        server_hostname: str | None = None
        reading = False
        dial = getattr(self, "_dial", "")
        try:
            async with asyncio.timeout(self._timeout):
                if self._service is not None:
                    target, dial = await self._resolve(self._service)
                    server_hostname = self._service.server_name
                    headers["Host"] = f"{self._service.server_name}:{self._service.port}"
                else:
                    target = self._display_url
                async with session.post(
                    URL(target, encoded=True),
                    data=body,
                    headers=headers,
                    server_hostname=server_hostname,
                ) as response:
                    reading = True
                    data = await self._read(response)
                    status, content_type = response.status, response.headers.get("Content-Type")
        except CallError:
            raise
        except TimeoutError as exc:
            if reading:
                raise CallError(
                    "unexpected error when reading response body. Please retry. Original error: context deadline "
                    "exceeded"
                ) from exc
            raise CallError(f'Post "{self._display_url}": context deadline exceeded') from exc
        except _TooLarge as exc:
            raise CallError(
                f"the response body of the webhook exceeds the limit of {self._max_response_bytes} bytes"
            ) from exc
        except aiohttp.ClientConnectorCertificateError as exc:
            host = server_hostname or URL(self._display_url).host or ""
            text = (
                _x509_text(exc.certificate_error, host)
                if isinstance(exc.certificate_error, ssl.SSLCertVerificationError)
                else str(exc.certificate_error)
            )
            raise CallError(f'Post "{self._display_url}": tls: failed to verify certificate: {text}') from exc
        except aiohttp.ClientConnectorDNSError as exc:
            raise CallError(f'Post "{self._display_url}": dial tcp: lookup {exc.host}: no such host') from exc
        except aiohttp.ClientConnectorSSLError as exc:
            reason = getattr(exc.os_error, "reason", None) or str(exc.os_error)
            raise CallError(f'Post "{self._display_url}": remote error: tls: {reason}'.lower()) from exc
        except aiohttp.ClientConnectorError as exc:
            raise CallError(f'Post "{self._display_url}": dial tcp {dial}: connect: {_strerror(exc.os_error)}') from exc
        except aiohttp.ServerDisconnectedError as exc:
            if reading:
                raise CallError(
                    "unexpected error when reading response body. Please retry. Original error: unexpected EOF"
                ) from exc
            raise CallError(f'Post "{self._display_url}": EOF') from exc
        except aiohttp.ClientPayloadError as exc:
            raise CallError(
                f"unexpected error when reading response body. Please retry. Original error: {exc}"
            ) from exc
        except aiohttp.ClientError as exc:
            raise CallError(f'Post "{self._display_url}": {exc}') from exc
        return self._result(status, content_type, data)

    async def _resolve(self, service: _Service) -> tuple[str, str]:
        try:
            host, port = await self._resolve_service(service.namespace, service.name, service.port)
        except TimeoutError:
            raise
        except Exception as exc:  # the resolver's own failure, reported as the dial failure kube reports
            raise _ResolveFailed(f'Post "{self._display_url}": {exc}') from exc
        dial = _host_port(host, port)
        return f"https://{dial}{service.path}{self._query}", dial

    async def _read(self, response: aiohttp.ClientResponse) -> bytes:
        if response.content_length is not None and response.content_length > self._max_response_bytes:
            raise _TooLarge
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.content.iter_chunked(1 << 16):
            size += len(chunk)
            if size > self._max_response_bytes:
                raise _TooLarge
            chunks.append(chunk)
        return b"".join(chunks)

    @staticmethod
    def _result(status: int, content_type: str | None, data: bytes) -> bytes:
        if not 200 <= status <= 206:
            message = _failure_status_message(data) if data else None
            raise CallError(message if message is not None else _generic_server_message(status, data, content_type))
        if not data:
            raise CallError(
                f"0-length response with status code: {status} and content type: {content_type or 'application/json'}"
            )
        return data


class _ResolveFailed(CallError):
    """The Service resolver failed: kube reports that as the failure of the POST."""


def _strerror(error: OSError | None) -> str:
    if error is not None and error.errno:
        return os.strerror(error.errno).lower()
    return str(error).lower() if error is not None else "connection failed"
