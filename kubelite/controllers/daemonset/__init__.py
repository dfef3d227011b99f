"""kube-controller-manager's DaemonSet controller (kube's pkg/controller/daemon).

`placement` (which nodes a daemon pod belongs on, the tolerations and node affinity of the pods it makes),
`history` (ControllerRevisions), `sync` (one sync's decisions: manage, rolling update, status) and `backoff`
are pure; `controller` is the loop that feeds them from informers and carries them out over HTTP.
"""
