import os
import pathlib
import pwd
import struct
import subprocess
import time

import pytest

from benchkit.platforms import hsperf


def hsperf_file(counters, order="<"):
    """An hsperfdata file as HotSpot lays it out, with these longs and strings."""
    entries = b""
    for name, value in counters.items():
        encoded = name.encode() + b"\0"
        header = struct.calcsize(order + hsperf.ENTRY)
        name_offset, data_offset = header, header + len(encoded) + (-(header + len(encoded)) % 8)
        data = struct.pack(order + "q", value) if isinstance(value, int) else value.encode() + b"\0"
        vector = 0 if isinstance(value, int) else len(data)
        body = encoded.ljust(data_offset - header, b"\0") + data
        length = header + len(body) + (-(header + len(body)) % 8)
        entries += struct.pack(order + hsperf.ENTRY, length, name_offset, vector, ord("J" if vector == 0 else "B"),
                               0, 0, 0, data_offset) + body.ljust(length - header, b"\0")
    prologue = struct.pack(">I", hsperf.MAGIC) + struct.pack(order + "BBBBiiqii", 1 if order == "<" else 0, 2, 0, 1,
                                                              0, 0, 0, hsperf.PROLOGUE.size, len(counters))
    return prologue + entries


@pytest.mark.parametrize("order", ["<", ">"])
def test_longs_and_strings_in_either_byte_order(order):
    found = hsperf.parse(hsperf_file({"sun.os.hrt.frequency": 1_000_000_000, "java.ci.totalTime": 2_500_000_000,
                                      "sun.ci.totalCompiles": 1181, "sun.gc.collector.0.time": 40_000_000,
                                      "sun.gc.collector.1.time": 10_000_000, "sun.rt.javaCommand": "quarkus-run.jar",
                                      "sun.threads.total_gc_cpu_time": 120_000_000},
                                     order))
    assert found["sun.rt.javaCommand"] == "quarkus-run.jar"
    # GC: its pauses (wall clock) and its threads' CPU apart
    assert hsperf.jvm_times(found) == {"jit_seconds": 2.5, "compilations": 1181, "gc_seconds": 0.05,
                                       "gc_cpu_seconds": 0.12}
    del found["sun.threads.total_gc_cpu_time"]  # a JDK before 23
    assert hsperf.jvm_times(found)["gc_cpu_seconds"] is None


def test_anything_else_is_refused():
    with pytest.raises(ValueError):
        hsperf.parse(b"\0" * 64)


def test_a_running_jvm_reads_as_jcmd_prints_it(tmp_path):
    java_home = pathlib.Path(os.environ.get("JAVA_HOME", "/nonexistent"))
    if not (java_home / "bin" / "jcmd").exists():
        pytest.skip("no JDK with jcmd (JAVA_HOME)")
    source = tmp_path / "Idle.java"
    source.write_text("public class Idle { public static void main(String[] a) throws Exception { Thread.sleep(60_000); } }")
    process = subprocess.Popen([str(java_home / "bin" / "java"), str(source)])
    try:
        perf = pathlib.Path(f"/tmp/hsperfdata_{pwd.getpwuid(os.getuid()).pw_name}/{process.pid}")
        deadline = time.monotonic() + 60
        while not perf.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        printed = subprocess.run([str(java_home / "bin" / "jcmd"), str(process.pid), "PerfCounter.print"],
                                 capture_output=True, text=True, check=True).stdout
        found = hsperf.parse(perf.read_bytes())
        expected = dict(line.split("=", 1) for line in printed.splitlines() if "=" in line)
        from_jcmd = hsperf.parse_printed(printed)  # the way into a JVM that keeps no file
        assert from_jcmd["sun.os.hrt.frequency"] == found["sun.os.hrt.frequency"]
        assert hsperf.jvm_times(from_jcmd)["jit_seconds"] > 0
        # the clock and the process's constants are read the same; counters that move may have moved on since
        for name in ("sun.os.hrt.frequency", "sun.rt.createVmBeginTime", "java.property.java.vm.version"):
            assert str(found[name]) == expected[name].strip('"')
        assert hsperf.jvm_times(found)["jit_seconds"] > 0
    finally:
        process.kill()
        process.wait()
