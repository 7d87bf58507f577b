"""HotSpot's performance counters, read from the file every JVM keeps (/tmp/hsperfdata_<user>/<pid>, what jstat and
`jcmd <pid> PerfCounter.print` read): JIT compile time, GC time, and the clock they count in. Reading the file needs
no JDK tool, so it works the same for a local process and, through `kubectl exec … cat`, in a JRE-only pod.

The file (HotSpot's perfMemory): a 32-byte prologue (magic 0xcafec0c0, byte order, versions, accessible flag, used
and overflow sizes, modification time, offset and count of the entries), then the entries, each a header of
entry length, name offset, vector length, type, flags, units, variability, data offset; a long ('J') or a byte
vector ('B', a string).
"""
import struct

MAGIC = 0xCAFEC0C0
PROLOGUE = struct.Struct(">IBBBBiiqii")  # magic is big-endian always; the rest as byte_order says
ENTRY = "iiiBBBBi"


def parse(data):
    """{name: int or str} of every counter in an hsperfdata file's bytes."""
    if len(data) < PROLOGUE.size or struct.unpack_from(">I", data)[0] != MAGIC:
        raise ValueError("not an hsperfdata file")
    order = "<" if data[4] == 1 else ">"
    _, _, _, _, _, _, _, _, entry_offset, count = struct.unpack_from(order + PROLOGUE.format[1:], data)
    entry = struct.Struct(order + ENTRY)
    counters, offset = {}, entry_offset
    for _ in range(count):
        length, name_offset, vector_length, kind, _, _, _, data_offset = entry.unpack_from(data, offset)
        name = data[offset + name_offset:data.index(b"\0", offset + name_offset)].decode("ascii", "replace")
        start = offset + data_offset
        if kind == ord("J") and vector_length == 0:
            counters[name] = struct.unpack_from(order + "q", data, start)[0]
        elif kind == ord("B") and vector_length > 0:
            counters[name] = data[start:start + vector_length].split(b"\0", 1)[0].decode("utf-8", "replace")
        offset += length
    return counters


def parse_printed(text):
    """{name: int or str} from what `jcmd <pid> PerfCounter.print` prints (name=value, strings quoted)."""
    counters = {}
    for line in text.splitlines():
        name, equals, value = line.partition("=")
        if not equals or " " in name:
            continue
        counters[name] = value.strip('"') if value.startswith('"') else int(value) if value.lstrip("-").isdigit() else value
    return counters


def seconds(counters, *names):
    """The first of these tick counters that the JVM has, in seconds (sun.os.hrt.frequency ticks a second)."""
    frequency = counters.get("sun.os.hrt.frequency")
    found = next((counters[name] for name in names if name in counters), None)
    return found / frequency if found is not None and frequency else None


def jvm_times(counters):
    """What the report needs of one JVM: JIT compile time, compilations, GC time (every collector's pauses, wall
    clock) and the GC threads' CPU time, in seconds."""
    collectors = [name for name in counters if name.startswith("sun.gc.collector.") and name.endswith(".time")]
    gc_cpu = counters.get("sun.threads.total_gc_cpu_time")  # nanoseconds, every GC thread's CPU (JDK 23+)
    return {"jit_seconds": seconds(counters, "java.ci.totalTime", "sun.ci.totalTime"),
            "compilations": counters.get("sun.ci.totalCompiles"),
            "gc_seconds": sum(seconds(counters, name) for name in collectors) if collectors else None,
            "gc_cpu_seconds": gc_cpu / 1e9 if isinstance(gc_cpu, int) else None}
