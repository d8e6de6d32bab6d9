"""The virtual environment Home Assistant runs from: .build-ha/venv (gitignored as .build-*/).

It is made from requirements.txt, a lock of every package with its version, installed with
--no-deps: the same packages on every machine and no resolver run (about a minute, mostly the
download of Home Assistant and its frontend). `lock` re-resolves that file from requirements.in:
Home Assistant first, then the requirements its integrations declare in their manifests (those
this harness loads, and what they depend on), under Home Assistant's package_constraints.txt, as
Home Assistant itself would install them.

A stamp in the venv holds the lock's hash: a changed lock makes a new venv (support/pinned_venv,
shared with scripts/serve).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterable, List, Set

from support import pinned_venv

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
VENV = ROOT / ".build-ha" / "venv"
REQUIREMENTS_IN = HERE / "requirements.in"
LOCK = HERE / "requirements.txt"
HA_VERSION = "2024.3.3"

# What instance.py's configuration sets up besides Home Assistant's default integrations
# (bootstrap.DEFAULT_INTEGRATIONS, CORE_INTEGRATIONS, LOGGING_INTEGRATIONS).
INTEGRATIONS = [
    "homeassistant", "persistent_notification", "logger", "system_log", "frontend", "recorder",
    "application_credentials", "backup", "hardware", "network", "system_health", "automation",
    "person", "scene", "script", "tag", "zone", "counter", "input_boolean", "input_button",
    "input_datetime", "input_number", "input_select", "input_text", "schedule", "timer",
    "api", "http", "history", "mqtt", "owntracks", "device_tracker", "sensor", "binary_sensor",
]
# Reached only as an after-dependency of one never set up here (google_assistant).
NOT_NEEDED = {"matter"}


def python(venv: Path = VENV) -> Path:
    return pinned_venv.python(venv)


def ready(venv: Path = VENV) -> bool:
    """Whether venv exists, was made from the current lock, and imports Home Assistant."""
    if not python(venv).exists() or not pinned_venv.made_from(venv, LOCK):
        return False
    check = "import homeassistant.const as c, nacl, paho.mqtt, hass_nabucasa; assert c.__version__ == %r" % HA_VERSION
    return subprocess.run([str(python(venv)), "-c", check], capture_output=True).returncode == 0


def interpreter() -> str:
    """A Python the lock installs into: this one if it is 3.11 (the lock's wheels are for 3.11;
    Home Assistant 2024.3 admits 3.11 and 3.12), else python3.11 from PATH."""
    if sys.version_info[:2] == (3, 11):
        return sys.executable
    found = shutil.which("python3.11")
    if found is None:
        raise SystemExit("ha: Home Assistant %s's lock needs Python 3.11 (this is %d.%d, and there is no python3.11 "
                         "on PATH)" % (HA_VERSION, *sys.version_info[:2]))
    return found


def ensure(venv: Path = VENV) -> None:
    """Makes venv unless it is ready; says how long that took."""
    pinned_venv.ensure(venv, LOCK, ready, interpreter, tool="ha", contents="Home Assistant",
                       not_working="does not import Home Assistant %s" % HA_VERSION)


def integration_requirements(components: Path, domains: Iterable[str]) -> Dict[str, Set[str]]:
    """requirement -> the integrations declaring it, over the closure of `domains` through their
    manifests' dependencies and after_dependencies (without NOT_NEEDED)."""
    requirements: Dict[str, Set[str]] = {}
    seen: Set[str] = set()
    todo: List[str] = list(domains)
    while todo:
        domain = todo.pop()
        if domain in seen or domain in NOT_NEEDED:
            continue
        seen.add(domain)
        manifest = json.loads((components / domain / "manifest.json").read_text())
        for requirement in manifest.get("requirements", []):
            requirements.setdefault(requirement, set()).add(domain)
        todo += manifest.get("dependencies", []) + manifest.get("after_dependencies", [])
    return requirements


def lock() -> None:
    """Resolves requirements.in and the integrations' requirements afresh, writes requirements.txt."""
    with pinned_venv.scratch_venv(VENV.parent, "ha-lock.", interpreter) as venv:
        pinned_venv.pip(venv, "install", "--quiet", "-r", str(REQUIREMENTS_IN))
        site = Path(subprocess.run([str(python(venv)), "-c", "import homeassistant, os; "
                                    "print(os.path.dirname(homeassistant.__file__))"],
                                   check=True, capture_output=True, text=True).stdout.strip())
        wanted = integration_requirements(site / "components", INTEGRATIONS)
        listing = venv.parent / "integrations.txt"
        listing.write_text("".join(requirement + "\n" for requirement in sorted(wanted)))
        pinned_venv.pip(venv, "install", "--quiet", "-r", str(listing), "-c", str(site / "package_constraints.txt"))
        frozen = pinned_venv.freeze(venv)
    header = ("# Generated by `python3 scripts/ha lock` from requirements.in and the requirements of the\n"
              "# integrations in venv.py INTEGRATIONS; installed with pip --no-deps. Do not edit.\n"
              "# Integration requirements: %s\n" % ", ".join(sorted(wanted)))
    LOCK.write_text(header + frozen)
    print("ha: wrote %s (%d packages)" % (LOCK.relative_to(ROOT), frozen.count("\n")))
