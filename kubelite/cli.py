"""`kubelite serve`: run the API server. Flags carry kube-apiserver's names where it has one.

`kubelite store check|backup|restore` looks after a data dir's store (kubelite/storage/sqlite/maintenance.py).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import re
import sys
from pathlib import Path

from kubelite.server.config import DEFAULT_NODE_CAPACITY, ClusterConfig, ConfigError, ServerConfig
from kubelite.server.fdlimit import raise_open_file_limit
from kubelite.server.signals import ShutdownSignals
from kubelite.storage.errors import CorruptStoreError, StorageError

log = logging.getLogger("kubelite")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kubelite", description="A Kubernetes API server in Python.")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the API server")
    serve.add_argument(
        "--insecure-port",
        type=int,
        default=8080,
        help="plain HTTP port without authentication, for local use (0 picks a free port, -1 disables)",
    )
    serve.add_argument(
        "--insecure-bind-address",
        default="127.0.0.1",
        help="address of the insecure port; only loopback unless --insecure-allow-non-loopback",
    )
    serve.add_argument(
        "--insecure-allow-non-loopback",
        action="store_true",
        help="allow a non-loopback --insecure-bind-address, knowing that anyone who reaches it is cluster-admin",
    )
    serve.add_argument(
        "--secure-port",
        type=int,
        default=6443,
        help="HTTPS port with client-certificate authentication (0 picks a free port, -1 disables)",
    )
    serve.add_argument(
        "--bind-address",
        default="127.0.0.1",
        help="address of the secure port; kube-apiserver defaults to 0.0.0.0, kubelite to loopback",
    )
    serve.add_argument("--data-dir", default="./kubelite-data", help="where the store and the PKI live")
    serve.add_argument("--cert-dir", default=None, help="where the certificates live (default: <data-dir>/pki)")
    serve.add_argument("--service-cluster-ip-range", default="10.96.0.0/12")
    serve.add_argument("--storage-backend", default="sqlite", choices=["sqlite"])
    serve.add_argument(
        "--etcd-compaction-interval",
        default="5m",
        help="how often history is compacted (Go duration, e.g. 5m, 30s; 0 disables)",
    )
    serve.add_argument(
        "--watch-bookmark-interval",
        default="1m",
        help="kubelite: how often watches with allowWatchBookmarks get a BOOKMARK",
    )
    serve.add_argument(
        "--min-request-timeout",
        type=int,
        default=1800,
        help="seconds a watch lasts at least when the client sets no timeoutSeconds",
    )
    serve.add_argument(
        "--read-header-timeout",
        default="32s",
        help="kubelite: how long a client may take to send a request's headers (kube-apiserver's fixed 32s)",
    )
    serve.add_argument(
        "--idle-timeout",
        default="90s",
        help="kubelite: how long an idle keep-alive connection stays open (kube-apiserver's fixed 90s)",
    )
    serve.add_argument(
        "--store-check-timeout",
        default="10s",
        help="kubelite: how long the start-up integrity check of the store may take before it stops with a warning",
    )
    serve.add_argument(
        "--skip-store-check", action="store_true", help="kubelite: start without the integrity check of the store"
    )
    _cluster_flags(serve)
    serve.add_argument("-v", "--v", type=int, default=0, dest="verbosity", help="log verbosity")
    _store_parser(sub)
    return parser


def _store_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    store = sub.add_parser("store", help="check, back up or restore the store of a data dir")
    commands = store.add_subparsers(dest="store_command", required=True)
    check = commands.add_parser("check", help="check the store for damage (safe while a server runs)")
    check.add_argument("--data-dir", default="./kubelite-data")
    check.add_argument("--timeout", default="0", help="stop after this long (Go duration; 0: no limit)")
    backup = commands.add_parser("backup", help="copy the store consistently, also while a server runs")
    backup.add_argument("--data-dir", default="./kubelite-data")
    backup.add_argument("file", help="the backup file to write")
    restore = commands.add_parser("restore", help="replace the store by a backup (the server must be stopped)")
    restore.add_argument("--data-dir", default="./kubelite-data")
    restore.add_argument("file", help="the backup file to restore")


#: Go's duration units, in seconds
_UNITS = {
    "ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "\u03bcs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0
}
_PLAIN_SECONDS = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_TERM = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)")


def parse_duration(text: str) -> float:
    """A Go duration (`5m`, `30s`, `1h30m`, `250ms`, `-1.5h`) in seconds, or plain seconds (`90`)."""
    if _PLAIN_SECONDS.fullmatch(text):
        return float(text)
    sign = -1.0 if text.startswith("-") else 1.0
    rest = text[1:] if text[:1] in ("-", "+") else text
    total, position = 0.0, 0
    while position < len(rest):
        term = _TERM.match(rest, position)
        if term is None and _PLAIN_SECONDS.fullmatch(rest, position):
            raise ConfigError(f"invalid duration {text!r}: missing unit after {rest[position:]}")
        if term is None or term.group(1) in ("", "."):
            raise ConfigError(f"invalid duration {text!r}: use e.g. 5m, 30s or 1h")
        total += float(term.group(1)) * _UNITS[term.group(2)]
        position = term.end()
    if not rest:
        raise ConfigError(f"invalid duration {text!r}: use e.g. 5m, 30s or 1h")
    return sign * total


async def _serve(config: ServerConfig, signals: ShutdownSignals) -> None:
    from kubelite.server.apiserver import APIServer

    if config.insecure_allow_non_loopback and config.insecure_port >= 0:
        log.warning(
            "the insecure port on %s gives cluster-admin to anyone who can reach it, without credentials"
            " (--insecure-allow-non-loopback)",
            config.insecure_bind_address,
        )
    server = APIServer(config)
    stop = asyncio.Event()
    try:
        running = await server.start()
        signals.serving(asyncio.get_running_loop(), stop.set)
        if running.insecure_port is not None:
            print(
                f"kubelite: serving insecurely on http://{config.insecure_bind_address}:{running.insecure_port}",
                flush=True,
            )
        if running.secure_port is not None:
            print(f"kubelite: serving securely on https://{config.bind_address}:{running.secure_port}", flush=True)
            print(f"kubelite: admin kubeconfig at {running.kubeconfig}", flush=True)
        print("kubelite: ready", flush=True)
        await stop.wait()
    finally:
        # also when start-up was interrupted: whatever it opened is closed
        await server.stop()


def _store(args: argparse.Namespace) -> int:
    from kubelite.storage.sqlite import maintenance

    data_dir = Path(args.data_dir).resolve()
    if args.store_command == "check":
        try:
            timeout = parse_duration(args.timeout)
        except ConfigError as exc:
            print(f"kubelite: --timeout: {exc}", file=sys.stderr)
            return 2
        return maintenance.check_command(data_dir, timeout=timeout or None)
    if args.store_command == "backup":
        return maintenance.backup_command(data_dir, Path(args.file).resolve())
    return maintenance.restore_command(data_dir, Path(args.file).resolve())


def main(argv: list[str] | None = None) -> int:
    # before anything slow, so that no stage of start-up ignores SIGTERM or SIGINT
    signals = ShutdownSignals()
    signals.install()
    try:
        return _main(argv, signals)
    finally:
        signals.uninstall()  # the handlers the caller had (a test calling main, say)


def _go_bool(text: str) -> bool:
    """A Go boolean flag's value (`--scheduler=false`)."""
    lowered = text.strip().lower()
    if lowered in ("1", "t", "true"):
        return True
    if lowered in ("0", "f", "false"):
        return False
    raise argparse.ArgumentTypeError(f"invalid boolean value {text!r}")


def _capacity(text: str) -> dict[str, str]:
    """`cpu=8,memory=32Gi,pods=110` as a resource list; what is not named keeps its default."""
    capacity = dict(DEFAULT_NODE_CAPACITY)
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = part.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise argparse.ArgumentTypeError(f"{part!r} is not resource=quantity")
        capacity[name.strip()] = value.strip()
    return capacity


def _cluster_flags(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "--nodes", type=int, default=1, help="kubelite: how many simulated nodes (each with its kubelet) to run"
    )
    serve.add_argument(
        "--node-name-prefix", default="kubelite-node-", help="kubelite: simulated nodes are <prefix>0, <prefix>1, ..."
    )
    serve.add_argument(
        "--node-capacity",
        type=_capacity,
        default=dict(DEFAULT_NODE_CAPACITY),
        help="kubelite: each simulated node's capacity, e.g. cpu=8,memory=32Gi,pods=110",
    )
    serve.add_argument(
        "--controllers",
        default="*",
        help="controllers to run: '*' all on by default, 'foo' enables foo, '-foo' disables foo"
        " (kube-controller-manager's flag)",
    )
    serve.add_argument(
        "--scheduler", type=_go_bool, default=True, metavar="BOOL", help="kubelite: run the scheduler (default true)"
    )
    serve.add_argument(
        "--leader-elect",
        type=_go_bool,
        default=True,
        metavar="BOOL",
        help="run the controllers and the scheduler only while holding their Lease (as kube's components do)",
    )


def _main(argv: list[str] | None, signals: ShutdownSignals) -> int:
    args = _parser().parse_args(argv)
    if args.command == "store":
        logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        return _store(args)
    logging.basicConfig(
        level=logging.DEBUG if args.verbosity >= 4 else logging.INFO if args.verbosity else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    data_dir = Path(args.data_dir).resolve()
    try:
        config = ServerConfig(
            data_dir=data_dir,
            cert_dir=Path(args.cert_dir).resolve() if args.cert_dir else data_dir / "pki",
            insecure_port=args.insecure_port,
            insecure_bind_address=args.insecure_bind_address,
            secure_port=args.secure_port,
            bind_address=args.bind_address,
            service_cluster_ip_range=args.service_cluster_ip_range,
            storage_backend=args.storage_backend,
            compaction_interval=parse_duration(args.etcd_compaction_interval),
            watch_bookmark_interval=parse_duration(args.watch_bookmark_interval),
            min_request_timeout=float(args.min_request_timeout),
            insecure_allow_non_loopback=args.insecure_allow_non_loopback,
            read_header_timeout=parse_duration(args.read_header_timeout),
            idle_timeout=parse_duration(args.idle_timeout),
            store_check_timeout=None if args.skip_store_check else parse_duration(args.store_check_timeout),
            cluster=ClusterConfig(
                nodes=args.nodes,
                node_name_prefix=args.node_name_prefix,
                node_capacity=args.node_capacity,
                controllers=tuple(p.strip() for p in args.controllers.split(",") if p.strip()),
                scheduler=args.scheduler,
                leader_elect=args.leader_elect,
            ),
        )
        config.validate()
    except ConfigError as exc:
        print(f"kubelite: {exc}", file=sys.stderr)
        return 2
    raise_open_file_limit()
    try:
        import uvloop

        uvloop.run(_serve(config, signals))
    except OSError as exc:
        print(f"kubelite: {exc}", file=sys.stderr)
        return 1
    except StorageError as exc:  # a damaged store, or a data dir another process serves
        print(f"kubelite: {exc}", file=sys.stderr)
        if isinstance(exc, CorruptStoreError):
            from kubelite.storage.sqlite.maintenance import advice

            print(f"kubelite: {advice(data_dir)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
