"""What /proc says about a running process (Linux): CPU time, memory, context switches.

Each returns None when the process is gone (or /proc cannot be read)."""

from __future__ import annotations

import os
from typing import Optional

CLK_TCK = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid: int) -> Optional[float]:
    """utime + stime of the whole process (all threads), in seconds."""
    try:
        with open("/proc/%d/stat" % pid) as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK
    except (OSError, IndexError, ValueError):
        return None


def proc_status_kb(pid: int, key: str) -> Optional[int]:
    """A kB figure of /proc/PID/status, e.g. VmRSS (memory now) or VmHWM (peak)."""
    try:
        with open("/proc/%d/status" % pid) as handle:
            for line in handle:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def proc_switches(pid: int) -> Optional[int]:
    """Context switches of all the process's threads (each one a wake-up or a preemption)."""
    total = 0
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return None
    for task in tasks:
        try:
            with open("/proc/%d/task/%s/status" % (pid, task)) as handle:
                for line in handle:
                    if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                        total += int(line.split()[1])
        except (OSError, ValueError):
            continue
    return total
