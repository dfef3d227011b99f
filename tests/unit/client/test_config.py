"""Configuration: kubeconfig discovery and merging, context resolution, in-cluster, validation, TLS contexts."""

from __future__ import annotations

import base64
import ssl
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubelite.auth.certs import ensure_pki
from kubelite.client.config import Config, load_config, load_incluster_config, load_kube_config
from kubelite.client.errors import ConfigError
from kubelite.client.kubeconfig import kubeconfig_paths, load_kubeconfig, resolve_context


def write(path: Path, data: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data))
    return path


def kubeconfig(
    *,
    clusters: dict[str, dict[str, Any]],
    users: dict[str, dict[str, Any]],
    contexts: dict[str, dict[str, Any]],
    current: str = "",
) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": k, "cluster": v} for k, v in clusters.items()],
        "users": [{"name": k, "user": v} for k, v in users.items()],
        "contexts": [{"name": k, "context": v} for k, v in contexts.items()],
        "current-context": current,
    }


def test_merge_first_file_wins_per_name_and_for_current_context(tmp_path: Path) -> None:
    first = write(
        tmp_path / "one" / "config",
        kubeconfig(
            clusters={"shared": {"server": "https://first:6443", "certificate-authority": "ca.crt"}},
            users={"u": {"token": "first-token"}},
            contexts={"ctx": {"cluster": "shared", "user": "u", "namespace": "team"}},
        ),
    )
    second = write(
        tmp_path / "two" / "config",
        kubeconfig(
            clusters={"shared": {"server": "https://second:6443"}, "other": {"server": "http://other:8080"}},
            users={"u": {"token": "second-token"}, "v": {"tokenFile": "/abs/token"}},
            contexts={"ctx2": {"cluster": "other", "user": "v"}},
            current="ctx2",
        ),
    )
    merged = load_kubeconfig([first, second])
    assert merged.current_context == "ctx2"  # the first file sets none
    assert merged.clusters["shared"] == {
        "server": "https://first:6443",
        "certificate-authority": str(tmp_path / "one" / "ca.crt"),
    }
    assert merged.users["u"] == {"token": "first-token"}
    assert sorted(merged.contexts) == ["ctx", "ctx2"]
    resolved = resolve_context(merged, "ctx")
    assert (resolved.cluster["server"], resolved.user["token"], resolved.namespace) == (
        "https://first:6443",
        "first-token",
        "team",
    )
    assert resolve_context(merged).namespace == "default"


@pytest.mark.parametrize(
    ("env_value", "expected"),
    [
        ("{a}:{missing}:{b}:{a}", ["a", "b"]),
        ("{missing}", []),
    ],
    ids=["skips-missing-and-duplicates", "all-missing"],
)
def test_kubeconfig_env_list(tmp_path: Path, env_value: str, expected: list[str]) -> None:
    for name in ("a", "b"):
        (tmp_path / name).write_text("{}")
    value = env_value.format(a=tmp_path / "a", b=tmp_path / "b", missing=tmp_path / "missing")
    paths = kubeconfig_paths(None, env={"KUBECONFIG": value})
    assert paths == [tmp_path / name for name in expected]


def test_default_and_explicit_paths(tmp_path: Path) -> None:
    assert kubeconfig_paths(None, env={"HOME": str(tmp_path)}) == []
    default = write(tmp_path / ".kube" / "config", {})
    assert kubeconfig_paths(None, env={"HOME": str(tmp_path)}) == [default]
    with pytest.raises(ConfigError, match="no such file"):
        kubeconfig_paths(tmp_path / "nope", env={})


@pytest.mark.parametrize(
    ("contexts", "current", "wanted", "message"),
    [
        ({}, "", None, "no configuration has been provided"),
        ({"c": {"cluster": "k"}}, "", None, "no context chosen"),
        ({"c": {"cluster": "k"}}, "c", "other", "context was not found for specified context: other"),
        ({"c": {"cluster": "missing"}}, "c", None, 'cluster "missing" was not found'),
        ({"c": {"cluster": "k", "user": "ghost"}}, "c", None, 'user "ghost" was not found'),
    ],
    ids=["empty", "no-current", "unknown-context", "unknown-cluster", "unknown-user"],
)
def test_resolve_errors(
    tmp_path: Path, contexts: dict[str, Any], current: str, wanted: str | None, message: str
) -> None:
    path = write(
        tmp_path / "config",
        kubeconfig(clusters={"k": {"server": "http://x"}}, users={}, contexts=contexts, current=current),
    )
    with pytest.raises(ConfigError, match=message):
        load_kube_config(path, context=wanted, env={})


def test_load_kube_config_with_inline_credentials(tmp_path: Path) -> None:
    ca = base64.b64encode(b"CA PEM").decode()
    path = write(
        tmp_path / "config",
        kubeconfig(
            clusters={
                "k": {"server": "https://k:6443", "certificate-authority-data": ca, "tls-server-name": "api"}
            },
            users={
                "u": {
                    "client-certificate-data": base64.b64encode(b"CERT").decode(),
                    "client-key-data": base64.b64encode(b"KEY").decode(),
                    "as": "jane",
                    "as-groups": ["g1", "g2"],
                }
            },
            contexts={"c": {"cluster": "k", "user": "u", "namespace": "apps"}},
            current="c",
        ),
    )
    config = load_kube_config(path, env={})
    assert (config.host, config.namespace, config.tls_server_name) == ("https://k:6443", "apps", "api")
    assert (config.ca_data, config.cert_data, config.key_data) == (b"CA PEM", b"CERT", b"KEY")
    assert (config.impersonate_user, config.impersonate_groups) == ("jane", ("g1", "g2"))


@pytest.mark.parametrize(
    ("user", "message"),
    [
        ({"exec": {"command": "aws"}}, "exec credential plugin is not supported"),
        ({"client-certificate-data": "!!!", "client-key-data": "eA=="}, "not valid base64"),
        (
            {"client-certificate": "/c", "client-certificate-data": "eA==", "client-key": "/k"},
            "both specified",
        ),
        ({"client-certificate": "/c"}, "needs its key"),
        ({"token": "t", "username": "u", "password": "p"}, "more than one authentication method"),
    ],
    ids=["exec", "bad-base64", "cert-twice", "cert-without-key", "token-and-basic"],
)
def test_invalid_users(user: dict[str, Any], message: str) -> None:
    from kubelite.client.config import config_from_kubeconfig_entries

    with pytest.raises(ConfigError, match=message):
        config_from_kubeconfig_entries({"server": "https://k"}, user)


@pytest.mark.parametrize(
    ("kwargs", "host"),
    [
        ({"host": "k:6443", "insecure_skip_tls_verify": True}, "https://k:6443"),
        ({"host": "k:8080"}, "http://k:8080"),
        ({"host": "https://k/"}, "https://k"),
    ],
    ids=["tls-implies-https", "plain-http", "trailing-slash"],
)
def test_host_normalisation(kwargs: dict[str, Any], host: str) -> None:
    assert Config(**kwargs).host == host


def test_insecure_with_ca_is_refused() -> None:
    with pytest.raises(ConfigError, match="insecure flag is not allowed"):
        Config(host="https://k", insecure_skip_tls_verify=True, ca_data=b"x")


def test_incluster(tmp_path: Path) -> None:
    (tmp_path / "token").write_text("tok\n")
    (tmp_path / "namespace").write_text("kube-system")
    (tmp_path / "ca.crt").write_text("CA")
    env = {"KUBERNETES_SERVICE_HOST": "fd00::1", "KUBERNETES_SERVICE_PORT": "443"}
    config = load_incluster_config(env=env, service_account_dir=tmp_path)
    assert (config.host, config.namespace, config.token_file, config.ca_file) == (
        "https://[fd00::1]:443",
        "kube-system",
        str(tmp_path / "token"),
        str(tmp_path / "ca.crt"),
    )
    with pytest.raises(
        ConfigError, match="KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined"
    ):
        load_incluster_config(env={}, service_account_dir=tmp_path)


def test_load_config_prefers_kubeconfig_then_in_cluster(tmp_path: Path) -> None:
    sa = tmp_path / "sa"
    sa.mkdir()
    (sa / "token").write_text("tok")
    env = {"HOME": str(tmp_path), "KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"}
    assert load_config(env=env, service_account_dir=sa).host == "https://10.0.0.1:443"
    write(
        tmp_path / ".kube" / "config",
        kubeconfig(
            clusters={"k": {"server": "http://local:8080"}},
            users={},
            contexts={"c": {"cluster": "k"}},
            current="c",
        ),
    )
    assert load_config(env=env, service_account_dir=sa).host == "http://local:8080"
    with pytest.raises(ConfigError, match="not in a cluster"):
        load_config(env={"HOME": str(tmp_path / "empty")}, service_account_dir=tmp_path / "none")


def test_ssl_context_from_a_real_pki(tmp_path: Path) -> None:
    pki = ensure_pki(tmp_path / "pki", hosts=["localhost"], ips=["127.0.0.1"])
    config = Config(
        host="https://127.0.0.1:6443",
        ca_data=pki.ca_cert.read_bytes(),
        cert_data=pki.admin_cert.read_bytes(),
        key_data=pki.admin_key.read_bytes(),
    )
    context = config.ssl_context()
    assert context is not None
    assert (context.verify_mode, context.check_hostname) == (ssl.CERT_REQUIRED, True)
    insecure = Config(host="https://k", insecure_skip_tls_verify=True).ssl_context()
    assert insecure is not None and insecure.verify_mode == ssl.CERT_NONE
    assert Config(host="http://k").ssl_context() is None
    broken = Config(host="https://k", cert_data=b"not a cert", key_data=b"not a key")
    with pytest.raises(ConfigError, match="cannot be used"):
        broken.ssl_context()
