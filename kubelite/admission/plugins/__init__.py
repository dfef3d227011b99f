"""Built-in admission plugins."""
