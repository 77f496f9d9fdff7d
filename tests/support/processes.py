"""Processes seen through /proc (Linux): a process's children, and whether one runs."""

from __future__ import annotations

import os


def _stat(pid: int | str) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (state first)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def children(pid: int) -> list[int]:
    """Running processes whose parent is ``pid`` (read from every /proc/N/stat:
    the ``children`` file needs a kernel option)."""
    out = []
    for name in os.listdir("/proc"):
        fields = _stat(name) if name.isdigit() else None
        if fields is not None and int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(name))
    return out


def running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not ended (a zombie has)."""
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"
