"""The simulated kubelet: what a node's kubelet registers, renews and reports, as pure functions of time.

Nothing here talks to the API server. Each module answers one question for the loop that will (the node agent):
`node` builds and refreshes the Node object, `lease` the node's heartbeat Lease, `ip_allocator` hands out node
pod CIDRs and pod IPs, `pod_lifecycle` turns a bound pod, its node and what happened so far into the next status to
report and when to look again (with `container_status` for each container's entry, `pod_conditions` for the phase
and conditions, `qos` for the QoS class), `simulation` reads the `sim.kubelite.io/` annotations that steer a
simulated container, `container_runs` replays one container's runs and restarts, `events` shapes the kubelet's
Events, `identity` makes the stable fake identifiers (machine IDs, container IDs, image digests).
"""
