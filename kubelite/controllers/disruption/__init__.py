"""kube's disruption controller: PodDisruptionBudgets' status."""
