"""kube-controller-manager's StatefulSet controller.

`identity` (members' names, labels, storage, states), `claims` (the claim retention policy as owner
references), `history` (ControllerRevisions: their data, hash, names and numbering) are pure; `control` is
one sync in kube's order, over the reads and writes it is handed; `controller` is the loop, over HTTP.
"""
