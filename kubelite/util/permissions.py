"""Private files: kubelite's store holds every Secret and its PKI the keys to the cluster, so what it writes is
readable by its own user alone. `tighten` repairs a file or directory found with wider permissions (an older
kubelite made them so, or a copy did), saying which, rather than serving from it as it is."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

log = logging.getLogger(__name__)

PRIVATE_FILE = 0o600
PRIVATE_DIR = 0o700


def tighten(path: Path, mode: int) -> bool:
    """Take away from `path` every permission bit `mode` lacks (group and other, typically), with a warning.

    Returns whether it changed anything; a missing file is left alone.
    """
    try:
        current = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return False
    if current & ~mode == 0:
        return False
    os.chmod(path, current & mode)
    log.warning(
        "%s was readable by other users (mode %04o); changed to %04o", path, current, current & mode
    )
    return True
