"""The files behind `/swagger-ui/`: our page, and Swagger UI's scripts and styles from an installed package.

The server has no internet at run time, so the page cannot load Swagger UI from a CDN; its assets come
from a PyPI package that ships them. `openapi-ui-bundles` (no dependencies) is looked for first, then
`swagger-ui-bundle` (or its fork `swagger-ui-bundle-v2`), whichever is installed. Without either, the
page still loads and links to the raw documents.
"""

from __future__ import annotations

import importlib.resources
import mimetypes
from functools import cache
from importlib.resources.abc import Traversable

#: the assets the page loads; nothing else is served, so a request cannot walk the package tree
ASSETS = (
    "swagger-ui.css",
    "swagger-ui-bundle.js",
    "swagger-ui-standalone-preset.js",
    "favicon-16x16.png",
    "favicon-32x32.png",
)

_CONTENT_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}


def page() -> bytes:
    """The Swagger UI page (kubelite/endpoints/swagger_ui.html)."""
    return importlib.resources.files("kubelite.endpoints").joinpath("swagger_ui.html").read_bytes()


@cache
def _asset_dir() -> Traversable | None:
    try:
        return importlib.resources.files("openapi_ui_bundles").joinpath("swagger_ui", "vendor")
    except ModuleNotFoundError:
        pass
    try:
        import swagger_ui_bundle
    except ModuleNotFoundError:
        return None
    # the package names its directory after the bundled Swagger UI version
    path: Traversable = swagger_ui_bundle.swagger_ui_path
    return path


def asset(name: str) -> tuple[bytes, str] | None:
    """A Swagger UI asset and its content type; None for an unknown name or when no bundle is installed."""
    if name not in ASSETS:
        return None
    directory = _asset_dir()
    if directory is None:
        return None
    file = directory.joinpath(name)
    if not file.is_file():
        return None
    suffix = name[name.rfind(".") :]
    content_type = _CONTENT_TYPES.get(suffix) or mimetypes.guess_type(name)[0] or "application/octet-stream"
    return file.read_bytes(), content_type
