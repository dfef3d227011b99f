"""Reading kubectl's human output in the kubectl end-to-end modules, and the checks of that reading.

kubectl aligns its tables with a tab writer, so a cell starts where its header starts; parsing by those
positions keeps empty cells (a blank SELECTOR, a missing IP) instead of collapsing them as `split()` would.
Durations are the only cells that change between runs, so they are replaced by a marker after their format
is checked.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from tests.e2e.server import KUBECTL, KubeliteProcess

MANIFESTS = Path(__file__).with_name("manifests")

#: what kubectl prints for a duration (HumanDuration: 45s, 3m12s, 5h, 333d, 2y41d)
_DURATION = re.compile(r"^(\d+y)?(\d+d)?(\d+h)?(\d+m)?(\d+s)?$")
#: a column header: words separated by single spaces; columns are separated by at least three
_HEADER_CELL = re.compile(r"\S+(?: \S+)*")
#: columns whose cells are durations
DURATION_COLUMNS = frozenset({"AGE", "LAST SEEN", "FIRST SEEN", "DURATION"})
AGE = "<age>"
CREATED = "<created>"
IP = "<ip>"
_TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
_SERVICE_IP = re.compile(r"^10\.\d+\.\d+\.\d+$")
#: where create_kinds puts the namespaced objects
KINDS_NAMESPACE = "kinds"


def parse_table(text: str) -> list[list[str]]:
    """The header and rows of one kubectl table, each cell cut at its header's start."""
    lines = [line for line in text.splitlines() if line.strip()]
    assert lines, "empty table"
    starts = [m.start() for m in _HEADER_CELL.finditer(lines[0])]
    bounds = list(zip(starts, [*starts[1:], None], strict=True))
    return [[line[a:b].strip() for a, b in bounds] for line in lines]


def parse_tables(text: str) -> list[list[list[str]]]:
    """The tables of `kubectl get all` and friends: blank lines separate them."""
    return [parse_table(block) for block in re.split(r"\n\s*\n", text.strip("\n")) if block.strip()]


def normalise_durations(table: list[list[str]]) -> list[list[str]]:
    """Replace duration cells by AGE after checking they look like kubectl durations (empty stays empty)."""
    header, rows = table[0], table[1:]
    columns = [i for i, name in enumerate(header) if name in DURATION_COLUMNS]
    out = [header]
    for row in rows:
        row = list(row)
        for i in columns:
            if row[i]:
                assert _DURATION.match(row[i]), f"{header[i]} cell {row[i]!r} is no duration"
                row[i] = AGE
        out.append(row)
    return out


def table(text: str) -> list[list[str]]:
    """parse_table then normalise_durations: what most assertions compare."""
    return normalise_durations(parse_table(text))


def normalise_cells(parsed: list[list[str]]) -> list[list[str]]:
    """CREATED AT cells become CREATED and cluster IPs become IP, after checking their format."""
    header = parsed[0]
    out = [header]
    for row in parsed[1:]:
        row = list(row)
        for i, name in enumerate(header):
            if name == "CREATED AT":
                assert _TIMESTAMP.match(row[i]), row[i]
                row[i] = CREATED
            if name == "CLUSTER-IP" and row[i] != "None":
                assert _SERVICE_IP.match(row[i]), row[i]
                row[i] = IP
        out.append(row)
    return out


def get_table(server: KubeliteProcess, *args: str) -> list[list[str]]:
    """`kubectl get ARGS` as a table with every varying cell normalised."""
    return normalise_cells(table(server.kubectl("get", *args).stdout))


def start_kubectl(server: KubeliteProcess, *args: str) -> subprocess.Popen[str]:
    """kubectl as KubeliteProcess.kubectl runs it, but in the background: for commands that wait."""
    argv = [
        KUBECTL,
        "--kubeconfig",
        server.kubeconfig,
        "--cache-dir",
        str(server.data_dir / "kubectl-cache"),
        *args,
    ]
    env = {**os.environ, "KUBECONFIG": "/dev/null", "HOME": str(server.data_dir)}
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def namespace_manifest(name: str) -> str:
    return f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {name}\n"


def create_kinds(server: KubeliteProcess, namespace: str) -> None:
    """One object of every kind: the namespaced ones in `namespace`, the cluster-scoped ones named kctl-*."""
    create_namespace(server, namespace)
    server.kubectl("create", "-n", namespace, "-f", str(MANIFESTS / "namespaced-kinds.yaml"))
    server.kubectl("create", "-f", str(MANIFESTS / "cluster-kinds.yaml"))


def create_namespace(server: KubeliteProcess, name: str) -> None:
    """A namespace through `create -f -`; `kubectl create namespace` would send a protobuf body."""
    out = server.kubectl("create", "-f", "-", input=namespace_manifest(name)).stdout
    assert out == f"namespace/{name} created\n"
    wait_for_namespace_defaults(server, name)


def wait_for_namespace_defaults(server: KubeliteProcess, name: str, timeout: float = 10.0) -> None:
    """Wait for what controllers add to every namespace: the `default` ServiceAccount and `kube-root-ca.crt`,
    so that listings are deterministic (on a real cluster they arrive moments after the namespace, too)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        account = server.http("GET", f"/api/v1/namespaces/{name}/serviceaccounts/default").status
        root_ca = server.http("GET", f"/api/v1/namespaces/{name}/configmaps/kube-root-ca.crt").status
        if account == root_ca == 200:
            return
        time.sleep(0.02)
    raise AssertionError(f"namespace {name} did not get its default ServiceAccount and kube-root-ca.crt")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "NAME   DATA   AGE\ncm1    2      5s\n",
            [["NAME", "DATA", "AGE"], ["cm1", "2", "5s"]],
            id="simple",
        ),
        pytest.param(
            "NAME   READY   STATUS    RESTARTS   AGE   IP       NODE     NOMINATED NODE   READINESS GATES\n"
            "p      0/1     Pending   0          1s    <none>   <none>   <none>           <none>\n",
            [
                [
                    "NAME",
                    "READY",
                    "STATUS",
                    "RESTARTS",
                    "AGE",
                    "IP",
                    "NODE",
                    "NOMINATED NODE",
                    "READINESS GATES",
                ],
                ["p", "0/1", "Pending", "0", "1s", "<none>", "<none>", "<none>", "<none>"],
            ],
            id="headers-with-spaces",
        ),
        pytest.param(
            "NAME   SCHEDULE      SUSPEND\ncj     */5 * * * *   False\n",
            [["NAME", "SCHEDULE", "SUSPEND"], ["cj", "*/5 * * * *", "False"]],
            id="cells-with-spaces",
        ),
        pytest.param(
            "NAME   STATUS    VOLUME   AGE\npvc    Pending            1s\n",
            [["NAME", "STATUS", "VOLUME", "AGE"], ["pvc", "Pending", "", "1s"]],
            id="empty-cell",
        ),
    ],
)
def test_parse_table(text: str, expected: list[list[str]]) -> None:
    assert parse_table(text) == expected


@pytest.mark.parametrize(
    ("cell", "ok"),
    [
        pytest.param("5s", True, id="seconds"),
        pytest.param("3m12s", True, id="minutes"),
        pytest.param("333d", True, id="days"),
        pytest.param("2y41d", True, id="years"),
        pytest.param("2026-01-01T00:00:00Z", False, id="timestamp"),
        pytest.param("<unknown>", False, id="unknown"),
    ],
)
def test_normalise_durations_checks_the_format(cell: str, ok: bool) -> None:
    parsed = [["NAME", "AGE"], ["x", cell]]
    if ok:
        assert normalise_durations(parsed) == [["NAME", "AGE"], ["x", AGE]]
    else:
        with pytest.raises(AssertionError):
            normalise_durations(parsed)


def test_parse_tables_splits_on_blank_lines() -> None:
    text = "NAME       AGE\npod/a      1s\n\nNAME          AGE\nservice/b     2s\n"
    assert parse_tables(text) == [[["NAME", "AGE"], ["pod/a", "1s"]], [["NAME", "AGE"], ["service/b", "2s"]]]
