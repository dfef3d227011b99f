"""policy/v1 resources."""
