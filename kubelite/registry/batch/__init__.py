"""batch/v1 resources."""
