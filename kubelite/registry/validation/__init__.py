"""Semantic validation of the built-in kinds (kube's `pkg/apis/*/validation`), with kube's field paths and
messages, plus the decode-time work kube does on quantities before any validation runs.

Each module covers one family of kinds; strategies call them from `validate` and `validate_update`. The
functions take plain dicts as stored and never raise for malformed shapes: a value of the wrong type is
treated as absent, because the request decoder has already refused real type errors.
"""
