"""Events about objects (client-go's `tools/record`): see recorder.py."""

from kubelite.client.record.recorder import EventRecorder, object_reference

__all__ = ["EventRecorder", "object_reference"]
