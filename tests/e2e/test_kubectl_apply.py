"""Client-side `kubectl apply` (three-way strategic merge with last-applied-configuration), `diff`, `edit`,
`patch` of every type, `set image`, `label --overwrite` and `rollout pause/resume`, as on Kubernetes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.server import KubeliteProcess
from tests.e2e.test_kubectl_support import create_namespace

NS = "applied"

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: applied
  labels: {{app: {name}, tier: fe}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        env:
        - {{name: A, value: "1"}}
        - {{name: B, value: "2"}}
        ports: [{{containerPort: 80}}]
{extra}"""


@pytest.fixture(scope="module", autouse=True)
def _namespace(server: KubeliteProcess) -> None:
    create_namespace(server, NS)


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    return str(path)


def _get(server: KubeliteProcess, kind: str, name: str) -> dict:  # type: ignore[type-arg]
    return json.loads(server.kubectl("get", "-n", NS, kind, name, "-o", "json").stdout)


def test_apply_twice_is_a_no_op(server: KubeliteProcess, tmp_path: Path) -> None:
    path = _write(tmp_path, "d", DEPLOYMENT.format(name="twice", extra=""))
    assert server.kubectl("apply", "-f", path).stdout == "deployment.apps/twice created\n"
    before = _get(server, "deployment", "twice")["metadata"]["resourceVersion"]
    assert server.kubectl("apply", "-f", path).stdout == "deployment.apps/twice unchanged\n"
    assert _get(server, "deployment", "twice")["metadata"]["resourceVersion"] == before


def test_removing_fields_from_the_file_removes_them(server: KubeliteProcess, tmp_path: Path) -> None:
    first = DEPLOYMENT.format(name="shrink", extra="")
    server.kubectl("apply", "-f", _write(tmp_path, "first", first))
    second = first.replace(", tier: fe", "").replace('        - {name: B, value: "2"}\n', "")
    assert server.kubectl("apply", "-f", _write(tmp_path, "second", second)).stdout == (
        "deployment.apps/shrink configured\n"
    )
    got = _get(server, "deployment", "shrink")
    assert got["metadata"]["labels"] == {"app": "shrink"}
    container = got["spec"]["template"]["spec"]["containers"][0]
    assert container["env"] == [{"name": "A", "value": "1"}]
    # what apply did not manage is kept: defaults and the ports merged by containerPort
    assert container["ports"] == [{"containerPort": 80, "protocol": "TCP"}]
    assert container["terminationMessagePath"] == "/dev/termination-log"
    assert got["metadata"]["generation"] == 2


def test_apply_keeps_fields_set_by_others(server: KubeliteProcess, tmp_path: Path) -> None:
    path = _write(tmp_path, "d", DEPLOYMENT.format(name="shared", extra=""))
    server.kubectl("apply", "-f", path)
    server.kubectl("label", "-n", NS, "deployment", "shared", "owner=someone-else")
    server.kubectl("apply", "-f", path)
    assert _get(server, "deployment", "shared")["metadata"]["labels"] == {
        "app": "shared",
        "owner": "someone-else",
        "tier": "fe",
    }


def test_diff_shows_the_change_and_exits_one(server: KubeliteProcess, tmp_path: Path) -> None:
    first = DEPLOYMENT.format(name="diffed", extra="")
    server.kubectl("apply", "-f", _write(tmp_path, "first", first))
    same = server.kubectl("diff", "-f", _write(tmp_path, "same", first), check=False)
    assert (same.returncode, same.stdout) == (0, "")
    changed = server.kubectl(
        "diff", "-f", _write(tmp_path, "changed", first.replace("nginx:1.27", "nginx:1.28")), check=False
    )
    assert changed.returncode == 1
    lines = [line for line in changed.stdout.splitlines() if line[:1] in "+-" and line[:3] not in ("---", "+++")]
    assert lines == ["-  generation: 1", "+  generation: 2", "-        image: nginx:1.27", "+        image: nginx:1.28"]
    assert _get(server, "deployment", "diffed")["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27"


def test_edit_saves_through_a_scripted_editor(server: KubeliteProcess, tmp_path: Path) -> None:
    server.kubectl("apply", "-f", _write(tmp_path, "d", DEPLOYMENT.format(name="edited", extra="")))
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/replicas: 2/replicas: 5/' \"$1\"\n")
    editor.chmod(0o755)
    result = server.kubectl("edit", "-n", NS, "deployment", "edited", env={"EDITOR": str(editor)})
    assert result.stdout == "deployment.apps/edited edited\n"
    assert _get(server, "deployment", "edited")["spec"]["replicas"] == 5
    cancelled = server.kubectl("edit", "-n", NS, "deployment", "edited", env={"EDITOR": "true"})
    assert (cancelled.stdout, cancelled.stderr) == ("", "Edit cancelled, no changes made.\n")


@pytest.mark.parametrize(
    ("patch_type", "patch", "expected_env"),
    [
        (
            "strategic",
            '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","env":[{"name":"C","value":"3"}]}]}}}}',
            [{"name": "C", "value": "3"}, {"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
        ),
        ("merge", '{"metadata":{"labels":{"patched":"yes"}}}', None),
        ("json", '[{"op":"replace","path":"/spec/replicas","value":3}]', None),
    ],
)
def test_patch_types(
    server: KubeliteProcess,
    tmp_path: Path,
    patch_type: str,
    patch: str,
    expected_env: list | None,  # type: ignore[type-arg]
) -> None:
    name = f"patch-{patch_type}"
    server.kubectl("apply", "-f", _write(tmp_path, "d", DEPLOYMENT.format(name=name, extra="")))
    result = server.kubectl("patch", "-n", NS, "deployment", name, "--type", patch_type, "-p", patch)
    assert result.stdout == f"deployment.apps/{name} patched\n"
    got = _get(server, "deployment", name)
    container = got["spec"]["template"]["spec"]["containers"][0]
    if patch_type == "strategic":  # merged by name: the container keeps its image and ports
        assert (container["env"], container["image"]) == (expected_env, "nginx:1.27")
    elif patch_type == "merge":
        assert got["metadata"]["labels"]["patched"] == "yes"
    else:
        assert got["spec"]["replicas"] == 3


def test_set_image_and_rollout_pause_resume(server: KubeliteProcess, tmp_path: Path) -> None:
    server.kubectl("apply", "-f", _write(tmp_path, "d", DEPLOYMENT.format(name="rolled", extra="")))
    assert server.kubectl("set", "image", "-n", NS, "deployment/rolled", "nginx=nginx:1.29").stdout == (
        "deployment.apps/rolled image updated\n"
    )
    assert server.kubectl("rollout", "pause", "-n", NS, "deployment/rolled").stdout == "deployment.apps/rolled paused\n"
    got = _get(server, "deployment", "rolled")
    assert (got["spec"]["paused"], got["spec"]["template"]["spec"]["containers"][0]["image"]) == (True, "nginx:1.29")
    assert server.kubectl("rollout", "resume", "-n", NS, "deployment/rolled").stdout == (
        "deployment.apps/rolled resumed\n"
    )
    assert "paused" not in _get(server, "deployment", "rolled")["spec"]


def test_label_overwrite(server: KubeliteProcess, tmp_path: Path) -> None:
    server.kubectl("apply", "-f", _write(tmp_path, "d", DEPLOYMENT.format(name="labelled", extra="")))
    refused = server.kubectl("label", "-n", NS, "deployment", "labelled", "tier=be", check=False)
    assert (refused.returncode, refused.stderr) == (
        1,
        "error: 'tier' already has a value (fe), and --overwrite is false\n",
    )
    server.kubectl("label", "-n", NS, "deployment", "labelled", "tier=be", "--overwrite")
    assert _get(server, "deployment", "labelled")["metadata"]["labels"]["tier"] == "be"
