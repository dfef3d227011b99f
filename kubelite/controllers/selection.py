"""Which controllers run: kube-controller-manager's `--controllers` flag.

The flag is a list: `*` enables every controller that is on by default, `name` enables that controller, `-name`
disables it; the first entry that names a controller decides, and without `*` only the named ones run. Names
are kube's current ones (`deployment-controller`) and their older short aliases (`deployment`), as
kube-controller-manager accepts both. An unknown name is refused at start with kube's message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass


class UnknownControllerError(ValueError):
    pass


@dataclass(frozen=True)
class ControllerSelection:
    entries: tuple[str, ...]
    disabled_by_default: frozenset[str] = frozenset()

    @classmethod
    def parse(
        cls,
        flag: Sequence[str] | str,
        *,
        known: Iterable[str],
        aliases: Mapping[str, str] | None = None,
        disabled_by_default: Iterable[str] = (),
    ) -> ControllerSelection:
        """The selection a `--controllers` value makes; raises `UnknownControllerError` for a name that is
        neither a known controller nor an alias of one."""
        if isinstance(flag, str):
            flag = [part.strip() for part in flag.split(",") if part.strip()]
        names = set(known)
        aliases = aliases or {}
        entries: list[str] = []
        for entry in flag:
            if entry == "*":
                entries.append(entry)
                continue
            negated = entry.startswith("-")
            name = entry[1:] if negated else entry
            name = aliases.get(name, name)
            if name not in names:
                raise UnknownControllerError(f"{name!r} is not in the list of known controllers")
            entries.append(("-" if negated else "") + name)
        return cls(tuple(entries), frozenset(disabled_by_default))

    def enabled(self, name: str) -> bool:
        star = False
        for entry in self.entries:
            if entry == name:
                return True
            if entry == "-" + name:
                return False
            if entry == "*":
                star = True
        return star and name not in self.disabled_by_default


#: every controller on by default
ALL = ControllerSelection(("*",))
