"""A throwaway certificate authority and a server certificate it signed, made with the openssl command
(for a TLS server under test on loopback: the Traccar stand-in behind https:// in scripts/traccar).
The server certificate names 127.0.0.1 and localhost (subjectAltName), P-256 keys, valid two days."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

OPENSSL = "openssl"


@dataclass
class Certificates:
    ca: Path  # the CA's certificate, what a client is given (--cafile)
    certificate: Path  # the server's certificate
    key: Path  # the server's private key


def make(folder: Path) -> Certificates:
    """Writes ca.pem, server.pem and server.key (and the CA's key) into folder."""
    folder.mkdir(parents=True, exist_ok=True)
    ca, ca_key = folder / "ca.pem", folder / "ca.key"
    certificate, key, request = folder / "server.pem", folder / "server.key", folder / "server.csr"
    extensions = folder / "server.ext"
    extensions.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
                          "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n")
    key_options = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run([OPENSSL, "req", "-x509", *key_options, "-keyout", str(ca_key), "-out", str(ca), "-days", "2",
         "-subj", "/CN=loctrack test CA", "-addext", "basicConstraints=critical,CA:TRUE",
         "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
    run([OPENSSL, "req", *key_options, "-keyout", str(key), "-out", str(request), "-subj", "/CN=127.0.0.1"])
    run([OPENSSL, "x509", "-req", "-in", str(request), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
         "-out", str(certificate), "-days", "2", "-extfile", str(extensions)])
    return Certificates(ca, certificate, key)


def run(argv) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(argv[:3]), done.returncode, done.stderr.strip()[-300:]))
