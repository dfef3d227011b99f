"""Patch algorithms: JSON patch (RFC 6902) and JSON merge patch (RFC 7386)."""
