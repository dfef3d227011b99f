"""autoscaling/v2 resources."""
