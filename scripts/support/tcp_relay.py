"""A TCP relay on loopback that can cut the line: what a phone walking out of Wi-Fi does to a page.

Between a client (the browser) and a server (loctrack serve): every connection accepted on
`port` is joined to a new connection to the target, bytes copied both ways by two threads. cut()
ends every joined connection at once (both sides shut down, so the browser sees a network
error, not a clean end of stream) and, until restore(), resets every new connection as soon as
it is accepted, so the client's retries fail too.
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from typing import List, Optional, Tuple


class Relay:
    def __init__(self, target_port: int, target_host: str = "127.0.0.1", host: str = "127.0.0.1"):
        self.target = (target_host, target_port)
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind((host, 0))
        self.listener.listen(128)
        self.listener.settimeout(0.2)
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.pairs: List[Tuple[socket.socket, socket.socket]] = []
        self.cut_now = threading.Event()
        self.stopping = threading.Event()
        self.accepted = 0
        self.refused_while_cut = 0
        self.cut_at: Optional[float] = None
        self.restored_at: Optional[float] = None
        self.thread = threading.Thread(target=self._accept, name="relay-accept", daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                client, _ = self.listener.accept()
            except socket.timeout:
                continue
            except OSError:
                break
            if self.cut_now.is_set():
                self.refused_while_cut += 1
                _reset(client)
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                _reset(client)
                continue
            client.settimeout(None)
            with self.lock:
                self.accepted += 1
                self.pairs.append((client, upstream))
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True, name="relay-up").start()
            threading.Thread(target=self._pump, args=(upstream, client), daemon=True, name="relay-down").start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        finally:
            try:
                sink.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def cut(self) -> None:
        """Ends every joined connection (a reset towards the client) and refuses new ones."""
        self.cut_now.set()
        self.cut_at = time.monotonic()
        with self.lock:
            pairs, self.pairs = self.pairs, []
        for client, upstream in pairs:
            _reset(client)
            try:
                upstream.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            upstream.close()

    def restore(self) -> None:
        self.restored_at = time.monotonic()
        self.cut_now.clear()

    def stop(self) -> None:
        self.stopping.set()
        self.cut()
        self.thread.join(timeout=2)
        self.listener.close()


def _reset(sock: socket.socket) -> None:
    """Closes with a RST (SO_LINGER 0): the peer sees ECONNRESET, as when a network goes away."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        # SHUT_RD sends nothing but wakes a pump thread blocked in recv on it (close alone does not).
        sock.shutdown(socket.SHUT_RD)
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass
