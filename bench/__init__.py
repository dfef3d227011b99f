"""kubelite's benchmark suite: `python -m bench` (see bench/__main__.py and docs/performance.md)."""
