"""kube-controller-manager's certificate controllers (pkg/controller/certificates)."""
