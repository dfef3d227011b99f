"""The watch cache (kube's cacher): one storage watch per resource feeds memory that serves lists and watches."""

from kubelite.storage.cacher.cacher import Cacher, CacheWatcher, WatchRequest

__all__ = ["CacheWatcher", "Cacher", "WatchRequest"]
