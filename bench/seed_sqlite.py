"""Fill a stopped kubelite's SQLite file with many copies of one pod, as its writer would have stored them.

Creating 100,000 pods through the API takes minutes at a few hundred per second, more than the whole suite may
spend. The memory and start-up scenarios need the pods stored, not the creates, so they create one pod through
the API (the template: exactly the bytes kubelite stores, defaults and all), stop the server, and copy it here
under new names, uids and revisions with kubelite's own schema module and the writer's two statements. The
server is started on the file afterwards, as after any restart.

Run: `python -m bench.seed_sqlite DIR TEMPLATE_FILE NAMESPACES PER_NAMESPACE`; prints `BENCHJSON {objects}`.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import orjson

from kubelite.storage.sqlite import schema


def seed(data_dir: Path, template: bytes, namespaces: list[str], per_namespace: int) -> int:
    meta = orjson.loads(template)["metadata"]
    old_name, old_ns = meta["name"].encode(), meta["namespace"].encode()
    old_uid, old_rv = meta["uid"].encode(), meta["resourceVersion"].encode()
    conn = schema.connect(schema.db_path(data_dir), writer=True)
    rev, _ = schema.init(conn)
    count = 0
    for namespace in namespaces:
        conn.execute("BEGIN IMMEDIATE")
        for j in range(per_namespace):
            rev += 1
            name = f"web-{j:06d}"
            value = (
                template.replace(b'"name":"' + old_name + b'"', f'"name":"{name}"'.encode(), 1)
                .replace(b'"namespace":"' + old_ns + b'"', f'"namespace":"{namespace}"'.encode(), 1)
                .replace(b'"uid":"' + old_uid + b'"', f'"uid":"{uuid.uuid4()}"'.encode(), 1)
                .replace(b'"resourceVersion":"' + old_rv + b'"', f'"resourceVersion":"{rev}"'.encode(), 1)
            )
            key = f"/registry/pods/{namespace}/{name}"
            conn.execute(
                "INSERT INTO log (rev, key, deleted, prev_rev, value) VALUES (?, ?, ?, ?, ?)",
                (rev, key, 0, None, value),
            )
            conn.execute("INSERT INTO current (key, rev) VALUES (?, ?)", (key, rev))
            count += 1
        conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return count


def main() -> None:
    data_dir, template = Path(sys.argv[1]), Path(sys.argv[2]).read_bytes()
    namespaces, per_namespace = sys.argv[3].split(","), int(sys.argv[4])
    count = seed(data_dir, template, namespaces, per_namespace)
    print("BENCHJSON " + json.dumps({"objects": count}), flush=True)


if __name__ == "__main__":
    main()
