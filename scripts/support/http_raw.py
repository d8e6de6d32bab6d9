"""HTTP/1.1 over a plain socket, byte for byte what the test writes (standard library only).

http.client normalises what it sends (it refuses a NUL in a path, folds nothing, adds its own
headers), so a test of what a server does with malformed, oversized or hostile requests writes
the bytes itself and reads what comes back: the status line, the headers, the body (by
Content-Length, chunked, or until the server closes), and whether the server closed.
"""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple


@dataclass
class Response:
    status: Optional[int] = None  # None: no status line came (closed or timed out first)
    reason: str = ""
    headers: List[Tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    closed: bool = False  # the server closed the connection (EOF or reset) after or instead of answering
    reset: bool = False  # ... with a reset
    timed_out: bool = False
    seconds: float = 0.0  # from the first byte written to the end of the response (or the close)
    raw_head: bytes = b""
    leftover: bytes = b""  # head_only: what came after the head in the same reads (a stream's start)

    def header(self, name: str) -> Optional[str]:
        """The first header of that name (case-insensitive), or None."""
        wanted = name.lower()
        for key, value in self.headers:
            if key.lower() == wanted:
                return value
        return None

    def header_all(self, name: str) -> List[str]:
        wanted = name.lower()
        return [value for key, value in self.headers if key.lower() == wanted]

    def summary(self) -> str:
        if self.status is None:
            how = "reset" if self.reset else "closed" if self.closed else "timed out" if self.timed_out else "nothing"
            return "no response (%s after %.2f s)" % (how, self.seconds)
        return "%d %s, %d body bytes%s" % (self.status, self.reason, len(self.body), ", then closed" if self.closed else "")

    def json(self):
        import json
        return json.loads(self.body.decode("utf-8"))


def connect(port: int, host: str = "127.0.0.1", timeout: float = 10.0, rcvbuf: Optional[int] = None) -> socket.socket:
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(timeout)
    sock.connect((host, port))
    return sock


def request_bytes(method: str, path: str, headers: Optional[Dict[str, str]] = None, body: bytes = b"",
                  host: str = "127.0.0.1", version: str = "HTTP/1.1") -> bytes:
    lines = ["%s %s %s" % (method, path, version), "Host: %s" % host]
    for key, value in (headers or {}).items():
        lines.append("%s: %s" % (key, value))
    if body and not any(key.lower() in ("content-length", "transfer-encoding") for key in (headers or {})):
        lines.append("Content-Length: %d" % len(body))
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def read_response(sock: socket.socket, timeout: float = 10.0, head_only: bool = False,
                  method: str = "GET", started: Optional[float] = None) -> Response:
    """Reads one response from sock (the request already written)."""
    response = Response()
    started = time.monotonic() if started is None else started
    deadline = started + timeout
    data = b""

    def receive() -> bool:
        nonlocal data
        left = deadline - time.monotonic()
        if left <= 0:
            response.timed_out = True
            return False
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            response.timed_out = True
            return False
        except ConnectionResetError:
            response.closed = response.reset = True
            return False
        except OSError:
            response.closed = True
            return False
        if not chunk:
            response.closed = True
            return False
        data += chunk
        return True

    while b"\r\n\r\n" not in data:
        if not receive():
            response.seconds = time.monotonic() - started
            response.raw_head = data
            return response
    head, _, rest = data.partition(b"\r\n\r\n")
    response.raw_head = head
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    try:
        response.status = int(parts[1])
    except (IndexError, ValueError):
        response.status = None
    response.reason = parts[2] if len(parts) > 2 else ""
    for line in lines[1:]:
        key, _, value = line.partition(":")
        response.headers.append((key.strip(), value.strip()))
    data = rest
    no_body = head_only or method == "HEAD" or response.status in (204, 304) or (
        response.status is not None and 100 <= response.status < 200)
    if no_body:
        response.leftover = data
        response.seconds = time.monotonic() - started
        return response
    length = response.header("Content-Length")
    chunked = "chunked" in (response.header("Transfer-Encoding") or "").lower()
    if length is not None and not chunked:
        wanted = int(length)
        while len(data) < wanted and receive():
            pass
        response.body = data[:wanted]
    elif chunked:
        body = b""
        while True:
            while b"\r\n" not in data:
                if not receive():
                    break
            size_line, _, data = data.partition(b"\r\n")
            try:
                size = int(size_line.split(b";")[0].strip() or b"0", 16)
            except ValueError:
                break
            if size == 0:
                break
            while len(data) < size + 2 and receive():
                pass
            body += data[:size]
            data = data[size + 2:]
        response.body = body
    else:
        while receive():
            pass
        response.body = data
    response.seconds = time.monotonic() - started
    return response


def exchange(port: int, raw: bytes, timeout: float = 10.0, host: str = "127.0.0.1", method: str = "GET",
             then_probe_close: float = 0.0) -> Response:
    """Writes raw on a new connection and reads one response. With then_probe_close > 0, waits that
    long more for the server to close the connection (response.closed)."""
    started = time.monotonic()
    try:
        sock = connect(port, host, timeout)
    except OSError as error:
        response = Response(closed=True, seconds=time.monotonic() - started)
        response.reason = "connect failed: %s" % error
        return response
    try:
        try:
            sock.sendall(raw)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server may close before reading everything (an oversized head): read its answer
        response = read_response(sock, timeout, method=method, started=started)
        if then_probe_close > 0 and not response.closed:
            sock.settimeout(then_probe_close)
            try:
                response.closed = sock.recv(1) == b""
            except socket.timeout:
                pass
            except OSError:
                response.closed = True
        return response
    finally:
        sock.close()


def get(port: int, path: str, headers: Optional[Dict[str, str]] = None, timeout: float = 10.0,
        method: str = "GET", host: str = "127.0.0.1") -> Response:
    """One request, Connection: close."""
    all_headers = {"Connection": "close"}
    all_headers.update(headers or {})
    return exchange(port, request_bytes(method, path, all_headers, host=host), timeout, host=host, method=method)
