"""A size a build's services are given, as a pod's CPU limit gives it: a rung of a ladder ("0.5", "1", "2"; "0" for
no limit; "1p" for one processor counted and no quota). The CPU map climbs a ladder of them; an A/B measures its two
modes at each of its sizes."""
import re

from benchkit import SERVICES

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
