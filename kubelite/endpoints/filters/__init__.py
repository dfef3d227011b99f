"""API filters: what every request passes before the director (kube's `endpoints/filters`).

A filter is `(next_handler) -> handler`, composed once at start-up into one handler (`chain.build_chain`), in
the request order `chain.default_filters` lists. A filter that only looks at the request before passing it
on returns `next_handler(request)` without awaiting it, so it costs a function call rather than a coroutine.
"""
