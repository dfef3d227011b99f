"""The HorizontalPodAutoscaler controller (kube's pkg/controller/podautoscaler)."""
