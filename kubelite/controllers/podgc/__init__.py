"""kube-controller-manager's pod garbage collector (pkg/controller/podgc)."""
