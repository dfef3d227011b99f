"""Validation and defaults of the built-in kinds as kubectl users meet them: `create -f` of an invalid object
prints kube's `The Pod "x" is invalid: ...` lines, a bad quantity is refused at decoding, and `get -o yaml`
right after a create shows the object as a real API server defaults it (no controllers running).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from tests.e2e.server import KubeliteProcess
from tests.e2e.test_kubectl_support import create_namespace

NS = "validation"
_VOLATILE = ("creationTimestamp", "resourceVersion", "uid", "managedFields")


@pytest.fixture(scope="module")
def ns(server: KubeliteProcess) -> str:
    create_namespace(server, NS)
    return NS


def _apply_input(server: KubeliteProcess, verb: str, manifest: str) -> tuple[int, str, str]:
    result = server.kubectl(verb, "-n", NS, "-f", "-", input=manifest, check=False)
    return result.returncode, result.stdout, result.stderr


def _stable(obj: dict[str, Any]) -> dict[str, Any]:
    """The object without what differs from run to run (uid, times, versions, generated names)."""
    meta = obj["metadata"]
    for key in _VOLATILE:
        meta.pop(key, None)
    text = yaml.safe_dump(obj, sort_keys=True)
    return yaml.safe_load(re.sub(r"kube-api-access-[a-z0-9]{5}", "kube-api-access-xxxxx", text))


def test_invalid_pod_lists_every_cause(server: KubeliteProcess, ns: str) -> None:
    manifest = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: bad\nspec:\n  restartPolicy: Sometimes\n  containers:\n"
        "  - name: Web_1\n    ports:\n    - containerPort: 0\n"
    )
    code, _, stderr = _apply_input(server, "create", manifest)
    assert code == 1
    assert stderr == (
        'The Pod "bad" is invalid: \n'
        '* spec.containers[0].name: Invalid value: "Web_1": a lowercase RFC 1123 label must consist of lower case '
        "alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  "
        "or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\n"
        "* spec.containers[0].image: Required value\n"
        "* spec.containers[0].ports[0].containerPort: Required value\n"
        '* spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"\n'
    )


def test_invalid_pod_with_one_cause(server: KubeliteProcess, ns: str) -> None:
    manifest = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: noimage\nspec:\n  containers:\n  - name: web\n"
    code, _, stderr = _apply_input(server, "create", manifest)
    assert (code, stderr) == (1, 'The Pod "noimage" is invalid: spec.containers[0].image: Required value\n')


def test_requests_above_limits(server: KubeliteProcess, ns: str) -> None:
    manifest = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: greedy\nspec:\n  containers:\n  - name: web\n"
        "    image: nginx\n    resources:\n      limits:\n        cpu: 1\n      requests:\n        cpu: 1500m\n"
    )
    code, _, stderr = _apply_input(server, "create", manifest)
    assert (code, stderr) == (
        1,
        'The Pod "greedy" is invalid: spec.containers[0].resources.requests: Invalid value: "1500m": must be less '
        "than or equal to cpu limit of 1\n",
    )


def test_bad_quantity_is_a_decode_error(server: KubeliteProcess, ns: str) -> None:
    manifest = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: cores\nspec:\n  containers:\n  - name: web\n"
        "    image: nginx\n    resources:\n      limits:\n        cpu: 2 cores\n"
    )
    code, _, stderr = _apply_input(server, "create", manifest)
    assert (code, stderr) == (
        1,
        'Error from server (BadRequest): error when creating "STDIN": Pod in version "v1" cannot be handled as a '
        "Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'\n",
    )


def test_deployment_selector_must_match(server: KubeliteProcess, ns: str) -> None:
    manifest = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: mismatch\nspec:\n  selector:\n"
        "    matchLabels:\n      app: api\n  template:\n    metadata:\n      labels:\n        app: web\n"
        "    spec:\n      containers:\n      - name: web\n        image: nginx\n"
    )
    code, _, stderr = _apply_input(server, "create", manifest)
    assert (code, stderr) == (
        1,
        'The Deployment "mismatch" is invalid: spec.template.metadata.labels: Invalid value: {"app":"web"}: '
        "`selector` does not match template `labels`\n",
    )


def test_job_needs_a_restart_policy(server: KubeliteProcess, ns: str) -> None:
    manifest = (
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: pi\nspec:\n  template:\n    spec:\n"
        "      containers:\n      - name: pi\n        image: perl\n"
    )
    code, _, stderr = _apply_input(server, "create", manifest)
    assert (code, stderr) == (
        1,
        'The Job "pi" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", '
        '"Never"\n',
    )


def test_pod_defaults_as_yaml(server: KubeliteProcess, ns: str) -> None:
    manifest = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: web\n"
        "    image: nginx:1.27\n    ports:\n    - containerPort: 80\n    resources:\n      limits:\n"
        '        cpu: "0.5"\n        memory: 1024Mi\n    livenessProbe:\n      httpGet:\n        port: 80\n'
        "  volumes:\n  - name: config\n    configMap:\n      name: web\n"
    )
    assert _apply_input(server, "create", manifest)[:2] == (0, "pod/web created\n")
    got = yaml.safe_load(server.kubectl("get", "-n", ns, "pod", "web", "-o", "yaml").stdout)
    expected = yaml.safe_load(
        f"""
apiVersion: v1
kind: Pod
metadata:
  generation: 1
  name: web
  namespace: {ns}
spec:
  containers:
  - image: nginx:1.27
    imagePullPolicy: IfNotPresent
    livenessProbe:
      failureThreshold: 3
      httpGet:
        path: /
        port: 80
        scheme: HTTP
      periodSeconds: 10
      successThreshold: 1
      timeoutSeconds: 1
    name: web
    ports:
    - containerPort: 80
      protocol: TCP
    resources:
      limits:
        cpu: 500m
        memory: 1Gi
      requests:
        cpu: 500m
        memory: 1Gi
    terminationMessagePath: /dev/termination-log
    terminationMessagePolicy: File
    volumeMounts:
    - mountPath: /var/run/secrets/kubernetes.io/serviceaccount
      name: kube-api-access-xxxxx
      readOnly: true
  dnsPolicy: ClusterFirst
  enableServiceLinks: true
  preemptionPolicy: PreemptLowerPriority
  priority: 0
  restartPolicy: Always
  schedulerName: default-scheduler
  securityContext: {{}}
  serviceAccount: default
  serviceAccountName: default
  terminationGracePeriodSeconds: 30
  tolerations:
  - effect: NoExecute
    key: node.kubernetes.io/not-ready
    operator: Exists
    tolerationSeconds: 300
  - effect: NoExecute
    key: node.kubernetes.io/unreachable
    operator: Exists
    tolerationSeconds: 300
  volumes:
  - configMap:
      defaultMode: 420
      name: web
    name: config
  - name: kube-api-access-xxxxx
    projected:
      defaultMode: 420
      sources:
      - serviceAccountToken:
          expirationSeconds: 3607
          path: token
      - configMap:
          items:
          - key: ca.crt
            path: ca.crt
          name: kube-root-ca.crt
      - downwardAPI:
          items:
          - fieldRef:
              apiVersion: v1
              fieldPath: metadata.namespace
            path: namespace
status:
  phase: Pending
  qosClass: Guaranteed
"""
    )
    assert _stable(got) == expected


def test_deployment_defaults_as_yaml(server: KubeliteProcess, ns: str) -> None:
    assert server.kubectl("create", "-n", ns, "deployment", "app", "--image=nginx").stdout == (
        "deployment.apps/app created\n"
    )
    got = _stable(yaml.safe_load(server.kubectl("get", "-n", ns, "deployment", "app", "-o", "yaml").stdout))
    got["spec"]["template"]["metadata"].pop("creationTimestamp", None)
    assert got == yaml.safe_load(
        f"""
apiVersion: apps/v1
kind: Deployment
metadata:
  generation: 1
  labels:
    app: app
  name: app
  namespace: {ns}
spec:
  progressDeadlineSeconds: 600
  replicas: 1
  revisionHistoryLimit: 10
  selector:
    matchLabels:
      app: app
  strategy:
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 25%
    type: RollingUpdate
  template:
    metadata:
      labels:
        app: app
    spec:
      containers:
      - image: nginx
        imagePullPolicy: Always
        name: nginx
        resources: {{}}
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File
      dnsPolicy: ClusterFirst
      restartPolicy: Always
      schedulerName: default-scheduler
      securityContext: {{}}
      terminationGracePeriodSeconds: 30
status: {{}}
"""
    )


def test_service_defaults_as_yaml(server: KubeliteProcess, ns: str) -> None:
    assert server.kubectl("create", "-n", ns, "service", "nodeport", "edge", "--tcp=80:8080").stdout == (
        "service/edge created\n"
    )
    got = _stable(yaml.safe_load(server.kubectl("get", "-n", ns, "service", "edge", "-o", "yaml").stdout))
    cluster_ip = got["spec"].pop("clusterIP")
    assert got["spec"].pop("clusterIPs") == [cluster_ip]
    node_port = got["spec"]["ports"][0].pop("nodePort")
    assert 30000 <= node_port <= 32767
    assert got == yaml.safe_load(
        f"""
apiVersion: v1
kind: Service
metadata:
  labels:
    app: edge
  name: edge
  namespace: {ns}
spec:
  externalTrafficPolicy: Cluster
  internalTrafficPolicy: Cluster
  ipFamilies:
  - IPv4
  ipFamilyPolicy: SingleStack
  ports:
  - name: 80-8080
    port: 80
    protocol: TCP
    targetPort: 8080
  selector:
    app: edge
  sessionAffinity: None
  type: NodePort
status:
  loadBalancer: {{}}
"""
    )


def test_cluster_ip_may_not_change(server: KubeliteProcess, ns: str) -> None:
    server.kubectl("create", "-n", ns, "service", "clusterip", "fixed", "--tcp=80:80")
    service = yaml.safe_load(server.kubectl("get", "-n", ns, "service", "fixed", "-o", "yaml").stdout)
    old_ip = service["spec"]["clusterIP"]
    octets = old_ip.split(".")
    moved = ".".join([*octets[:3], str((int(octets[3]) + 1) % 250 + 2)])
    service["spec"]["clusterIP"] = moved
    service["spec"]["clusterIPs"] = [moved]
    result = server.kubectl("replace", "-f", "-", input=yaml.safe_dump(service), check=False)
    assert (result.returncode, result.stderr) == (
        1,
        f'The Service "fixed" is invalid: spec.clusterIPs[0]: Invalid value: ["{moved}"]: may not change once set\n',
    )


def test_pod_spec_is_mostly_immutable(server: KubeliteProcess, ns: str) -> None:
    manifest = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: fixed\nspec:\n  containers:\n  - name: web\n    image: nginx\n"
    )
    assert _apply_input(server, "create", manifest)[0] == 0
    image = server.kubectl("set", "image", "-n", ns, "pod/fixed", "web=nginx:1.27")
    assert image.stdout == "pod/fixed image updated\n"
    result = server.kubectl("patch", "-n", ns, "pod", "fixed", "-p", '{"spec":{"restartPolicy":"Never"}}', check=False)
    assert result.returncode == 1
    first = result.stderr.splitlines()[0]
    assert first == (
        'The Pod "fixed" is invalid: spec: Forbidden: pod updates may not change fields other than '
        "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
        "`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` "
        "(allow it to be set to 1 if it was previously negative)"
    )
