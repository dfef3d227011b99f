"""Start-up time: from process start to the first successful /healthz, on an empty data dir.

Prints the median over several runs, and the same for a bare `python -c pass` as the baseline measured in
the same run (these machines are noisy, so the ratio is the figure to compare).
"""

from __future__ import annotations

import http.client
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = 5


def _time_python() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - start


def _time_kubelite() -> float:
    with tempfile.TemporaryDirectory() as data_dir:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kubelite",
                "serve",
                "--data-dir",
                data_dir,
                "--insecure-port",
                "0",
                "--secure-port",
                "0",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert proc.stdout is not None
            port = 0
            for line in proc.stdout:
                if "serving insecurely" in line:
                    port = int(line.rsplit(":", 1)[1])
                    break
            while True:
                try:
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
                    conn.request("GET", "/healthz")
                    if conn.getresponse().status == 200:
                        return time.perf_counter() - start
                except OSError:
                    time.sleep(0.005)
        finally:
            proc.terminate()
            proc.wait()


def main() -> None:
    baseline = statistics.median(_time_python() for _ in range(RUNS))
    startup = statistics.median(_time_kubelite() for _ in range(RUNS))
    print(f"python -c pass            {baseline * 1000:7.1f} ms")
    print(f"kubelite serve -> healthz {startup * 1000:7.1f} ms  ({startup / baseline:.1f}x the baseline)")


if __name__ == "__main__":
    main()
