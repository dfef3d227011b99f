"""A watcher that stops reading is cut off, and its connection is closed, not left open with full buffers.

The watch cache closes a watcher whose queue overflows; the server must then abort that client's connection
(kube closes the stream of a terminated watcher), or each stalled client would keep a socket, its kernel
buffers and a handler waiting to write, until its timeout.
"""

from __future__ import annotations

import errno
import http.client
import json
import socket
import time

from tests.e2e.server import KubeliteProcess

#: more events than a watcher's queue holds (1,000) plus what the socket buffers absorb at this size
BURST = 1_600
PAYLOAD = "x" * 8_000


def _create_namespace(server: KubeliteProcess, name: str) -> None:
    assert server.http("POST", "/api/v1/namespaces", {"metadata": {"name": name}}).status == 201


def _stalled_watch(server: KubeliteProcess, path: str) -> socket.socket:
    """A watch request on a socket that will never be read (with a small receive window)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", server.insecure_port))
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n".encode())
    return sock


def _reset_by_server(sock: socket.socket) -> bool:
    """Whether the server has aborted the connection (the peer's RST), without reading what is buffered."""
    if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == errno.ECONNRESET:
        return True
    try:
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True


def test_a_stalled_watcher_is_cut_off_and_its_connection_closed(server: KubeliteProcess) -> None:
    ns = "stalled-watch"
    _create_namespace(server, ns)
    path = f"/api/v1/namespaces/{ns}/configmaps"
    stalled = _stalled_watch(server, f"{path}?watch=true&timeoutSeconds=300")
    reset = False  # a reset is reported once (SO_ERROR clears on reading)
    try:
        time.sleep(0.3)  # the watch is registered before the burst
        writer = http.client.HTTPConnection("127.0.0.1", server.insecure_port, timeout=30)
        try:
            for i in range(BURST):
                body = json.dumps({"metadata": {"name": f"c{i}"}, "data": {"payload": PAYLOAD}})
                writer.request("POST", path, body=body, headers={"Content-Type": "application/json"})
                response = writer.getresponse()
                response.read()
                assert response.status == 201
                if i % 200 == 199 and _reset_by_server(stalled):
                    reset = True
                    break
        finally:
            writer.close()
        deadline = time.monotonic() + 10
        while not reset:
            assert time.monotonic() < deadline, "the server kept the stalled watcher's connection open"
            time.sleep(0.05)
            reset = _reset_by_server(stalled)
    finally:
        stalled.close()

    # the server goes on serving watches to clients that read
    listed = json.loads(server.http("GET", f"{path}?limit=1").body)
    assert listed["metadata"]["remainingItemCount"] >= 999
