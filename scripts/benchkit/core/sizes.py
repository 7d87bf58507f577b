"""A size a build's services are given, as a pod's CPU limit gives it: a rung of a ladder ("0.5", "1", "2"; "0" for
no limit; "1p" for one processor counted and no quota). The CPU map climbs a ladder of them; an A/B measures its two
modes at each of its sizes."""
import math
import re

from benchkit import CHART_VALUES, SERVICES

NO_LIMIT = "0"
# the ladder of CPU per service a map measures unless told (CPU_MAP_SIZES): the answer's rows are its sizes whose
# quota binds where it ran, and the whole machine
LADDER = ("0.5", "1", "2", "0", "1p")


def rungs(text):
    """The ladder as given ("0.5,1,2,0,1p"), each rung written one way ("1.0" is "1")."""
    found = []
    for item in (part.strip() for part in str(text).split(",") if part.strip()):
        if not re.fullmatch(r"\d+(\.\d+)?p?", item):
            raise ValueError(f"{item!r}: a rung is CPUs (0.5, 1, 2; 0: no limit) or processors alone (1p)")
        found.append(f"{float(item.rstrip('p')):g}" + ("p" if item.endswith("p") else ""))
    return tuple(found)


def given(rung):
    """(CPUs of the quota or None, processors the JVM counts or None: as it derives them) of a rung."""
    if rung.endswith("p"):
        return None, int(float(rung[:-1]))
    return (float(rung) or None), None


def binds(size, cores):
    """Whether a pod's quota, not the machine, binds at this size: the three services' quotas add up to less than the
    cores (beyond that, they contend for the cores before the quota stops them)."""
    cpus, processors = given(size)
    return cpus is not None and processors is None and cores is not None and len(SERVICES) * cpus < cores


def label(rung):
    cpus, processors = given(rung)
    if processors:
        return f"{processors} processor{'s' if processors > 1 else ''}, no quota"
    return f"{cpus:g} CPU" if cpus else "no limit"


# The chart's values that follow a pod's CPU (charts/reactive-bench), each as the variable it sets in the services
PER_CPU_VALUES = {"eventLoopsPerCpu": "QUARKUS_VERTX_EVENT_LOOPS_POOL_SIZE"}


def counted_processors(cpus, processors, cores):
    """The processors a JVM counts in a pod of `cpus` (None: no limit): the ones given, else the quota rounded up,
    else the machine's cores."""
    return processors or (math.ceil(cpus) if cpus else cores)


def sized_environment(version, counted, java_options=None):
    """What a pod whose JVMs count `counted` processors gives a build's services beyond its quota, as the chart renders
    it: each of the build's chart values that follow the CPU (services/builds.conf's chart-values line; v2's event
    loops per CPU) times that count; and JVM options where given (JDK_JAVA_OPTIONS)."""
    values = dict(word.split("=", 1) for word in CHART_VALUES.get(version, "").split())
    found = {variable: str(int(values[name]) * counted) for name, variable in PER_CPU_VALUES.items() if name in values}
    return {**found, **({"JDK_JAVA_OPTIONS": java_options} if java_options else {})}


def with_settings(sized, settings):
    """A service's environment at a size (sized_environment) with a run's own settings over it: its variables win,
    and its JVM options come after the size's, so that a system property given on both takes the run's value (the
    JVM keeps the last)."""
    options = " ".join(filter(None, (sized.get("JDK_JAVA_OPTIONS"), settings.get("JDK_JAVA_OPTIONS"))))
    return {**sized, **settings, **({"JDK_JAVA_OPTIONS": options} if options else {})}


def sized_at(version, cpus):
    """What a pod of `cpus` CPUs gives the build's services (sized_environment, at the processors its JVMs
    count there); None without a size."""
    return sized_environment(version, counted_processors(cpus, None, None)) if cpus else None
