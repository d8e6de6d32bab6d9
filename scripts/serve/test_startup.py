"""Test 4: what `loctrack serve` refuses before anything is served: one line on stderr (starting
"loctrack: "), nothing on stdout, the documented exit code (each run waited for up to 30 s: the time
a loaded machine takes to start a process is not what is tested).

- a non-loopback --listen without --token-file: 64;
- a token file that is missing, empty, blank, a directory, over 64 KiB, readable or writable by
  group or others (644, 640, 604, 620, 606), or a token a cookie cannot hold (a blank, `;`, `,`,
  `"`, `\`, a control character): 78;
- a port already in use (a socket listening on it): 69;
- a malformed --listen: 64;
and, as the control, the same command with a valid --listen starts, listens and ends with exit 0
on SIGTERM.
"""

from __future__ import annotations

import os
import socket
import time

from support.processes import free_port, release_port
from support.results import Result
from support.serve_process import Serve, run_once

from .harness import Settings

TITLE = "refused starts: exit codes and one line"
EXPECTATION = "64 non-loopback without token / malformed --listen; 78 token file missing, empty or not 600; " \
              "69 port in use; one line on stderr; a valid start listens and exits 0 on SIGTERM"


def run(settings: Settings, r: Result) -> None:
    workdir = settings.workdir("4-startup")
    source = "127.0.0.1:%d" % free_port()  # nobody there: the refusals come before gpsd matters
    port = free_port()
    release_port(port)

    def token_file(name: str, content: str, mode: int) -> str:
        path = workdir / name
        if path.is_dir():
            path.rmdir()
        path.write_text(content)
        os.chmod(path, mode)
        return str(path)

    good = token_file("token-600", "s3cret-token\n", 0o600)
    directory = workdir / "token-dir"
    directory.mkdir(exist_ok=True)
    any_address = "0.0.0.0:%d" % port
    cases = [
        ("--listen 0.0.0.0:PORT without --token-file", ["--listen", any_address, source], 64),
        ("--listen [::]:PORT without --token-file", ["--listen", "[::]:%d" % port, source], 64),
        ("--token-file that does not exist", ["--listen", any_address, "--token-file", str(workdir / "absent"), source], 78),
        ("--token-file empty", ["--listen", any_address, "--token-file", token_file("token-empty", "", 0o600), source], 78),
        ("--token-file of blanks", ["--listen", any_address, "--token-file", token_file("token-blank", "  \n\t\n", 0o600),
                                    source], 78),
        ("--token-file a directory", ["--listen", any_address, "--token-file", str(directory), source], 78),
        ("--token-file of 70 KiB", ["--listen", any_address, "--token-file",
                                    token_file("token-big", "x" * (70 * 1024) + "\n", 0o600), source], 78),
    ]
    for name, content in (("blank", "two words\n"), ("semicolon", "abc;def\n"), ("comma", "abc,def\n"),
                          ("quote", 'abc"def\n'), ("backslash", "abc\\def\n"), ("control", "abc\x01def\n")):
        cases.append(("a token with a %s in it" % name, ["--listen", any_address, "--token-file",
                                                          token_file("token-with-%s" % name, content, 0o600), source], 78))
    for mode in (0o644, 0o640, 0o604, 0o620, 0o606):
        cases.append(("--token-file mode %o" % mode, ["--listen", any_address, "--token-file",
                                                      token_file("token-%o" % mode, "s3cret-token\n", mode), source], 78))
    for listen in ("127.0.0.1:", "127.0.0.1:port", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:80:90", ":::",
                   "", "127.0.0.1:8947x", "127.000.0.1:8947", "example.com:8947", "[::1:8947", "::1:8947",
                   "256.1.1.1:8947"):
        cases.append(("--listen %r" % listen, ["--listen", listen, source], 64))
    cases.append(("an unknown option", ["--no-such-option", source], 64))

    for what, args, expected in cases:
        check_refusal(r, settings, what, args, expected)

    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    try:
        busy = holder.getsockname()[1]
        check_refusal(r, settings, "a port already in use (127.0.0.1:PORT)", ["--listen", "127.0.0.1:%d" % busy, source], 69)
        check_refusal(r, settings, "a port already in use, with a token (0.0.0.0:PORT)",
                      ["--listen", "0.0.0.0:%d" % busy, "--token-file", good, source], 69)
    finally:
        holder.close()

    for listen_host, extra in (("127.0.0.1", []), ("0.0.0.0", ["--token-file", good])):
        try:
            serve = Serve(settings.loctrack, extra + [source], workdir, name="control-%s" % listen_host,
                          listen_host=listen_host, start_timeout=30)
        except RuntimeError as error:
            r.check(False, "control: --listen %s:PORT %s starts and listens" % (listen_host, " ".join(extra)), error)
            continue
        r.check(True, "control: --listen %s:PORT %s starts and listens (in %.2f s)"
                % (listen_host, "--token-file (600)" if extra else "", serve.listening_after))
        started = time.monotonic()
        code = serve.terminate(timeout=30)
        r.check(code == 0, "control: SIGTERM ends it with exit 0", "exit %s after %.2f s"
                % (code, time.monotonic() - started))


def check_refusal(r: Result, settings: Settings, what: str, args, expected: int) -> None:
    started = time.monotonic()
    done = run_once(settings.loctrack, args, timeout=30)
    seconds = time.monotonic() - started
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    r.check(done.returncode == expected and len(lines) == 1 and lines[0].startswith("loctrack: ")
            and not done.stdout.strip(),
            "%s: exit %d, one line on stderr, nothing on stdout" % (what, expected),
            "exit %s after %.2f s, stderr %r, stdout %r" % (done.returncode, seconds, lines[:3], done.stdout[:80]))
