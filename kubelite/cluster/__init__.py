"""The rest of a cluster, simulated: the scheduler and the nodes with their kubelets. Each is a component of its
own that talks to the API server only through the API (kubelite.client), with its own identity, as
kube-scheduler and the kubelet do."""
