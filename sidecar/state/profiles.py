"""Named Chromium profiles kept under one directory (SIDECAR_PROFILES_DIR), each used by one
browser at a time.

A profile is leased with an exclusive flock on a file inside it, held for as long as a browser
runs on it: another lease (this sidecar's or one in another container sharing the volume) gets
ProfileInUse, and the lock goes away with the process however it ends. Because the flock proves
no other browser is running on the profile, Chromium's own singleton files left by a browser that
died (or ran in a container since removed, on another host name) are removed before a launch:
Chromium would otherwise refuse the profile as "in use on another computer".
"""

from __future__ import annotations

import fcntl
import os
import shutil
import stat
from dataclasses import dataclass
from typing import Protocol, TypedDict

from httpapi.profile_names import profile_name_problem

LOCK_FILE = "desktopd-profile.lock"
# Chromium's ProcessSingleton files in a user-data dir.
SINGLETON_FILES = ("SingletonLock", "SingletonSocket", "SingletonCookie")


class ProfileError(Exception):
    """A profile request that cannot be served; ``field`` names the request field at fault."""

    def __init__(self, message: str, field: str = "profile") -> None:
        super().__init__(message)
        self.field = field


class ProfileInUse(ProfileError):
    """Another browser runs on the profile."""


class ProfileMissing(ProfileError):
    """No profile has that name."""


class Profile(Protocol):
    """A user-data dir a browser runs on; ``name`` is None for the throwaway one."""

    @property
    def path(self) -> str: ...

    @property
    def name(self) -> str | None: ...

    def release(self) -> None: ...


@dataclass
class NamedProfile:
    """A leased named profile: its lock file stays open (and flocked) until release()."""

    name: str
    path: str
    _lock_fd: int | None

    def release(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)      # closing the descriptor drops the flock
            self._lock_fd = None


def _lock(path: str) -> int | None:
    """An open descriptor holding ``path``'s exclusive flock, or None when another holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    return fd


class ProfileSummary(TypedDict):
    """A profile as GET /profiles lists it (sidecar/server/state_routes.py documents it)."""
    name: str
    in_use: bool
    bytes: int
    modified: float


class ProfileStore:
    """The named profiles under ``root`` (None: named profiles are not configured)."""

    def __init__(self, root: str | None) -> None:
        self.root = root

    def _dir(self, name: str, field: str = "profile") -> str:
        if self.root is None:
            raise ProfileError("named profiles are not configured on this sidecar (set "
                               "SIDECAR_PROFILES_DIR / --profiles-dir)", field)
        problem = profile_name_problem(name)
        if problem:
            raise ProfileError(f"{field}: {problem}", field)
        return os.path.join(self.root, name)

    def lease(self, name: str) -> NamedProfile:
        """The profile ``name`` (created empty, mode 0700, if new), locked for one browser."""
        path = self._dir(name)
        os.makedirs(path, mode=0o700, exist_ok=True)
        os.chmod(path, 0o700)            # cookies and passwords: only this user's
        fd = _lock(os.path.join(path, LOCK_FILE))
        if fd is None:
            raise ProfileInUse(f"profile {name!r} is in use by another browser")
        for leftover in SINGLETON_FILES:
            try:
                os.unlink(os.path.join(path, leftover))
            except FileNotFoundError:
                pass
        return NamedProfile(name, path, fd)

    def in_use(self, name: str) -> bool:
        fd = _lock(os.path.join(self._dir(name), LOCK_FILE))
        if fd is None:
            return True
        os.close(fd)
        return False

    def names(self) -> list[str]:
        if self.root is None or not os.path.isdir(self.root):
            return []
        return sorted(entry.name for entry in os.scandir(self.root)
                      if entry.is_dir(follow_symlinks=False) and profile_name_problem(entry.name) is None)

    def describe(self, name: str) -> ProfileSummary:
        path = self._dir(name)
        size, newest = 0, 0.0
        for folder, _dirs, files in os.walk(path):
            for file in files:
                try:
                    info = os.lstat(os.path.join(folder, file))
                except OSError:
                    continue          # Chromium removes files while it runs
                if stat.S_ISREG(info.st_mode):
                    size += info.st_size
                    newest = max(newest, info.st_mtime)
        return {"name": name, "in_use": self.in_use(name), "bytes": size,
                "modified": newest or os.stat(path).st_mtime}

    def delete(self, name: str) -> None:
        """Removes the profile; ProfileInUse while a browser runs on it."""
        path = self._dir(name, "name")
        if not os.path.isdir(path):
            raise ProfileMissing(f"no profile named {name!r}; see GET /profiles", "name")
        fd = _lock(os.path.join(path, LOCK_FILE))
        if fd is None:
            raise ProfileInUse(f"profile {name!r} is in use by a browser; reset that browser to "
                               "another profile first", "name")
        try:
            shutil.rmtree(path)
        finally:
            os.close(fd)


@dataclass
class ThrowawayProfile:
    """A fresh user-data dir for one browser (the default), removed on release()."""

    path: str
    name: None = None

    def release(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
