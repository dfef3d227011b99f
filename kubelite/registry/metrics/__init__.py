"""metrics.k8s.io: the resource metrics API metrics-server serves, computed here from the stored pods."""
