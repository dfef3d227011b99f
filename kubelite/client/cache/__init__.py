"""The client-side cache (client-go's `tools/cache`): a Reflector lists and watches one resource into a queue
(RealFIFO by default, or DeltaFIFO), a SharedIndexInformer pops the queue into an Indexer and notifies handlers,
and Listers read the Indexer. SharedInformerFactory shares one informer per resource across a program."""

from kubelite.client.cache.delta_fifo import DeltaFIFO
from kubelite.client.cache.factory import GenericInformer, SharedInformerFactory
from kubelite.client.cache.fifo import Delta, DeltaType, FIFOClosedError, Queue
from kubelite.client.cache.handlers import (
    FilteringResourceEventHandler,
    ResourceEventHandler,
    ResourceEventHandlerFuncs,
    deleted_object,
)
from kubelite.client.cache.keys import (
    DeletedFinalStateUnknown,
    meta_namespace_key,
    split_meta_namespace_key,
)
from kubelite.client.cache.listers import Lister, NamespaceLister
from kubelite.client.cache.listwatch import ListerWatcher, ListOptions, ListWatch
from kubelite.client.cache.real_fifo import RealFIFO
from kubelite.client.cache.reflector import Reflector
from kubelite.client.cache.shared_informer import ResourceEventHandlerRegistration, SharedIndexInformer
from kubelite.client.cache.store import NAMESPACE_INDEX, Indexer, Store, meta_namespace_index_func
from kubelite.client.cache.wait import wait_for_cache_sync

__all__ = [
    "NAMESPACE_INDEX",
    "DeletedFinalStateUnknown",
    "Delta",
    "DeltaFIFO",
    "DeltaType",
    "FIFOClosedError",
    "FilteringResourceEventHandler",
    "GenericInformer",
    "Indexer",
    "ListOptions",
    "ListWatch",
    "Lister",
    "ListerWatcher",
    "NamespaceLister",
    "Queue",
    "RealFIFO",
    "Reflector",
    "ResourceEventHandler",
    "ResourceEventHandlerFuncs",
    "ResourceEventHandlerRegistration",
    "SharedIndexInformer",
    "SharedInformerFactory",
    "Store",
    "deleted_object",
    "meta_namespace_index_func",
    "meta_namespace_key",
    "split_meta_namespace_key",
    "wait_for_cache_sync",
]
