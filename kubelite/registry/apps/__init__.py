"""apps/v1 resources."""
