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
  ClassLoader.defineClass), and a slower machine would for longer. It counts only from BUSY_LIMIT_MS on, five times
  Vert.x's limit: the headroom of a machine three times slower than the one that logged 2.2 s at start-up.
"""
import re
import sys

# Longer than this, a busy (not waiting) thread counts too.
BUSY_LIMIT_MS = 10_000
# The innermost frames of a thread that waits (the same list as EventLoopGuard.WAITING).
WAITING = ("java.lang.Thread.sleep", "jdk.internal.misc.Unsafe.park", "java.lang.Object.wait", "sun.nio.ch.Net.poll",
           "sun.nio.ch.SocketDispatcher.read", "sun.nio.ch.NioSocketImpl.park")
REPORT = re.compile(r"Thread (Thread\[[^\]]*\]) has been blocked for (\d+) ms, time limit is (\d+)")
# "io.vertx.core.VertxException: Thread blocked": the exception's own line, where the log format puts it apart
EXCEPTION = re.compile(r"^[\w.$]+(?:Exception|Error): ")
# "\tat java.base/java.lang.Thread.sleep0(Native Method)", "\tat io.vertx.core.impl.ContextImpl.emit(...)"
FRAME = re.compile(r"^\s+at (?:[\w.$-]+(?:@[\w.-]+)?/)?([\w.$<>]+)\(")


def reports(log):
    """Every blocked-thread report of one log: {thread, blocked_ms, limit_ms, innermost, waiting, counts}."""
    lines = log.splitlines()
    found = []
    for index, line in enumerate(lines):
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
                      "waiting": waiting, "counts": waiting or blocked_ms >= BUSY_LIMIT_MS})
    return found


def main(args):
    if not args:
        sys.exit("usage: check_blocked.py LOG…")
    counted = 0
    for path in args:
        with open(path, errors="replace") as log:
            for report in reports(log.read()):
                kind = "waiting" if report["waiting"] else "busy"
                verdict = "COUNTS" if report["counts"] else f"left alone (busy, under {BUSY_LIMIT_MS} ms)"
                print(f"{path}: {report['thread']} blocked {report['blocked_ms']} ms, {kind} in "
                      f"{report['innermost'] or 'no stack'}: {verdict}")
                counted += report["counts"]
    sys.exit(1 if counted else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
