"""services/builds.conf, parsed here and nowhere else: the builds in their order with what each is, and the lines
that give a build JVM options or chart values of its own. Make and the shell ask this module for what they need
(python3 -m benchkit builds …; the standard library is enough):

    builds versions              v1 v2 v3
    builds java-options VERSION  the build's own JVM options, or nothing
    builds chart-values VERSION  its chart values in its pods, name=value words, or nothing
    builds shell                 Bash declarations: BUILDS, BUILD_JAVA_OPTIONS, BUILD_CHART_VALUES"""
import pathlib
import re
import shlex
import sys

CONF = pathlib.Path(__file__).resolve().parents[2] / "services" / "builds.conf"


def builds(conf=CONF):
    """{version: what it is} from builds.conf, the one list of the builds, in its order."""
    found = {}
    for line in conf.read_text().splitlines():
        if re.match(r"v[0-9]+ ", line):
            version, description = line.split(" ", 1)
            found[version] = description
    return found


def build_lines(kind, conf=CONF):
    """{version: what follows} of builds.conf's lines of one kind ("java-options v3: …", "chart-values v2: …")."""
    return dict(re.match(rf"{kind} (v[0-9]+): (.*)", line).groups() for line in conf.read_text().splitlines()
                if line.startswith(kind + " "))


def java_options(conf=CONF):
    """{version: JVM options} of the builds that run with options of their own (builds.conf's java-options lines)."""
    return build_lines("java-options", conf)


def shell(conf=CONF):
    """Bash declarations of what the scripts need (scripts/lib.sh evaluates them)."""
    def associative(name, values):
        return f"declare -gA {name}=(" + " ".join(f"[{k}]={shlex.quote(v)}" for k, v in values.items()) + ")"
    return "\n".join([f"BUILDS=({' '.join(builds(conf))})",
                      associative("BUILD_JAVA_OPTIONS", java_options(conf)),
                      associative("BUILD_CHART_VALUES", build_lines("chart-values", conf))])


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    what = argv[0] if argv else ""
    if what == "versions":
        print(" ".join(builds()))
    elif what in ("java-options", "chart-values") and len(argv) == 2:
        print(build_lines(what).get(argv[1], ""))
    elif what == "shell":
        print(shell())
    else:
        sys.exit(__doc__)
