"""kubeconfig files: finding them, merging several, and resolving one context into cluster + user + namespace.

The rules are clientcmd's (`k8s.io/client-go/tools/clientcmd/loader.go`), because users rely on them:
- an explicit path must exist; otherwise `KUBECONFIG` (a list split like PATH) names the files, and missing
  ones are skipped; otherwise `~/.kube/config`, if it exists;
- when merging, the first file that defines a cluster, user or context name wins, and the entries are never
  merged field by field; `current-context` comes from the first file that sets one;
- relative file paths inside a file are relative to that file's directory.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from kubelite.client.errors import ConfigError

#: keys in a cluster or user entry that hold file paths (resolved against the file's directory)
_PATH_KEYS = ("certificate-authority", "client-certificate", "client-key", "tokenFile")


@dataclass
class Kubeconfig:
    """The merged content of one or more kubeconfig files, entries keyed by name."""

    clusters: dict[str, dict[str, Any]] = field(default_factory=dict)
    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    contexts: dict[str, dict[str, Any]] = field(default_factory=dict)
    current_context: str = ""
    #: the files that were read, in merge order
    sources: list[str] = field(default_factory=list)

    def merge(self, other: Kubeconfig) -> None:
        """Fold in a later file: names already present are kept (first one wins)."""
        for mine, theirs in (
            (self.clusters, other.clusters),
            (self.users, other.users),
            (self.contexts, other.contexts),
        ):
            for name, entry in theirs.items():
                mine.setdefault(name, entry)
        if not self.current_context:
            self.current_context = other.current_context
        self.sources.extend(other.sources)


def parse_kubeconfig(text: str, *, base_dir: Path | None = None, source: str = "<memory>") -> Kubeconfig:
    """One file's content; relative paths are made absolute against `base_dir`."""
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"error loading config file {source!r}: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"error loading config file {source!r}: not a kubeconfig mapping")
    result = Kubeconfig(current_context=str(data.get("current-context") or ""), sources=[source])
    for list_key, target, inner in (
        ("clusters", result.clusters, "cluster"),
        ("users", result.users, "user"),
        ("contexts", result.contexts, "context"),
    ):
        for entry in data.get(list_key) or []:
            if not isinstance(entry, dict) or not entry.get("name"):
                raise ConfigError(
                    f"error loading config file {source!r}: every entry of {list_key} needs a name"
                )
            body = dict(entry.get(inner) or {})
            if base_dir is not None:
                for key in _PATH_KEYS:
                    value = body.get(key)
                    if value and not os.path.isabs(value):
                        body[key] = str(base_dir / value)
            target.setdefault(str(entry["name"]), body)
    return result


def kubeconfig_paths(
    explicit: str | os.PathLike[str] | None = None, *, env: Mapping[str, str] | None = None
) -> list[Path]:
    """The files to read, in merge order (may be empty)."""
    environ = os.environ if env is None else env
    if explicit:
        path = Path(explicit).expanduser()
        if not path.exists():
            raise ConfigError(f"stat {path}: no such file or directory")
        return [path]
    listed = environ.get("KUBECONFIG", "")
    if listed:
        seen: list[Path] = []
        for part in listed.split(os.pathsep):
            if part and Path(part).expanduser() not in seen:
                seen.append(Path(part).expanduser())
        return [path for path in seen if path.exists()]
    home = environ.get("HOME") or str(Path.home())
    default = Path(home) / ".kube" / "config"
    return [default] if default.exists() else []


def load_kubeconfig(paths: Sequence[str | os.PathLike[str]]) -> Kubeconfig:
    """Read and merge the files, first wins."""
    merged = Kubeconfig()
    for raw in paths:
        path = Path(raw)
        try:
            text = path.read_text()
        except OSError as exc:
            raise ConfigError(f"error loading config file {str(path)!r}: {exc.strerror}") from exc
        merged.merge(parse_kubeconfig(text, base_dir=path.resolve().parent, source=str(path)))
    return merged


@dataclass(frozen=True)
class ResolvedContext:
    """What a context points at: the three entries a client config is built from."""

    context_name: str
    cluster: dict[str, Any]
    user: dict[str, Any]
    namespace: str


def resolve_context(config: Kubeconfig, context: str | None = None) -> ResolvedContext:
    name = context or config.current_context
    if not name:
        if not config.contexts:
            raise ConfigError(
                "invalid configuration: no configuration has been provided, try setting KUBECONFIG"
            )
        raise ConfigError(
            "invalid configuration: no context chosen: set current-context or pass a context name"
        )
    entry = config.contexts.get(name)
    if entry is None:
        raise ConfigError(f"context was not found for specified context: {name}")
    cluster_name = str(entry.get("cluster") or "")
    cluster = config.clusters.get(cluster_name)
    if cluster is None:
        raise ConfigError(f'invalid configuration: context "{name}": cluster "{cluster_name}" was not found')
    user_name = str(entry.get("user") or "")
    user = config.users.get(user_name, {}) if user_name else {}
    if user_name and user_name not in config.users:
        raise ConfigError(f'invalid configuration: context "{name}": user "{user_name}" was not found')
    return ResolvedContext(name, cluster, user, str(entry.get("namespace") or "default"))
