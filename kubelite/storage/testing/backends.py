"""Every `Storage` implementation the conformance suite runs against, by name.

Each entry opens a store in a directory, the same store at every call (so a case can close it and open it
again). A new backend is one more line in `IMPLEMENTATIONS`; tests parametrise over it with
`pytest.mark.parametrize("backend", sorted(IMPLEMENTATIONS))`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from kubelite.storage.cacher import Cacher
from kubelite.storage.interface import Storage
from kubelite.storage.sqlite import SQLiteStorage
from kubelite.storage.testing.fake import FaultyStorage

Opener = Callable[[Path], Awaitable[Storage]]


class OwningCacher(Cacher):
    """A watch cache over every key that closes its storage with itself, so it can stand in for a store."""

    async def close(self) -> None:
        await super().close()
        await self.storage.close()


async def open_sqlite(directory: Path) -> Storage:
    return await SQLiteStorage.open(directory)


async def open_cacher_over_sqlite(directory: Path) -> Storage:
    cacher = OwningCacher(await SQLiteStorage.open(directory), "/registry/")
    await cacher.start()
    return cacher


async def open_fake_over_sqlite(directory: Path) -> Storage:
    return FaultyStorage(await SQLiteStorage.open(directory))


#: name -> opener; the etcd backend will be the next line
IMPLEMENTATIONS: dict[str, Opener] = {
    "sqlite": open_sqlite,
    "cacher": open_cacher_over_sqlite,
    "fake": open_fake_over_sqlite,
}
