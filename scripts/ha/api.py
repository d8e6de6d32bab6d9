"""Home Assistant's state, read the way its own clients read it: the REST API (states, config,
history) and the WebSocket API (the entity and device registries, state_changed events as they
happen). Python's standard library only: the WebSocket client here speaks just what Home
Assistant's server needs (RFC 6455 text frames, client-masked, no extensions).
"""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Dict, List, Optional


class Rest:
    def __init__(self, port: int, token: str):
        self.base = "http://127.0.0.1:%d" % port
        self.token = token

    def _request(self, method: str, path: str, body: Any = None, timeout: float = 10) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method, headers={
            "Authorization": "Bearer " + self.token, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                text = response.read().decode()
        except urllib.error.HTTPError as error:
            if error.code == 404:
                return None
            raise OSError("%s %s: HTTP %d %s" % (method, path, error.code, error.read()[:200])) from None
        try:
            return json.loads(text)
        except ValueError:
            return text

    def get(self, path: str) -> Any:
        return self._request("GET", path)

    def post(self, path: str, body: Any) -> Any:
        return self._request("POST", path, body)

    def states(self) -> List[Dict]:
        return self.get("/api/states") or []

    def state(self, entity_id: str) -> Optional[Dict]:
        return self.get("/api/states/" + entity_id)

    def history(self, entity_id: str, start_iso: str) -> List[Dict]:
        """Every recorded state of the entity since start_iso (the recorder's rows, attributes too)."""
        rows = self.get("/api/history/period/%s?filter_entity_id=%s" % (start_iso, entity_id))
        return rows[0] if rows else []


class WebSocket:
    """One authenticated connection to /api/websocket: call() for commands, events for what
    subscribe_state_changes() delivers (each the event's data, with the time it arrived)."""

    def __init__(self, port: int, token: str, timeout: float = 10):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET /api/websocket HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
                           "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
                           % (port, key)).encode())
        self._buffer = b""
        while b"\r\n\r\n" not in self._buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise OSError("websocket: connection closed during the handshake")
            self._buffer += chunk
        head, self._buffer = self._buffer.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise OSError("websocket: no upgrade: %r" % head[:200])
        if self._receive().get("type") != "auth_required":
            raise OSError("websocket: no auth_required")
        self._send({"type": "auth", "access_token": token})
        answer = self._receive()
        if answer.get("type") != "auth_ok":
            raise OSError("websocket: %r" % answer)
        self.sock.settimeout(None)
        self._next_id = 1
        self._results: Dict[int, Dict] = {}
        self.events: List[tuple] = []  # (arrival time.time(), event data)
        self.cond = threading.Condition()
        self.closed = False
        threading.Thread(target=self._read, daemon=True, name="ha-websocket").start()

    # -- frames ----------------------------------------------------------------------------

    def _send(self, message: Dict) -> None:
        payload = json.dumps(message).encode()
        header = bytearray([0x81])  # FIN, text
        if len(payload) < 126:
            header.append(0x80 | len(payload))
        elif len(payload) < 65536:
            header += bytes([0x80 | 126]) + struct.pack("!H", len(payload))
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", len(payload))
        mask = os.urandom(4)
        header += mask
        self.sock.sendall(bytes(header) + bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload)))

    def _exactly(self, count: int) -> bytes:
        while len(self._buffer) < count:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise OSError("websocket: connection closed")
            self._buffer += chunk
        data, self._buffer = self._buffer[:count], self._buffer[count:]
        return data

    def _receive(self) -> Dict:
        message = b""
        while True:
            first, second = self._exactly(2)
            opcode, length = first & 0x0F, second & 0x7F
            if length == 126:
                length = struct.unpack("!H", self._exactly(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", self._exactly(8))[0]
            payload = self._exactly(length)  # the server does not mask
            if opcode == 0x8:
                raise OSError("websocket: closed by Home Assistant")
            if opcode == 0x9:  # ping: pong with the same payload
                self.sock.sendall(bytes([0x8A, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)
                continue
            if opcode in (0x1, 0x0):
                message += payload
                if first & 0x80:
                    return json.loads(message)

    def _read(self) -> None:
        try:
            while True:
                message = self._receive()
                with self.cond:
                    if message.get("type") == "event":
                        self.events.append((time.time(), message["event"]))
                    else:
                        self._results[message.get("id")] = message
                    self.cond.notify_all()
        except (OSError, ValueError):
            with self.cond:
                self.closed = True
                self.cond.notify_all()

    # -- commands ----------------------------------------------------------------------------

    def call(self, kind: str, timeout: float = 10, **fields) -> Any:
        """Sends a command, returns its result (OSError on an error answer or no answer in time)."""
        with self.cond:
            ident = self._next_id
            self._next_id += 1
        self._send(dict(fields, id=ident, type=kind))
        deadline = time.monotonic() + timeout
        with self.cond:
            while ident not in self._results:
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    raise OSError("websocket: no answer to %s within %.0f s" % (kind, timeout))
                self.cond.wait(left)
            answer = self._results.pop(ident)
        if not answer.get("success", False):
            raise OSError("websocket: %s failed: %r" % (kind, answer.get("error")))
        return answer.get("result")

    def entities(self) -> List[Dict]:
        """The entity registry: entity_id, unique_id, platform, device_id, … per entity."""
        return self.call("config/entity_registry/list")

    def devices(self) -> List[Dict]:
        """The device registry: identifiers, name, model, manufacturer, sw_version, … per device."""
        return self.call("config/device_registry/list")

    def subscribe_state_changes(self) -> None:
        self.call("subscribe_events", event_type="state_changed")

    def state_changes(self, entity_id: str) -> List[tuple]:
        """(arrival, new_state) of every state_changed event of entity_id received so far."""
        with self.cond:
            events = list(self.events)
        return [(at, event["data"]["new_state"]) for at, event in events
                if event.get("data", {}).get("entity_id") == entity_id]

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
