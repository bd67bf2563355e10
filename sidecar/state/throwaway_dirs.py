"""The throwaway profiles' user-data dirs: made empty in the temp dir, marked with the sidecar's
pid, and removed by the next sidecar that starts when their own sidecar is gone (one killed with
SIGKILL cannot clean up)."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile

from .profiles import ThrowawayProfile

log = logging.getLogger(__name__)

PROFILE_PREFIX = "sidecar-chromium-"
OWNER_FILE = "sidecar.pid"     # the owning sidecar's pid, inside the dir


def new_throwaway_profile() -> ThrowawayProfile:
    """An empty user-data dir, marked with this sidecar's pid."""
    path = tempfile.mkdtemp(prefix=PROFILE_PREFIX)
    with open(os.path.join(path, OWNER_FILE), "w", encoding="ascii") as owner:
        owner.write(str(os.getpid()))
    return ThrowawayProfile(path)


def remove_stale_throwaway_dirs() -> None:
    """Remove the dirs of sidecars that are gone; leave dirs of live ones and anything unmarked."""
    root = tempfile.gettempdir()
    try:
        names = [n for n in os.listdir(root) if n.startswith(PROFILE_PREFIX)]
    except OSError:
        return
    for name in names:
        path = os.path.join(root, name)
        try:
            with open(os.path.join(path, OWNER_FILE), encoding="ascii") as owner:
                pid = int(owner.read().strip())
        except (OSError, ValueError):
            continue            # not ours, or still being created: leave it alone
        if pid == os.getpid() or _alive(pid):
            continue
        log.info("removing the profile of a sidecar that is gone: %s", path)
        shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
