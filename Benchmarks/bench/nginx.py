"""nginx (Debian's nginx-light) serving a folder of files on a loopback port: the static server the
serve-tiles part compares `loctrack serve --tiles-file` with.

Started as a process of the bench's own, never as the system's service: its configuration, pid
file, logs and temporary folders in a folder of its own, `daemon off` (the bench owns the master
process and kills its group), the error log given with -e so that nothing under /var/log is
touched. The configuration is what a static tile server would use: 2 workers (one per core
here), sendfile, an open_file_cache of 10,000 files (and the descriptors it needs), no access
log, the same Cache-Control as loctrack's tiles.
"""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import subprocess
import time
from pathlib import Path
from typing import Optional

from support import processes as procs  # scripts/support
from support.procfs import group_members, listening, proc_cpu, proc_status_kb

NGINX = "/usr/sbin/nginx"

CONFIG = """# written by Benchmarks/bench/nginx.py for the serve-tiles part
{user}
worker_processes 2;
worker_rlimit_nofile 65536;
daemon off;
pid {home}/nginx.pid;
error_log {home}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    sendfile on;
    tcp_nopush on;
    open_file_cache max=10000 inactive=60s;
    open_file_cache_valid 60s;
    types {{ image/png png; image/jpeg jpg; image/webp webp; }}
    default_type application/octet-stream;
    client_body_temp_path {home}/body;
    proxy_temp_path {home}/proxy;
    fastcgi_temp_path {home}/fastcgi;
    uwsgi_temp_path {home}/uwsgi;
    scgi_temp_path {home}/scgi;
    server {{
        listen 127.0.0.1:{port};
        root {root};
        add_header Cache-Control "private, max-age=86400";
    }}
}}
"""


def binary() -> Optional[str]:
    return shutil.which("nginx") or (NGINX if os.access(NGINX, os.X_OK) else None)


class Nginx:
    """nginx serving `root` on a free loopback port; listening when the constructor returns."""

    def __init__(self, root: Path, home: Path, start_timeout: float = 10.0):
        home.mkdir(parents=True, exist_ok=True)
        self.port = procs.free_port()
        procs.release_port(self.port)
        # As root, nginx's workers would run as nobody, who may not read the bench's private folder.
        user = ""
        if os.geteuid() == 0:
            user = "user %s %s;" % (pwd.getpwuid(0).pw_name, grp.getgrgid(0).gr_name)
        self.config = home / "nginx.conf"
        self.config.write_text(CONFIG.format(user=user, home=home, port=self.port, root=root))
        self.stderr_path = home / "nginx.stderr"
        with open(self.stderr_path, "wb") as err:
            self.process = procs.spawn([binary() or NGINX, "-p", str(home), "-c", str(self.config), "-e",
                                        str(home / "error.log")], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                       stderr=err)
        deadline = time.monotonic() + start_timeout
        while not listening(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                log = (home / "error.log").read_text(errors="replace") if (home / "error.log").exists() else ""
                raise RuntimeError("nginx did not listen on 127.0.0.1:%d: %s %s" % (
                    self.port, self.stderr_path.read_text(errors="replace")[-300:], log[-300:]))
            time.sleep(0.02)

    def rss_kb(self) -> Optional[int]:
        """VmRSS of the master and its workers, summed."""
        values = [proc_status_kb(pid, "VmRSS") for pid in group_members(self.process.pid)]
        values = [value for value in values if value is not None]
        return sum(values) if values else None

    def cpu(self) -> Optional[float]:
        """utime + stime of the master and its workers, summed (seconds)."""
        values = [proc_cpu(pid) for pid in group_members(self.process.pid)]
        values = [value for value in values if value is not None]
        return sum(values) if values else None

    def stop(self) -> None:
        procs.kill_group(self.process)
