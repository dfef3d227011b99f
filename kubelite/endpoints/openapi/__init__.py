"""The OpenAPI documents kube-apiserver serves at /openapi/v3 and /openapi/v2, for kubelite's resources.

kubectl depends on them: `create -f`, `apply`, `replace` and `edit` check a kind's PATCH operation for
`fieldValidation` before trusting the server to validate, client-side `apply` takes list merge keys from
the schemas, and `explain` prints them. The documents are built from the resource catalog and the v1.36
type schemas of the kubernetes-validate package; see builder.py for when and how they are built.
"""

from kubelite.endpoints.openapi.builder import KUBERNETES_VERSION, OpenAPIBuilder, Reply, etag

__all__ = ["KUBERNETES_VERSION", "OpenAPIBuilder", "Reply", "etag"]
