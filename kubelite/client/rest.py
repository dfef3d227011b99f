"""The REST client: JSON requests to one API server over aiohttp, with authentication, retries and typed errors.

What it owns, as client-go's `rest.Request` does:
- headers: bearer token (re-read from its file every minute), basic auth, impersonation, user agent;
- retries: a 429 or 5xx that carries `Retry-After` is retried after that many seconds for any verb (the server
  says it did not act on the request); a 429 without it, a 502/503/504 on a safe verb, and a connection that
  could not be made are retried with exponential backoff; at most `config.max_retries` times;
- errors: a failed response becomes the `ApiError` subclass for its Status (one synthesized from the code when
  the body is not a Status); aiohttp's exceptions become `TransportError`s here and nowhere else;
- watches: `watch()` opens a chunked stream and decodes it into `WatchEvent`s (see `watch.py`).
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Mapping, Sequence
from typing import Any

import aiohttp
import orjson

from kubelite.client.clock import Clock, RealClock
from kubelite.client.config import Config
from kubelite.client.errors import ApiError, ConnectionRefused, TransportError, status_for_response
from kubelite.client.flowcontrol import TokenBucket
from kubelite.client.watch import WatchStream

log = logging.getLogger(__name__)

JSON = "application/json"
MERGE_PATCH = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"

#: verbs that may be resent after a broken connection or a 5xx without Retry-After
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: how often a token file is re-read (client-go's cachingTokenSource)
TOKEN_FILE_REFRESH = 60.0

Params = Mapping[str, Any] | Sequence[tuple[str, Any]]


def encode_params(params: Params | None) -> list[tuple[str, str]]:
    """Query parameters as the API expects them: booleans as true/false, lists as repeated keys, None dropped."""
    if not params:
        return []
    items = params.items() if isinstance(params, Mapping) else params
    out: list[tuple[str, str]] = []
    for key, value in items:
        if value is None:
            continue
        if isinstance(value, (list, tuple)):
            out.extend((key, _scalar(v)) for v in value)
        else:
            out.append((key, _scalar(value)))
    return out


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header; only the delta-seconds form is honoured, as client-go does."""
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    return max(seconds, 0.0)


class RESTClient:
    """One server, one identity. Use as `async with RESTClient(config) as rest:` or call `close()`."""

    def __init__(
        self,
        config: Config,
        *,
        clock: Clock | None = None,
        backoff_base: float = 0.25,
        backoff_max: float = 30.0,
    ) -> None:
        self.config = config
        self.clock = clock or RealClock()
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self._session: aiohttp.ClientSession | None = None
        self._limiter = TokenBucket(config.qps, config.burst, clock=self.clock) if config.qps else None
        self._file_token: str | None = None
        self._file_token_read_at = float("-inf")
        self._static_headers = self._build_static_headers()

    async def __aenter__(self) -> RESTClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    def _build_static_headers(self) -> dict[str, str]:
        cfg = self.config
        headers = {"User-Agent": cfg.user_agent}
        if cfg.username is not None or cfg.password is not None:
            pair = f"{cfg.username or ''}:{cfg.password or ''}".encode()
            headers["Authorization"] = "Basic " + base64.b64encode(pair).decode("ascii")
        if cfg.impersonate_user:
            headers["Impersonate-User"] = cfg.impersonate_user
        if cfg.impersonate_uid:
            headers["Impersonate-Uid"] = cfg.impersonate_uid
        return headers

    def _headers(self, extra: Mapping[str, str] | None) -> list[tuple[str, str]]:
        headers = list(self._static_headers.items())
        token = self._token()
        if token:
            headers.append(("Authorization", f"Bearer {token}"))
        headers.extend(("Impersonate-Group", group) for group in self.config.impersonate_groups)
        for key, values in self.config.impersonate_extra.items():
            headers.extend((f"Impersonate-Extra-{key}", value) for value in values)
        if extra:
            headers.extend(extra.items())
        return headers

    def _token(self) -> str | None:
        cfg = self.config
        if cfg.token_file:
            now = self.clock.monotonic()
            if now - self._file_token_read_at >= TOKEN_FILE_REFRESH:
                try:
                    with open(cfg.token_file) as source:
                        self._file_token = source.read().strip()
                    self._file_token_read_at = now
                except OSError as exc:
                    if self._file_token is None:
                        raise TransportError(f"reading the token file {cfg.token_file}: {exc}") from exc
                    log.warning(
                        "re-reading the token file %s failed, using the previous token: %s",
                        cfg.token_file,
                        exc,
                    )
            return self._file_token
        return cfg.token

    def _session_for_loop(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            # no connection limit: each watch holds a connection for its whole life
            connector = aiohttp.TCPConnector(limit=0, ssl=self.config.ssl_context() or False)
            self._session = aiohttp.ClientSession(
                connector=connector,
                json_serialize=lambda value: orjson.dumps(value).decode(),
                auto_decompress=True,
            )
        return self._session

    def url(self, path: str) -> str:
        return self.config.host + (path if path.startswith("/") else "/" + path)

    async def _send(
        self,
        method: str,
        path: str,
        *,
        params: Params | None,
        data: bytes | None,
        headers: Mapping[str, str] | None,
        timeout: aiohttp.ClientTimeout,
        retry_connect: bool = True,
    ) -> aiohttp.ClientResponse:
        """One request with retries; returns an open response of a success status, raises the rest."""
        session = self._session_for_loop()
        query = encode_params(params)
        attempt = 0
        while True:
            if self._limiter is not None:
                await self._limiter.wait()
            try:
                response = await session.request(
                    method,
                    self.url(path),
                    params=query,
                    data=data,
                    headers=self._headers(headers),
                    timeout=timeout,
                    proxy=self.config.proxy_url,
                    server_hostname=self.config.tls_server_name,
                    allow_redirects=False,
                )
            except aiohttp.ClientConnectorError as exc:
                # nothing reached the server, so any verb may be sent again
                err: TransportError = (
                    ConnectionRefused(f"{method} {path}: {exc}")
                    if isinstance(exc.os_error, ConnectionRefusedError)
                    else TransportError(f"{method} {path}: {exc}")
                )
                if retry_connect and attempt < self.config.max_retries:
                    await self.clock.sleep(self._backoff(attempt))
                    attempt += 1
                    continue
                raise err from exc
            except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError) as exc:
                if method in SAFE_METHODS and retry_connect and attempt < self.config.max_retries:
                    await self.clock.sleep(self._backoff(attempt))
                    attempt += 1
                    continue
                raise TransportError(f"{method} {path}: {exc}") from exc
            except (TimeoutError, aiohttp.ClientError) as exc:
                raise TransportError(f"{method} {path}: {str(exc) or type(exc).__name__}") from exc
            self._log_warnings(response)
            if response.status < 400:
                return response
            try:
                body = await response.read()
            except (TimeoutError, aiohttp.ClientError) as exc:
                raise TransportError(f"{method} {path}: reading the error response: {exc}") from exc
            finally:
                response.release()
            retry_after = parse_retry_after(response.headers.get("Retry-After"))
            error = _api_error(response.status, body, retry_after)
            if attempt < self.config.max_retries and self._should_retry(method, response.status, retry_after):
                await self.clock.sleep(retry_after if retry_after is not None else self._backoff(attempt))
                attempt += 1
                continue
            raise error

    @staticmethod
    def _should_retry(method: str, status: int, retry_after: float | None) -> bool:
        if status == 429 or (status >= 500 and retry_after is not None):
            return True
        return method in SAFE_METHODS and status in (502, 503, 504)

    def _backoff(self, attempt: int) -> float:
        return min(self.backoff_max, self.backoff_base * (2**attempt))

    @staticmethod
    def _log_warnings(response: aiohttp.ClientResponse) -> None:
        for warning in response.headers.getall("Warning", ()):
            log.warning("server warning: %s", warning)

    def _timeout(self, seconds: float | None) -> aiohttp.ClientTimeout:
        return aiohttp.ClientTimeout(total=seconds if seconds is not None else self.config.timeout)

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Params | None = None,
        body: Any = None,
        content_type: str = JSON,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> Any:
        """Send one request and return its decoded JSON body (None for an empty one)."""
        data: bytes | None
        all_headers = {"Accept": JSON, **(headers or {})}
        if body is None:
            data = None
        else:
            data = body if isinstance(body, bytes) else orjson.dumps(body)
            all_headers["Content-Type"] = content_type
        response = await self._send(
            method, path, params=params, data=data, headers=all_headers, timeout=self._timeout(timeout)
        )
        try:
            raw = await response.read()
        except (TimeoutError, aiohttp.ClientError) as exc:
            raise TransportError(f"{method} {path}: reading the response: {exc}") from exc
        finally:
            response.release()
        if not raw:
            return None
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise TransportError(f"{method} {path}: the response is not JSON: {raw[:200]!r}") from exc

    async def get(
        self, path: str, *, params: Params | None = None, headers: Mapping[str, str] | None = None
    ) -> Any:
        return await self.request("GET", path, params=params, headers=headers)

    async def post(self, path: str, body: Any, *, params: Params | None = None) -> Any:
        return await self.request("POST", path, params=params, body=body)

    async def put(self, path: str, body: Any, *, params: Params | None = None) -> Any:
        return await self.request("PUT", path, params=params, body=body)

    async def patch(
        self, path: str, body: Any, *, content_type: str = MERGE_PATCH, params: Params | None = None
    ) -> Any:
        return await self.request("PATCH", path, params=params, body=body, content_type=content_type)

    async def delete(self, path: str, *, body: Any = None, params: Params | None = None) -> Any:
        return await self.request("DELETE", path, params=params, body=body)

    async def watch(
        self, path: str, *, params: Params | None = None, timeout_seconds: float | None = None
    ) -> WatchStream:
        """Open a watch (`watch=true` on a collection path) and return its stream of events.

        Connection failures are not retried here: the reflector decides between re-watching and relisting.
        """
        query = encode_params(params)
        if not any(key == "watch" for key, _ in query):
            query.append(("watch", "true"))
        # the server ends the watch after timeoutSeconds; a read stall well past that means a dead peer
        read_limit = timeout_seconds + 30.0 if timeout_seconds is not None else None
        response = await self._send(
            "GET",
            path,
            params=query,
            data=None,
            headers={"Accept": JSON},
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=self.config.timeout, sock_read=read_limit),
            retry_connect=False,
        )
        return WatchStream(response, description=path)


def _api_error(code: int, body: bytes, retry_after: float | None) -> ApiError:
    status: dict[str, Any] | None = None
    if body:
        try:
            parsed = orjson.loads(body)
        except orjson.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict) and parsed.get("kind") == "Status":
            status = parsed
    return ApiError.from_status(status or status_for_response(code, body), code=code, retry_after=retry_after)
