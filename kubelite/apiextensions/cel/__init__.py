"""CEL validation rules of CRDs (x-kubernetes-validations) with Kubernetes' CEL libraries and cost limits.

`SchemaRules.compile(schema, path)` compiles a version's openAPIV3Schema and returns kube's CRD-time errors;
`SchemaRules.validate(obj, old)` runs the rules on a custom resource. Modules: `decl` (the schema as CEL types
and sizes), `library` (kube's functions), `checked` (the checked AST), `cost` (estimates and runtime bounds),
`compile` (per-node programs and compile-time errors), `validator` (evaluation and its errors).
"""

from kubelite.apiextensions.cel.validator import SchemaRules

__all__ = ["SchemaRules"]
