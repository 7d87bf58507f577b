"""What every report states of what it measured and with what: the commit, the time, the builds' settings."""
import datetime
import subprocess

from benchkit import ROOT
from benchkit.core import buildsconf


def command_output(*command):
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=30)
        return result.stdout + result.stderr
    except (OSError, subprocess.TimeoutExpired):
        return ""


def git_commit():
    return command_output("git", "-C", str(ROOT), "rev-parse", "--short", "HEAD").strip()


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def build_settings():
    """The pool and executor sizes each build runs with, and the build's own JVM options (buildsconf)."""
    return buildsconf.pool_settings()
