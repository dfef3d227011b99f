"""kube-controller-manager's node lifecycle and taint eviction controllers: node health from heartbeats and
Leases (`health`), the taints that follow it (`taints`, `tainter`), what is written to pods (`pods`), and
when a pod on a NoExecute-tainted node goes (`eviction`); the loops over HTTP are `controller` and
`taint_eviction`."""
