"""What /proc says about processes (Linux): CPU time, memory, context switches, sessions, the TCP
connections of a process group, and the loopback ports something listens on.

Each returns None when the process is gone (or /proc cannot be read)."""

from __future__ import annotations

import os
from typing import Iterator, List, Optional

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


def session_pids(session: int, among: Optional[List[int]] = None) -> List[int]:
    """The processes of a session that have not exited (zombies left out), of all processes or
    of `among`: what a process started with start_new_session left running, its children
    included, after it died."""
    members = []
    for name in [str(pid) for pid in among] if among is not None else os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 3 and int(fields[3]) == session and fields[0] not in ("Z", "X"):
            members.append(int(name))
    return members


def group_members(pgid: int) -> List[int]:
    """The processes of process group pgid (a wrapper script and the loctrack it runs)."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and fields[2] == str(pgid):
            members.append(int(entry))
    return members


def established_to(pgid: int, port: int) -> bool:
    """Whether a process of group pgid has an established TCP connection to loopback port."""
    return any(row[3] == "01" for row in sockets_to(pgid, port))


def unread_bytes(row: List[str]) -> int:
    """What the kernel holds for a socket that its process has not read yet (a tcp_sockets row)."""
    return int(row[4].split(":")[1], 16)


def sockets_to(pgid: int, port: int) -> List[List[str]]:
    """The tcp_sockets rows of the TCP sockets of process group pgid whose remote end is loopback
    port, in any state (ESTABLISHED "01", SYN_SENT "02" while a connect() waits, ...)."""
    inodes = set()
    for pid in group_members(pgid):
        try:
            descriptors = os.listdir("/proc/%d/fd" % pid)
        except OSError:
            continue
        for fd in descriptors:
            try:
                link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            except OSError:
                continue
            if link.startswith("socket:["):
                inodes.add(link[8:-1])
    if not inodes:
        return []
    return [parts for parts in tcp_sockets()
            if len(parts) > 9 and parts[9] in inodes and int(parts[2].rsplit(":", 1)[1], 16) == port]


def listening(port: int) -> bool:
    """Whether something listens on loopback port. Read from /proc rather than by connecting: a
    connection would be a client to the server under test (gpsd opens its device for one)."""
    wanted = ":%04X" % port
    for fields in tcp_sockets():
        if fields[1].endswith(wanted) and fields[3] == "0A":
            return True
    return False


def tcp_sockets() -> Iterator[List[str]]:
    """Every TCP socket of the machine, IPv4 and IPv6, as the fields of its row in /proc/net/tcp
    or tcp6: [1] local and [2] remote address as HEXADDR:HEXPORT, [3] the state in hex (01
    ESTABLISHED, 0A LISTEN, ...), [9] the inode, which /proc/PID/fd/N links to as socket:[INODE].
    A table that cannot be read is passed over."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as handle:
                rows = handle.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            yield row.split()
