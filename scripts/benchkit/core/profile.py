"""Where each build spends its CPU: a JFR recording of every service during one closed run per build (not
one of the measured runs: profiling costs a little, and it costs every build alike), turned into
collapsed stacks (the folded format other flame-graph tools read too), a flame graph per service, and
the share of CPU samples that pass through each library.

JFR comes with the JDK the services run on: `jcmd <pid> JFR.start` needs no restart and no agent; in a pod, through
`kubectl exec` (the pod's image must have jcmd: the test node's base has it, a JRE-only image has not)."""
import concurrent.futures
import json
import pathlib
import subprocess
import zlib

from benchkit.core import knobs
from benchkit.core.layers import LAYERS, LIBRARIES, OTHER_LAYER

def jdk_tool(name):
    home = knobs.value("JAVA_HOME")
    return str(pathlib.Path(home) / "bin" / name) if home else name


class LocalRecording:
    """JFR in a JVM of this machine, through jcmd."""

    def __init__(self, pid):
        self.pid = pid

    def start(self):
        subprocess.run([jdk_tool("jcmd"), str(self.pid), "JFR.start", "name=benchkit", "settings=profile"],
                       check=True, stdout=subprocess.DEVNULL)

    def stop(self, recording):
        subprocess.run([jdk_tool("jcmd"), str(self.pid), "JFR.stop", "name=benchkit", f"filename={recording}"],
                       check=True, stdout=subprocess.DEVNULL)


def frame_name(frame):
    method = frame["method"]
    return f"{method['type']['name'].replace('/', '.')}.{method['name']}"  # some types come as internal names


TRUNCATED = "[stack deeper than recorded]"


def collapse(events):
    """{"root;…;leaf": samples} from jdk.ExecutionSample events as `jfr print --json` writes them
    (frames leaf first)."""
    folded = {}
    for event in events:
        trace = event["values"].get("stackTrace") or {}
        frames = [frame_name(frame) for frame in reversed(trace.get("frames") or [])]
        if frames and trace.get("truncated"):
            frames.insert(0, TRUNCATED)  # deeper than JFR's stack depth: the root side is missing
        if frames:
            key = ";".join(frames)
            folded[key] = folded.get(key, 0) + 1
    return folded


SAMPLE, PINNED = "jdk.ExecutionSample", "jdk.VirtualThreadPinned"


def events(recording):
    """The recording's CPU samples and pinned virtual threads (the profile settings record those of 20 ms and
    longer), as `jfr print --json` writes them: {event type: [events]}. One jfr run (a JVM start) for both."""
    printed = subprocess.run([jdk_tool("jfr"), "print", "--json", "--events", f"{SAMPLE},{PINNED}", str(recording)],
                             check=True, capture_output=True, text=True).stdout
    found = {SAMPLE: [], PINNED: []}
    for event in json.loads(printed)["recording"]["events"]:
        found.setdefault(event["type"], []).append(event)
    return found


JDK_POLLER = "sun.nio.ch.Poller"


def pinned(events):
    """jdk.VirtualThreadPinned events as `jfr print --json` writes them: how many pinned a carrier, where
    (the innermost frames of the first few), and how many were the JDK's own I/O pollers (not the application's)."""
    found, pollers = [], 0
    for event in events:
        frames = [frame_name(frame) for frame in ((event["values"].get("stackTrace") or {}).get("frames") or [])]
        if any(frame.startswith(JDK_POLLER) for frame in frames):
            pollers += 1
        else:
            found.append(" < ".join(frames[:4]) or "(no stack trace)")
    return {"count": len(found), "where": found[:5], "jdk_pollers": pollers}


def shares(folded):
    """{library: share of samples with one of its frames on the stack}, and the number of samples."""
    total = sum(folded.values())
    hits = dict.fromkeys((name for name, _ in LIBRARIES), 0)
    for stack, count in folded.items():
        for name in {library_of(frame) for frame in stack.split(";")} - {None}:
            hits[name] += count
    return {name: (hit / total if total else None) for name, hit in hits.items()}, total


def layers(folded):
    """{layer: share of samples} of LAYERS and OTHER_LAYER, each sample counted once (see LAYERS): they add up to 1."""
    total = sum(folded.values())
    found = dict.fromkeys([name for name, _ in LAYERS] + [OTHER_LAYER], 0)
    for stack, count in folded.items():
        frames = stack.split(";")  # root first: the innermost frame last
        found[next((layer for layer in map(layer_of, reversed(frames)) if layer), OTHER_LAYER)] += count
    return {name: (hits / total if total else None) for name, hits in found.items()}


def layer_of(frame):
    """The first layer of LAYERS whose prefix the frame has, or None."""
    return next((name for name, prefixes in LAYERS if frame.startswith(prefixes)), None)


def library_of(frame):
    """The first library of LIBRARIES whose prefix the frame has, or None."""
    return next((name for name, prefixes in LIBRARIES if frame.startswith(prefixes)), None)


def write_folded(folded, path):
    path.write_text("".join(f"{stack} {count}\n" for stack, count in sorted(folded.items())))


def read_folded(path):
    folded = {}
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        folded[stack] = int(count)
    return folded


def tree(folded):
    """Nested {frame: [samples, children]} of the collapsed stacks."""
    root = {}
    for stack, count in folded.items():
        level = root
        for frame in stack.split(";"):
            node = level.setdefault(frame, [0, {}])
            node[0] += count
            level = node[1]
    return root


def flame_graph(folded, path, title, max_depth=48):
    """A flame graph (root at the bottom; width = share of the samples) as SVG, with every frame's name
    and samples in its tooltip-free label where it fits."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    total = sum(folded.values())
    if not total:
        raise SystemExit(f"{title}: the recording has no CPU samples (too short a run?)")
    rectangles = []

    def walk(level, x, depth):
        for frame, (count, children) in sorted(level.items()):
            width = count / total
            rectangles.append((x, depth, width, frame, count))
            if depth + 1 < max_depth:
                walk(children, x, depth + 1)
            x += width

    walk(tree(folded), 0.0, 0)
    depth = 1 + max((r[1] for r in rectangles), default=0)
    figure, axes = plt.subplots(figsize=(16, 0.22 * depth + 1.2))
    for x, y, width, frame, count in rectangles:
        hue = (zlib.crc32(frame.rsplit(".", 2)[0].encode()) % 1000) / 1000  # one colour per class
        axes.add_patch(plt.Rectangle((x, y), width, 0.95, facecolor=(0.95, 0.45 + 0.4 * hue, 0.2 + 0.2 * hue),
                                     edgecolor="white", linewidth=0.3))
        if width > 0.04:
            label = frame.rsplit(".", 2)
            text = ".".join(label[-2:]) if len(label) > 1 else frame
            characters = int(width * 190)
            axes.text(x + 0.002, y + 0.45, (text if len(text) <= characters else text[:max(characters - 1, 1)] + "…")
                      + f" {100 * count / total:.0f}%", fontsize=6, va="center", clip_on=True)
    axes.set_xlim(0, 1)
    axes.set_ylim(0, depth)
    axes.set_yticks([])
    axes.set_xlabel("share of CPU samples")
    axes.set_title(f"{title}: {total} CPU samples (JFR jdk.ExecutionSample)")
    figure.tight_layout()
    figure.savefig(path, format="svg")
    plt.close(figure)


def record(build, results):
    """One profiled closed run of a build, as long as a measured one (the closed scenario's ITERATIONS), measured as
    any run is (protocol.measure: what every process used meanwhile): results/profiles/<version>-<service>.{jfr,
    folded,svg}, and the build's entry in profile.json (each library's share and each layer's) and in costs.json
    (what an answer cost each process, each JVM's GC and its JIT during that run). None where its JVMs cannot be
    profiled from here."""
    from benchkit.core import protocol  # the protocol measures; this module only records beside it
    directory, version = results / "profiles", build.version
    directory.mkdir(exist_ok=True)
    recordings = build.profiled()
    if not recordings:
        return None
    for recording in recordings.values():
        recording.start()
    measured = protocol.measure(build, "closed", directory, 1, label="profile")
    files = {service: directory / f"{version}-{service}.jfr" for service in recordings}
    for service, jfr in recordings.items():
        jfr.stop(files[service].resolve())
    # Each service's recording read by a jfr of its own, all at once (each is mostly a JVM starting).
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(files)) as pool:
        printed = {service: pool.submit(events, recording) for service, recording in files.items()}
    found = {}
    for service, recording in files.items():
        read = printed[service].result()
        folded = collapse(read[SAMPLE])
        write_folded(folded, recording.with_suffix(".folded"))
        flame_graph(folded, recording.with_suffix(".svg"), f"{service} {version}")
        shared, samples = shares(folded)
        found[service] = {"samples": samples, "shares": shared, "layers": layers(folded), "pins": pinned(read[PINNED])}
    for name, entry in (("profile.json", found), ("costs.json", costs(measured))):  # {version: …}, build by build
        path = directory / name
        path.write_text(json.dumps({**(json.loads(path.read_text()) if path.exists() else {}), version: entry},
                                   indent=2))
    return found


def costs(measured):
    """CPU ms per complete answer of a measured run (protocol.measure's): each process's, and each JVM's GC threads'
    and JIT compiler threads' (None where not counted)."""
    cost, complete = measured["cost"], measured["complete"]
    per = (lambda seconds: None if seconds is None or not complete else 1000 * seconds / complete)
    return {"complete": complete, "cpu_ms": {name: per(seconds) for name, seconds in cost["cpu_seconds"].items()},
            **{f"{kind}_ms": {name: per((jvm or {}).get(f"{kind}_cpu_seconds")) for name, jvm in (cost["jvm"] or {}).items()}
               for kind in ("gc", "jit")}}
