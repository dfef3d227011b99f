from __future__ import annotations

import json

from kubelite.controllers.statefulset import claims, history, identity


def stateful_set(**spec: object) -> dict:
    base = {
        "replicas": 3,
        "serviceName": "web",
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
        "podManagementPolicy": "OrderedReady",
        "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
        "revisionHistoryLimit": 10,
    }
    base.update(spec)
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "web", "namespace": "ns", "uid": "set-uid", "generation": 1},
        "spec": base,
    }


def pod_named(name: str) -> dict:
    return {"metadata": {"name": name, "namespace": "ns"}}


def test_ordinals_parse_as_kube_parses_them() -> None:
    assert identity.parent_and_ordinal(pod_named("web-0")) == ("web", 0)
    assert identity.parent_and_ordinal(pod_named("my-web-12")) == ("my-web", 12)
    assert identity.parent_and_ordinal(pod_named("web")) == ("", -1)
    assert identity.parent_and_ordinal(pod_named("web-x")) == ("", -1)
    # past int32 the ordinal does not parse, the parent does
    assert identity.parent_and_ordinal(pod_named("web-2147483648")) == ("web", -1)
    assert identity.parent_and_ordinal(pod_named("web-2147483647")) == ("web", 2147483647)


def test_ordinal_range_follows_the_start_ordinal() -> None:
    sts = stateful_set(replicas=2, ordinals={"start": 5})
    assert (identity.start_ordinal(sts), identity.end_ordinal(sts)) == (5, 6)
    assert [identity.in_ordinal_range(pod_named(f"web-{i}"), sts) for i in (4, 5, 6, 7)] == [False, True, True, False]


def test_a_new_member_has_its_identity_labels_and_claims() -> None:
    sts = stateful_set(
        volumeClaimTemplates=[
            {"metadata": {"name": "data", "labels": {"tier": "db"}}, "spec": {"accessModes": ["RWO"]}}
        ]
    )
    sts["spec"]["template"]["spec"]["volumes"] = [{"name": "data", "emptyDir": {}}, {"name": "cfg", "emptyDir": {}}]
    pod = identity.new_versioned_pod(sts, sts, "web-a", "web-b", 1)
    assert pod["metadata"]["name"] == "web-1"
    assert pod["metadata"]["generateName"] == "web-"
    assert pod["metadata"]["labels"] == {
        "app": "web",
        "statefulset.kubernetes.io/pod-name": "web-1",
        "apps.kubernetes.io/pod-index": "1",
        "controller-revision-hash": "web-b",
    }
    assert pod["metadata"]["ownerReferences"] == [
        {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "name": "web",
            "uid": "set-uid",
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    assert (pod["spec"]["hostname"], pod["spec"]["subdomain"]) == ("web-1", "web")
    # the claim's volume replaces the template's volume of that name
    assert pod["spec"]["volumes"] == [
        {"name": "data", "persistentVolumeClaim": {"claimName": "data-web-1"}},
        {"name": "cfg", "emptyDir": {}},
    ]
    assert identity.identity_matches(sts, pod) and identity.storage_matches(sts, pod)
    [(template, claim)] = identity.member_claims(sts, pod)
    assert template == "data"
    assert claim["metadata"] == {"name": "data-web-1", "namespace": "ns", "labels": {"tier": "db", "app": "web"}}


def test_members_below_the_partition_are_made_at_the_current_revision() -> None:
    current = stateful_set(updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 2}})
    update = json.loads(json.dumps(current))
    update["spec"]["template"]["spec"]["containers"][0]["image"] = "new"
    revisions = [identity.pod_revision(identity.new_versioned_pod(current, update, "cur", "upd", i)) for i in range(3)]
    assert revisions == ["cur", "cur", "upd"]
    images = [
        identity.new_versioned_pod(current, update, "cur", "upd", i)["spec"]["containers"][0]["image"] for i in range(3)
    ]
    assert images == ["i", "i", "new"]


# kube's own compatibility fixture (pkg/controller/statefulset/testdata, 1.34): its set and the revision named
_KUBE_TEMPLATE = {
    "metadata": {"labels": {"app": "foo"}, "annotations": {"test": "value"}},
    "spec": {
        "containers": [
            {
                "name": "test",
                "image": "test",
                "resources": {},
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
                "imagePullPolicy": "Always",
            }
        ],
        "restartPolicy": "Always",
        "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirst",
        "securityContext": {},
        "schedulerName": "default-scheduler",
    },
}
_KUBE_DATA = (
    b'{"spec":{"template":{"$patch":"replace","metadata":{"annotations":{"test":"value"},"labels":{"app":"foo"}},'
    b'"spec":{"containers":[{"image":"test","imagePullPolicy":"Always","name":"test","resources":{},'
    b'"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst",'
    b'"restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},'
    b'"terminationGracePeriodSeconds":30}}}}'
)


def test_a_revision_is_named_and_labelled_as_kube_names_it() -> None:
    sts = stateful_set(template=_KUBE_TEMPLATE)
    sts["metadata"]["name"] = "test"
    assert history.revision_patch(sts) == _KUBE_DATA
    revision = history.new_revision(sts, 2, 0)
    assert revision["metadata"]["name"] == "test-776999688b"
    assert revision["metadata"]["labels"] == {"app": "foo", "controller.kubernetes.io/hash": "776999688b"}
    assert revision["revision"] == 2
    assert history.revision_data(revision) == _KUBE_DATA
    # a collision count is part of the hash: the next name
    assert history.renamed(revision, sts, 1)["metadata"]["name"] == "test-776999688c"


def test_go_json_escapes_as_encoding_json() -> None:
    assert history.go_json({"b": "<a&b>", "a": [1, 2.5, None, True]}) == (
        b'{"a":[1,2.5,null,true],"b":"\\u003ca\\u0026b\\u003e"}'
    )
    assert history.fnv32(b"") == 0x811C9DC5


def test_applying_a_revision_restores_the_whole_template() -> None:
    old = stateful_set()
    revision = history.new_revision(old, 1, 0)
    changed = stateful_set()
    changed["spec"]["template"]["metadata"]["annotations"] = {"x": "y"}
    changed["spec"]["template"]["spec"]["containers"][0]["image"] = "other"
    restored = history.apply_revision(changed, revision)
    assert restored["spec"]["template"] == old["spec"]["template"]
    assert restored["spec"]["replicas"] == 3


def test_history_beyond_the_limit_goes_oldest_first_sparing_live_revisions() -> None:
    sts = stateful_set(revisionHistoryLimit=1)
    revisions = [{"metadata": {"name": f"web-{i}"}, "revision": i} for i in range(1, 6)]
    doomed = history.history_to_truncate(sts, ["web-2"], revisions, revisions[3], revisions[4])
    assert [r["metadata"]["name"] for r in doomed] == ["web-1"]
    assert history.history_to_truncate(stateful_set(revisionHistoryLimit=-1), [], revisions, None, None) == []


def test_revisions_sort_by_number_then_age_then_name() -> None:
    revisions = [
        {"metadata": {"name": "b", "creationTimestamp": "2026-01-01T00:00:00Z"}, "revision": 2},
        {"metadata": {"name": "c", "creationTimestamp": "2026-01-01T00:00:00Z"}, "revision": 1},
        {"metadata": {"name": "a", "creationTimestamp": "2026-01-01T00:00:00Z"}, "revision": 2},
    ]
    assert [r["metadata"]["name"] for r in history.sort_revisions(revisions)] == ["c", "a", "b"]


# -- claim retention -----------------------------------------------------------------------------------


def _claim(*refs: dict) -> dict:
    return {"metadata": {"name": "data-web-0", "ownerReferences": list(refs)}}


def _pod(name: str = "web-0", uid: str = "pod-uid") -> dict:
    return {"metadata": {"name": name, "namespace": "ns", "uid": uid}}


def test_retention_policies_as_owner_references() -> None:
    set_ref = identity.set_controller_ref(stateful_set())
    cases = {
        ("Retain", "Retain"): (False, False),
        ("Delete", "Retain"): (True, False),
        ("Retain", "Delete"): (False, False),
        ("Delete", "Delete"): (True, False),
    }
    for (when_deleted, when_scaled), (on_set, on_pod) in cases.items():
        sts = stateful_set(
            persistentVolumeClaimRetentionPolicy={"whenDeleted": when_deleted, "whenScaled": when_scaled}
        )
        updated = claims.updated_claim_owners(_claim(), sts, _pod())
        refs = updated["metadata"].get("ownerReferences", [])
        assert (set_ref in refs, any(r["kind"] == "Pod" for r in refs)) == (on_set, on_pod)
        assert claims.claim_owner_up_to_date(updated, sts, _pod())
    # scaled down (web-5 of 3 replicas): the pod owns the claim when scale down deletes
    sts = stateful_set(persistentVolumeClaimRetentionPolicy={"whenDeleted": "Delete", "whenScaled": "Delete"})
    condemned = _pod("web-5")
    assert not claims.claim_owner_up_to_date(_claim(set_ref), sts, condemned)
    refs = claims.updated_claim_owners(_claim(set_ref), sts, condemned)["metadata"]["ownerReferences"]
    assert refs == [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "name": "web-5",
            "uid": "pod-uid",
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]


def test_a_predecessors_claim_is_stale_and_left_alone() -> None:
    sts = stateful_set(persistentVolumeClaimRetentionPolicy={"whenDeleted": "Retain", "whenScaled": "Delete"})
    old_ref = {"apiVersion": "v1", "kind": "Pod", "name": "web-0", "uid": "old", "controller": True}
    assert claims.claim_is_stale(_claim(old_ref), sts, _pod(uid="new"))
    assert claims.claim_owner_up_to_date(_claim(old_ref), sts, _pod(uid="new"))
    retain = stateful_set()
    assert not claims.claim_is_stale(_claim(old_ref), retain, _pod(uid="new"))
