"""Converting custom resources between the versions their CRD serves (kube's pkg/apiserver/conversion).

`converter_for(crd, ...)` builds the converter of one CRD from its `spec.conversion`: strategy `None`
rewrites the apiVersion alone, strategy `Webhook` posts a ConversionReview to the CRD's conversion webhook
and checks what comes back. A failed conversion raises the `StatusError` kube's handler answers with.
"""

from kubelite.apiextensions.conversion.converter import (
    Converter,
    ServiceResolver,
    conversion_settings,
    converter_for,
)

__all__ = ["Converter", "ServiceResolver", "conversion_settings", "converter_for"]
