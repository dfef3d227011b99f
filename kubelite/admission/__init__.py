"""Admission: the chain of plugins that may mutate, then validate, every write (kube's `admission`)."""

from kubelite.admission.chain import AdmissionChain, Attributes

__all__ = ["AdmissionChain", "Attributes"]
