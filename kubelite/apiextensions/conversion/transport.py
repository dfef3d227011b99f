"""Posting to a webhook the way kube's webhook client (k8s.io/apiserver/pkg/util/webhook over client-go's
rest client) does.

A webhook is reached by `url`, or by a Service reference: then the URL kube prints, the Host header and the
TLS server name are `<name>.<namespace>.svc:<port>`, while the connection goes to the address the Service
resolver gives for each call (the cluster has no network of its own here; the resolver reads the Service's
endpoints). TLS trusts the `caBundle` alone, the system roots when it is empty. A call is bounded by one
deadline, also sent as the `timeout` query parameter, and the answer's body by a size. Connections are pooled
for the life of the client. Every failure becomes `CallError`, whose text is client-go's (see failures.py).
"""

from __future__ import annotations

import asyncio
import posixpath
import ssl
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from yarl import URL

from kubelite.apiextensions.conversion import failures
from kubelite.apimachinery.protobuf.wellknown import format_duration

#: (namespace, name, port) of a Service -> the (host, port) to dial for it
ServiceResolver = Callable[[str, str, int], Awaitable[tuple[str, int]]]

#: how long naming a mismatched certificate's names may take (a second, untrusted handshake)
_PEER_LOOKUP_TIMEOUT = 2.0


class ConfigError(Exception):
    """The webhook's client configuration cannot be used (kube fails to build the client)."""


class CallError(Exception):
    """The call failed or its answer was not a usable 2xx body; the text is client-go's error."""


class _TooLarge(Exception):
    pass


@dataclass(frozen=True, slots=True)
class _Service:
    namespace: str
    name: str
    port: int
    path: str

    @property
    def server_name(self) -> str:
        return f"{self.name}.{self.namespace}.svc"


@dataclass(frozen=True, slots=True)
class _Target:
    """Where one call goes: the URL requested, the address dialled, the name TLS verifies."""

    url: str
    host: str
    port: int
    server_name: str | None = None
    host_header: str | None = None

    @property
    def address(self) -> str:
        return _host_port(self.host, self.port)


def _clean_path(path: str) -> str:
    """Go's path.Join("/", path): rooted, cleaned, no trailing slash (client-go builds the request path so)."""
    return "/" + posixpath.normpath("/" + path).lstrip("/")


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


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value else default


class WebhookClient:
    """One webhook's HTTP client; `close()` releases its connections."""

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
        self._query = f"?timeout={format_duration(round(timeout * 1e9))}"
        service, url = client_config.get("service"), client_config.get("url")
        self._service: _Service | None = None
        self._fixed: _Target | None = None
        if isinstance(service, Mapping):  # kube prefers the Service when both are given
            path = service.get("path")
            self._service = _Service(
                namespace=str(service.get("namespace") or ""),
                name=str(service.get("name") or ""),
                port=_int(service.get("port"), 443),
                path=_clean_path(path if isinstance(path, str) else ""),
            )
            self.url = f"https://{self._service.server_name}:{self._service.port}{self._service.path}{self._query}"
        elif isinstance(url, str) and url:
            try:
                parsed = URL(url)
            except ValueError as exc:
                raise ConfigError(f"Unparsable URL: {exc}") from exc
            if parsed.scheme not in ("http", "https") or not parsed.host:
                raise ConfigError(f"Unparsable URL: {url}")
            #: the URL as kube prints it in errors (a Service by its DNS name)
            self.url = f"{parsed.scheme}://{parsed.raw_authority}{_clean_path(parsed.path)}{self._query}"
            self._fixed = _Target(self.url, parsed.host, parsed.port or (443 if parsed.scheme == "https" else 80))
        else:
            raise ConfigError("webhook configuration must have either service or URL")
        self._ssl = ssl_context(ca_bundle, client_cert)
        self._session: aiohttp.ClientSession | None = None

    def _session_now(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(ssl=self._ssl, limit=0),
                timeout=aiohttp.ClientTimeout(total=None),  # one deadline of our own covers the whole call
            )
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def _target(self) -> _Target:
        if self._fixed is not None:
            return self._fixed
        service = self._service
        if service is None:
            raise CallError(f'Post "{self.url}": no Service to resolve')
        try:
            host, port = await self._resolve_service(service.namespace, service.name, service.port)
        except TimeoutError:
            raise
        except Exception as exc:  # the resolver's failure is the failure of the POST, as in kube
            raise CallError(f'Post "{self.url}": {exc}') from exc
        return _Target(
            url=f"https://{_host_port(host, port)}{service.path}{self._query}",
            host=host,
            port=port,
            server_name=service.server_name,
            host_header=f"{service.server_name}:{service.port}",
        )

    async def post(self, body: bytes) -> bytes:
        """POST `body` (JSON); the non-empty body of a 2xx answer, else CallError."""
        session = self._session_now()
        headers = {"Content-Type": "application/json", "Accept": "application/json, */*"}
        target: _Target | None = self._fixed
        reading = False
        try:
            async with asyncio.timeout(self._timeout):
                target = await self._target()
                if target.host_header:
                    headers["Host"] = target.host_header
                for attempt in (1, 2):
                    try:
                        async with session.post(
                            URL(target.url, encoded=True),
                            data=body,
                            headers=headers,
                            server_hostname=target.server_name,
                        ) as response:
                            reading = True
                            data = await self._read(response)
                            status, content_type = response.status, response.headers.get("Content-Type")
                        break
                    except aiohttp.ServerDisconnectedError:
                        # a pooled connection the webhook closed as we reused it: sent again once, as Go's
                        # transport resends a request with a replayable body (a conversion is idempotent)
                        if reading or attempt == 2:
                            raise
        except CallError:
            raise
        except TimeoutError as exc:
            if reading:
                raise CallError(_body_error("context deadline exceeded")) from exc
            raise CallError(f'Post "{self.url}": context deadline exceeded') from exc
        except _TooLarge as exc:
            raise CallError(
                f"the response body of the webhook exceeds the limit of {self._max_response_bytes} bytes"
            ) from exc
        except aiohttp.ClientConnectorCertificateError as exc:
            text = await self._x509(exc, target) if target is not None else str(exc.certificate_error)
            raise CallError(f'Post "{self.url}": tls: failed to verify certificate: {text}') from exc
        except aiohttp.ClientConnectorDNSError as exc:
            raise CallError(f'Post "{self.url}": dial tcp: lookup {exc.host}: no such host') from exc
        except aiohttp.ClientConnectorSSLError as exc:
            raise CallError(f'Post "{self.url}": {failures.tls_failure(exc.os_error)}') from exc
        except aiohttp.ClientConnectorError as exc:
            address = target.address if target is not None else ""
            raise CallError(f'Post "{self.url}": {failures.dial_failure(address, exc.os_error)}') from exc
        except aiohttp.ServerDisconnectedError as exc:
            if reading:
                raise CallError(_body_error("unexpected EOF")) from exc
            raise CallError(f'Post "{self.url}": EOF') from exc
        except aiohttp.ClientPayloadError as exc:
            raise CallError(_body_error(str(exc))) from exc
        except aiohttp.ClientError as exc:
            raise CallError(f'Post "{self.url}": {exc}') from exc
        return self._result(status, content_type, data)

    async def _x509(self, exc: aiohttp.ClientConnectorCertificateError, target: _Target) -> str:
        error = exc.certificate_error
        if not isinstance(error, ssl.SSLCertVerificationError):
            return str(error)
        host = target.server_name or target.host
        peer = None
        if error.verify_code in (62, 64):  # Go names what the certificate is valid for
            peer = await failures.peer_certificate(target.host, target.port, host, _PEER_LOOKUP_TIMEOUT)
        return failures.x509_failure(error, host, peer)

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
        """client-go's Result.Into: an error answer's Status message, else its generic text; an empty body."""
        if not 200 <= status <= 206:
            message = failures.failure_status_message(data) if data else None
            if message is None:
                message = failures.generic_server_message(status, data, content_type)
            raise CallError(message)
        if not data:
            shown = content_type or "application/json"
            raise CallError(f"0-length response with status code: {status} and content type: {shown}")
        return data


def _body_error(cause: str) -> str:
    return f"unexpected error when reading response body. Please retry. Original error: {cause}"
