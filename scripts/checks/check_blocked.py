#!/usr/bin/env python3
"""Vert.x blocked-thread reports in the services' logs, judged by the rule of the contract suites' EventLoopGuard.

`check_blocked.py LOG…` prints the reports that count and exits 1 when there is one.

Vert.x's BlockedThreadChecker logs a WARN when an event loop (or worker) runs a task longer than its limit (2 s
outside the tests), with the thread's stack from the warning-exception time on. Such a report is either of two
things, and only the first is a defect of the service:
- a **waiting** stack (its innermost frame sleeps, parks, waits on a monitor, reads or polls a socket): a blocking
  call on an event loop. It counts at any length.
- a **busy** stack (class loading, a first compilation, starting a thread): the thread computes and was not given a
  core. A cold JVM starting beside eight others on two cores does this for 2 s and more (TCPServerBase.listen under
  ClassLoader.defineClass); a slower or busier machine does it for longer (11.7 s, a floor service restarted at a
  fresh machine's busiest minute). So no fixed length can judge one at start-up: there it never counts, and the
  harness's wait for readiness bounds it. Once the service serves (its "started in" line, Quarkus' or the floor's),
  a busy report counts from the longer of BUSY_LIMIT_MS and the longest start-up report of the same log: what this
  machine, in this run, did to a cold thread of this very service.
A log holds every run of its service (a fault or a sweep restarts it): the harness marks each start with a line of
its own (STARTING, written by scripts/local/stack.sh), so each run's start-up is told apart.
"""
import re
import sys

# Longer than this, and than the same log's start-up reports, a busy thread of a serving service counts too: five
# times Vert.x's limit.
BUSY_LIMIT_MS = 10_000
# The harness's line before each start of a service ("=== articles-v1 starting 2026-12-06T04:10:00Z ===", stack.sh),
# and the service's own once it serves (Quarkus': "web-api-v2 1.0.0-SNAPSHOT on JVM (…) started in 1.745s. Listening
# on: …"; the floor's: "articles-v0 started in 0.912s. Listening on: …").
STARTING = re.compile(r"^=== \S+ starting ")
SERVING = re.compile(r" started in \d+\.\d+s\. Listening on")
# The innermost frames of a thread that waits (the same list as EventLoopGuard.WAITING).
WAITING = ("java.lang.Thread.sleep", "jdk.internal.misc.Unsafe.park", "java.lang.Object.wait", "sun.nio.ch.Net.poll",
           "sun.nio.ch.SocketDispatcher.read", "sun.nio.ch.NioSocketImpl.park")
REPORT = re.compile(r"Thread (Thread\[[^\]]*\]) has been blocked for (\d+) ms, time limit is (\d+)")
# "io.vertx.core.VertxException: Thread blocked": the exception's own line, where the log format puts it apart
EXCEPTION = re.compile(r"^[\w.$]+(?:Exception|Error): ")
# "\tat java.base/java.lang.Thread.sleep0(Native Method)", "\tat io.vertx.core.impl.ContextImpl.emit(...)"
FRAME = re.compile(r"^\s+at (?:[\w.$-]+(?:@[\w.-]+)?/)?([\w.$<>]+)\(")


def reports(log):
    """Every blocked-thread report of one log: {thread, blocked_ms, limit_ms, innermost, waiting, starting, counts}."""
    lines = log.splitlines()
    found = []
    starting = True  # a log's first lines are its first start-up
    for index, line in enumerate(lines):
        if STARTING.match(line):
            starting = True
        elif SERVING.search(line):
            starting = False
        report = REPORT.search(line)
        if not report:
            continue
        thread, blocked_ms, limit_ms = report.group(1), int(report.group(2)), int(report.group(3))
        # The stack follows on the next lines (java.util.logging, the floor's, first names the exception on a line of
        # its own); without one (below the warning-exception time) it cannot be judged waiting, so only its length
        # counts.
        after = lines[index + 1:index + 3]
        if after and EXCEPTION.match(after[0]):
            after = after[1:]
        frame = FRAME.match(after[0]) if after else None
        innermost = frame.group(1) if frame else None
        waiting = innermost is not None and innermost.startswith(WAITING)
        found.append({"thread": thread, "blocked_ms": blocked_ms, "limit_ms": limit_ms, "innermost": innermost,
                      "waiting": waiting, "starting": starting})
    busy_limit = busy_limit_ms(found)
    for report in found:
        report["counts"] = report["waiting"] or (not report["starting"] and report["blocked_ms"] >= busy_limit)
    return found


def busy_limit_ms(found):
    """From how long a busy thread of a serving service counts: BUSY_LIMIT_MS, or the log's longest start-up report."""
    return max([BUSY_LIMIT_MS] + [report["blocked_ms"] for report in found if report["starting"]])


def main(args):
    if not args:
        sys.exit("usage: check_blocked.py LOG…")
    counted = 0
    for path in args:
        with open(path, errors="replace") as log:
            found = reports(log.read())
        busy_limit = busy_limit_ms(found)
        for report in found:
            kind = "waiting" if report["waiting"] else "busy"
            if report["counts"]:
                verdict = "COUNTS"
            elif report["starting"]:
                verdict = "left alone (busy, at start-up)"
            else:
                verdict = f"left alone (busy, under {busy_limit} ms)"
            print(f"{path}: {report['thread']} blocked {report['blocked_ms']} ms, {kind} in "
                  f"{report['innermost'] or 'no stack'}: {verdict}")
            counted += report["counts"]
    sys.exit(1 if counted else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
