"""Client configuration: where the server is, how to trust it and how to authenticate (client-go's
`rest.Config`), built from a kubeconfig context, from the in-cluster service-account environment, or by hand.

`load_config()` picks the way client-go's deferred loader does: an explicit kubeconfig, else `KUBECONFIG` or
`~/.kube/config` when present, else in-cluster. Validation happens here, when the configuration is built, with
messages that name the fix; a Config that exists can make requests.
"""

from __future__ import annotations

import base64
import binascii
import os
import ssl
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kubelite.client.errors import ConfigError
from kubelite.client.kubeconfig import kubeconfig_paths, load_kubeconfig, resolve_context

#: where the kubelet mounts a pod's service-account credentials
SERVICE_ACCOUNT_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")

DEFAULT_USER_AGENT = "kubelite-client/0.1"


@dataclass(kw_only=True)
class Config:
    """Everything needed to talk to one API server as one user."""

    host: str
    #: the namespace of the context (or of the pod, in cluster); clients use it when none is given
    namespace: str = "default"
    ca_data: bytes | None = None
    ca_file: str | None = None
    cert_data: bytes | None = None
    cert_file: str | None = None
    key_data: bytes | None = None
    key_file: str | None = None
    insecure_skip_tls_verify: bool = False
    tls_server_name: str | None = None
    #: a bearer token; `token_file` wins when both are set and is re-read every minute (bound tokens rotate)
    token: str | None = None
    token_file: str | None = None
    username: str | None = None
    password: str | None = None
    impersonate_user: str | None = None
    impersonate_uid: str | None = None
    impersonate_groups: tuple[str, ...] = ()
    impersonate_extra: dict[str, list[str]] = field(default_factory=dict)
    proxy_url: str | None = None
    user_agent: str = DEFAULT_USER_AGENT
    #: client-side throttling; None leaves it to the server's priority and fairness (client-go defaults to 5/10)
    qps: float | None = None
    burst: int = 10
    #: seconds for a whole non-watch request; None waits forever
    timeout: float | None = 60.0
    #: how often one request is retried on 429/5xx or a refused connection before the error is raised
    max_retries: int = 10

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        if not self.host:
            raise ConfigError("invalid configuration: no server found: set a cluster's server or pass host=")
        if "://" not in self.host:
            secure = bool(
                self.ca_data
                or self.ca_file
                or self.cert_data
                or self.cert_file
                or self.insecure_skip_tls_verify
            )
            self.host = ("https://" if secure else "http://") + self.host
        self.host = self.host.rstrip("/")
        if self.insecure_skip_tls_verify and (self.ca_data or self.ca_file):
            raise ConfigError(
                "specifying a root certificates file with the insecure flag is not allowed: "
                "drop insecure-skip-tls-verify or the certificate authority"
            )
        if self.ca_data and self.ca_file:
            raise ConfigError(
                "certificate-authority-data and certificate-authority are both specified: keep one"
            )
        if self.cert_data and self.cert_file:
            raise ConfigError("client-certificate-data and client-certificate are both specified: keep one")
        if self.key_data and self.key_file:
            raise ConfigError("client-key-data and client-key are both specified: keep one")
        has_cert = bool(self.cert_data or self.cert_file)
        has_key = bool(self.key_data or self.key_file)
        if has_cert != has_key:
            raise ConfigError("a client certificate needs its key (and a key its certificate): set both")
        if (self.username or self.password) and (self.token or self.token_file):
            raise ConfigError("more than one authentication method found: use a token or a username/password")
        if self.qps is not None and self.qps <= 0:
            raise ConfigError(f"qps must be positive (or None for no client-side limit), got {self.qps}")
        if self.max_retries < 0:
            raise ConfigError("max_retries must not be negative")

    @property
    def is_tls(self) -> bool:
        return self.host.startswith("https://")

    def ssl_context(self) -> ssl.SSLContext | None:
        """The TLS settings for an https host (None for plain http)."""
        if not self.is_tls:
            return None
        if self.ca_data or self.ca_file or self.insecure_skip_tls_verify:
            # a configured CA is the only one trusted (client-go's RootCAs); the system store, near a megabyte per
            # context, is not loaded
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        else:
            context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
        if self.insecure_skip_tls_verify:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        elif self.ca_data:
            context.load_verify_locations(cadata=self.ca_data.decode("ascii"))
        elif self.ca_file:
            context.load_verify_locations(cafile=self.ca_file)
        if self.cert_data or self.cert_file:
            _load_client_certificate(context, self)
        return context


def _load_client_certificate(context: ssl.SSLContext, config: Config) -> None:
    # ssl loads a chain only from files: inline data goes through owner-only files removed right after
    temporary: list[str] = []
    try:
        paths: list[str] = []
        for data, path in ((config.cert_data, config.cert_file), (config.key_data, config.key_file)):
            if data is not None:
                fd, name = tempfile.mkstemp(prefix="kubelite-client-", suffix=".pem")
                temporary.append(name)
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                paths.append(name)
            else:
                paths.append(str(path))
        try:
            context.load_cert_chain(paths[0], paths[1])
        except (ssl.SSLError, OSError) as exc:
            raise ConfigError(f"the client certificate or key cannot be used: {exc}") from exc
    finally:
        for name in temporary:
            os.unlink(name)


def _b64(value: Any, what: str) -> bytes:
    try:
        return base64.b64decode(str(value), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ConfigError(f"{what} is not valid base64: {exc}") from exc


def config_from_kubeconfig_entries(
    cluster: Mapping[str, Any], user: Mapping[str, Any], *, namespace: str = "default"
) -> Config:
    """A Config from one cluster entry and one user entry of a kubeconfig."""
    if user.get("exec") or user.get("auth-provider"):
        kind = "exec" if user.get("exec") else "auth-provider"
        raise ConfigError(
            f"the user's {kind} credential plugin is not supported by kubelite.client: "
            "use a client certificate, a token or a tokenFile"
        )
    return Config(
        host=str(cluster.get("server") or ""),
        namespace=namespace,
        ca_data=_b64(cluster["certificate-authority-data"], "certificate-authority-data")
        if cluster.get("certificate-authority-data")
        else None,
        ca_file=cluster.get("certificate-authority") or None,
        insecure_skip_tls_verify=bool(cluster.get("insecure-skip-tls-verify")),
        tls_server_name=cluster.get("tls-server-name") or None,
        proxy_url=cluster.get("proxy-url") or None,
        cert_data=_b64(user["client-certificate-data"], "client-certificate-data")
        if user.get("client-certificate-data")
        else None,
        cert_file=user.get("client-certificate") or None,
        key_data=_b64(user["client-key-data"], "client-key-data") if user.get("client-key-data") else None,
        key_file=user.get("client-key") or None,
        token=user.get("token") or None,
        token_file=user.get("tokenFile") or None,
        username=user.get("username") or None,
        password=user.get("password") or None,
        impersonate_user=user.get("as") or None,
        impersonate_uid=user.get("as-uid") or None,
        impersonate_groups=tuple(user.get("as-groups") or ()),
        impersonate_extra={k: list(v) for k, v in (user.get("as-user-extra") or {}).items()},
    )


def load_kube_config(
    path: str | os.PathLike[str] | None = None,
    *,
    context: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Config:
    """The Config of a kubeconfig context (the current one unless `context` is given)."""
    paths = kubeconfig_paths(path, env=env)
    if not paths:
        raise ConfigError("invalid configuration: no configuration has been provided, try setting KUBECONFIG")
    resolved = resolve_context(load_kubeconfig(paths), context)
    return config_from_kubeconfig_entries(resolved.cluster, resolved.user, namespace=resolved.namespace)


def load_incluster_config(
    *, env: Mapping[str, str] | None = None, service_account_dir: Path = SERVICE_ACCOUNT_DIR
) -> Config:
    """The Config of a pod: the `kubernetes` Service from the environment, the mounted token and CA."""
    environ = os.environ if env is None else env
    host, port = environ.get("KUBERNETES_SERVICE_HOST", ""), environ.get("KUBERNETES_SERVICE_PORT", "")
    if not host or not port:
        raise ConfigError(
            "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT "
            "must be defined"
        )
    token_file = service_account_dir / "token"
    if not token_file.exists():
        raise ConfigError(f"unable to load in-cluster configuration: {token_file} does not exist")
    namespace_file = service_account_dir / "namespace"
    namespace = namespace_file.read_text().strip() if namespace_file.exists() else "default"
    ca_file = service_account_dir / "ca.crt"
    authority = f"[{host}]" if ":" in host else host
    return Config(
        host=f"https://{authority}:{port}",
        namespace=namespace or "default",
        ca_file=str(ca_file) if ca_file.exists() else None,
        token_file=str(token_file),
    )


def load_config(
    path: str | os.PathLike[str] | None = None,
    *,
    context: str | None = None,
    env: Mapping[str, str] | None = None,
    service_account_dir: Path = SERVICE_ACCOUNT_DIR,
) -> Config:
    """A kubeconfig when one is given or present, else the in-cluster configuration."""
    if path or kubeconfig_paths(None, env=env):
        return load_kube_config(path, context=context, env=env)
    try:
        return load_incluster_config(env=env, service_account_dir=service_account_dir)
    except ConfigError as exc:
        raise ConfigError(
            "invalid configuration: no kubeconfig found (set KUBECONFIG or create ~/.kube/config) "
            f"and not in a cluster ({exc})"
        ) from exc
