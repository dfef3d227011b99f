"""kube-controller-manager's Endpoints and EndpointSlice controllers.

Both publish the pods a Service's selector picks: `endpoints.py` decides the v1 Endpoints object (subsets of
ready and not-ready addresses, capped at 1000), `endpointslices.py` the discovery/v1 EndpointSlices (at most
100 endpoints each, grouped by the ports they resolve to). `pods.py` holds what both read off pods and
Services. The decisions are pure; `endpoints_controller.py` and `endpointslice_controller.py` are the loops
that feed them from informers and write their results over HTTP as `system:kube-controller-manager`.
"""
