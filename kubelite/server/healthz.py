"""/healthz, /livez, /readyz with their named checks and `?verbose`, and /version."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

from kubelite.server.config import KUBERNETES_VERSION

Check = Callable[[], Awaitable[bool]]


def version_info() -> dict[str, str]:
    major, minor, _ = KUBERNETES_VERSION.lstrip("v").split(".")
    return {
        "major": major,
        "minor": minor,
        "emulationMajor": major,
        "emulationMinor": minor,
        "minCompatibilityMajor": major,
        "minCompatibilityMinor": str(int(minor) - 1),
        "gitVersion": KUBERNETES_VERSION + "+kubelite",
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2026-01-01T00:00:00Z",
        "goVersion": "go1.25.0",
        "compiler": "gc",
        "platform": "linux/amd64",
    }


class HealthChecks:
    def __init__(self, checks: dict[str, Check]) -> None:
        self.checks = checks

    async def handle(self, request: web.Request) -> web.Response:
        kind = request.path.strip("/").split("/")[0]  # healthz, livez or readyz
        parts = request.path.strip("/").split("/")
        if len(parts) == 2:  # a single named check
            check = self.checks.get(parts[1])
            if check is None:
                return web.Response(status=404, text="404 page not found\n")
            ok = await check()
            return web.Response(
                status=200 if ok else 500, text="ok" if ok else f"internal server error: {parts[1]} failed\n"
            )
        excluded = set(request.query.getall("exclude", []))
        lines, healthy = [], True
        for name, check in self.checks.items():
            if name in excluded:
                lines.append(f"[+]{name} excluded: ok")
                continue
            ok = await check()
            healthy &= ok
            lines.append(f"[+]{name} ok" if ok else f"[-]{name} failed: reason withheld")
        if "verbose" in request.query or not healthy:
            verdict = f"{kind} check passed" if healthy else f"{kind} check failed"
            body = "\n".join(lines) + "\n" + verdict + "\n"
            return web.Response(status=200 if healthy else 500, text=body, headers=_NOSNIFF)
        return web.Response(text="ok", headers=_NOSNIFF)


#: kube's health handlers forbid content sniffing of their plain-text answers
_NOSNIFF = {"X-Content-Type-Options": "nosniff"}
