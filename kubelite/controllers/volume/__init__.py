"""Persistent volumes: kube's persistentvolume binder (`binder.py`, `binder_controller.py`) and a simulated
provisioner for kubelite's default StorageClass (`provisioner.py`, `provisioner_controller.py`).

The decisions are pure functions of the objects the informers hold; the loops apply them over HTTP.
"""
