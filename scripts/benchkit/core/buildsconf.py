"""The builds' configuration, read here and nowhere else in the harness, when asked: services/builds.conf (the builds
in their order with what each is, and the lines that give a build JVM options or chart values of its own), the value
of a property each build ships with (its application.properties, else its service's config module), the edge's
admission, the Quarkus version. Make and the shell ask this module for what they need (python3 -m benchkit builds …;
the standard library is enough):

    builds versions              v1 v2 v3
    builds floor                 v0
    builds java-options VERSION  the build's own JVM options, or nothing
    builds chart-values VERSION  its chart values in its pods, name=value words, or nothing
    builds shell                 Bash declarations: BUILDS, FLOOR, BUILD_JAVA_OPTIONS, BUILD_CHART_VALUES"""
import functools
import pathlib
import re
import shlex
import sys

SERVICES_DIR = pathlib.Path(__file__).resolve().parents[3] / "services"
CONF = SERVICES_DIR / "builds.conf"
# The properties that size a build's pools and executors: what every report states of each build.
POOL_PROPERTIES = re.compile(r"^(quarkus\.thread-pool\.max-threads|"
                             r"quarkus\.datasource\.(jdbc|reactive)\.max-size|quarkus\.datasource\.reactive\.[a-z.-]+|"
                             r"web-api\.author-lookups\.max-concurrency|quarkus\.rest-client\.[a-z]+\.connection-pool-size)=")


def builds(conf=CONF):
    """{version: what it is} from builds.conf, the one list of the builds, in its order."""
    found = {}
    for line in conf.read_text().splitlines():
        if re.match(r"v[0-9]+ ", line):
            version, description = line.split(" ", 1)
            found[version] = description
    return found


def floor(conf=CONF):
    """{version: what it is} of the floor (builds.conf's floor line): the read alone, in plain Vert.x."""
    return build_lines("floor", conf)


def build_lines(kind, conf=CONF):
    """{version: what follows} of builds.conf's lines of one kind ("java-options v3: …", "chart-values v2: …")."""
    return dict(re.match(rf"{kind} (v[0-9]+): (.*)", line).groups() for line in conf.read_text().splitlines()
                if line.startswith(kind + " "))


def java_options(conf=CONF):
    """{version: JVM options} of the builds that run with options of their own (builds.conf's java-options lines)."""
    return build_lines("java-options", conf)


def properties_files(service, version):
    """A build's own application.properties of a service, then what every build of that service shares."""
    return (SERVICES_DIR / service / version / "src/main/resources/application.properties",
            SERVICES_DIR / service / "config/src/main/resources/META-INF/microprofile-config.properties")


def shipped(version, services, prop):
    """The value of a Quarkus property the build ships with in the first of these services that sets it, or None."""
    for service in services:
        for path in properties_files(service, version):
            for line in path.read_text().splitlines() if path.exists() else ():
                if line.startswith(prop + "="):
                    return line.split("=", 1)[1].strip()
    return None


def jvm_property(version, prop):
    """A JDK system property the build's own JVM options set (builds.conf's java-options lines), or None."""
    found = re.search(rf"-D{re.escape(prop)}=(\S+)", java_options().get(version, ""))
    return found.group(1) if found else None


def pool_settings():
    """{service-version: [its pool and executor sizes as property=value lines, and the build's own JVM options]}."""
    options = java_options()
    settings = {}
    for path in sorted(SERVICES_DIR.glob("*/v[0-9]/src/main/resources/application.properties")):
        version, service = path.parents[3].name, path.parents[3].parent.name
        settings[f"{service}-{version}"] = [line for line in path.read_text().splitlines() if POOL_PROPERTIES.match(line)]
        settings[f"{service}-{version}"] += options.get(version, "").split()
    return settings


@functools.cache
def max_in_flight():
    """How many requests every build's edge admits at once (edge.max-in-flight, set once for all builds in the
    edge module; no build may set its own)."""
    shared = SERVICES_DIR / "edge/src/main/resources/META-INF/microprofile-config.properties"
    values = [line.split("=", 1)[1].strip() for line in shared.read_text().splitlines()
              if line.startswith("edge.max-in-flight=")]
    overrides = [str(p.relative_to(SERVICES_DIR.parent))
                 for p in SERVICES_DIR.glob("*/v[0-9]*/src/main/resources/application.properties")
                 if any(line.startswith("edge.max-in-flight=") for line in p.read_text().splitlines())]
    if len(values) != 1 or overrides:
        raise SystemExit(f"edge.max-in-flight must be set once, in the edge module: {values}, overridden in {overrides}")
    return int(values[0])


def quarkus_version():
    return re.search(r"<quarkus.platform.version>([^<]+)<", (SERVICES_DIR / "pom.xml").read_text()).group(1)


def shell(conf=CONF):
    """Bash declarations of what the scripts need (scripts/lib.sh evaluates them)."""
    def associative(name, values):
        return f"declare -gA {name}=(" + " ".join(f"[{k}]={shlex.quote(v)}" for k, v in values.items()) + ")"
    return "\n".join([f"BUILDS=({' '.join(builds(conf))})", f"FLOOR=({' '.join(floor(conf))})",
                      associative("BUILD_JAVA_OPTIONS", java_options(conf)),
                      associative("BUILD_CHART_VALUES", build_lines("chart-values", conf))])


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    what = argv[0] if argv else ""
    if what == "versions":
        print(" ".join(builds()))
    elif what == "floor":
        print(" ".join(floor()))
    elif what in ("java-options", "chart-values") and len(argv) == 2:
        print(build_lines(what).get(argv[1], ""))
    elif what == "shell":
        print(shell())
    else:
        sys.exit(__doc__)
