"""The resource quota controller (kube's pkg/controller/resourcequota) and the usage evaluators it shares with
the ResourceQuota admission plugin (kube's pkg/quota/v1)."""
