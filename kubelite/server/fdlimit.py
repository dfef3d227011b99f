"""The process's open-file limit, raised at start as Go programs raise theirs (since Go 1.19).

Every connection holds a file descriptor, and the usual soft limit (1,024) is far below what a server with
many watches and clients needs, while the hard limit the administrator set is usually much higher.
"""

from __future__ import annotations

import resource


def raise_open_file_limit() -> tuple[int, int]:
    """Raise the soft RLIMIT_NOFILE to the hard limit (Go does so at start since 1.19); the limits after.

    Each connection holds a descriptor, and the usual soft limit (1,024) is far below what a server needs.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == hard:
        return soft, hard
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError):
        # an unlimited hard limit is above what the kernel allows (fs.nr_open): keep the soft one
        return soft, hard
    return hard, hard
