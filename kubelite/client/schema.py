"""Group/version/resource and group/version/kind names, and the URL paths they map to."""

from __future__ import annotations

from dataclasses import dataclass


def split_api_version(api_version: str) -> tuple[str, str]:
    """`apps/v1` -> ("apps", "v1"); `v1` -> ("", "v1")."""
    group, _, version = api_version.rpartition("/")
    return group, version


@dataclass(frozen=True, slots=True)
class GroupVersionResource:
    group: str
    version: str
    resource: str

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def __str__(self) -> str:
        return (
            f"{self.resource}.{self.version}.{self.group}"
            if self.group
            else f"{self.resource}.{self.version}"
        )

    def collection_path(self, namespace: str | None = None) -> str:
        """`/api/v1/namespaces/ns/pods`, `/apis/apps/v1/deployments`, ..."""
        root = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if namespace:
            return f"{root}/namespaces/{namespace}/{self.resource}"
        return f"{root}/{self.resource}"

    def object_path(self, name: str, namespace: str | None = None, subresource: str | None = None) -> str:
        path = f"{self.collection_path(namespace)}/{name}"
        return f"{path}/{subresource}" if subresource else path


@dataclass(frozen=True, slots=True)
class GroupVersionKind:
    group: str
    version: str
    kind: str

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @staticmethod
    def of(api_version: str, kind: str) -> GroupVersionKind:
        group, version = split_api_version(api_version)
        return GroupVersionKind(group, version, kind)
