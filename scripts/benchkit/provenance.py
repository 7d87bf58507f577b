"""What every report states of what it measured and with what: the commit, the time, the builds' settings."""
import datetime
import re
import subprocess

from . import JAVA_OPTIONS, ROOT


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
    """The pool and executor sizes each build runs with, from its application.properties, and the build's own JVM
    options (services/builds.conf)."""
    wanted = re.compile(r"^(quarkus\.thread-pool\.max-threads|"
                        r"quarkus\.datasource\.(jdbc|reactive)\.max-size|quarkus\.datasource\.reactive\.[a-z.-]+|"
                        r"web-api\.author-lookups\.max-concurrency|quarkus\.rest-client\.[a-z]+\.connection-pool-size)=")
    settings = {}
    for properties in sorted(ROOT.glob("services/*/v[0-9]/src/main/resources/application.properties")):
        build = f"{properties.parents[3].parent.name}-{properties.parents[3].name}"
        settings[build] = [line for line in properties.read_text().splitlines() if wanted.match(line)]
        settings[build] += JAVA_OPTIONS.get(properties.parents[3].name, "").split()
    return settings
