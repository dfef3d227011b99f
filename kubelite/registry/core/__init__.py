"""core/v1 resources: one module per resource, holding its strategy and its storage's registration."""
