"""core/v1 resources: one module per resource that needs more than the default strategy."""
