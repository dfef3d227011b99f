"""The watch cache (kube's cacher): one storage watch per resource feeds memory that serves lists and watches."""

from kubelite.storage.cacher.cacher import Cacher
from kubelite.storage.cacher.watcher import CacheWatcher
from kubelite.storage.interface import WatchRequest

__all__ = ["CacheWatcher", "Cacher", "WatchRequest"]
