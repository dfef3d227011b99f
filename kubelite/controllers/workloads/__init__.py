"""kube-controller-manager's Deployment and ReplicaSet controllers, their logic first.

Pure functions over objects as the API serves them: `template_hash` (the pod-template-hash), `controller_utils`
(pods, ranking, expectations, slow start), `replicaset` and `deployment` (one sync each, returned as data:
the writes to make in order, the events to record, when to look again), `deployment_util` (the Deployment's
arithmetic and conditions), `actions` (that data's vocabulary). The reconcile loops that feed them from
informers and carry their plans out through the API come on top.
"""
