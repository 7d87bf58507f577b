import pytest

from checks import check_blocked as blocked

# As Quarkus logs them (its default console format): the report, then the stack from the warning-exception time on.
STARTUP = """\
2026-11-23 20:01:02,114 INFO  [io.quarkus] (main) Installed features: [cdi, rest, smallrye-health]
2026-11-23 20:01:04,412 WARN  [io.ver.cor.imp.BlockedThreadChecker] (vertx-blocked-thread-checker) Thread Thread[#41,vert.x-eventloop-thread-0,5,main] has been blocked for 2163 ms, time limit is 2000 ms: io.vertx.core.VertxException: Thread blocked
\tat java.base/java.lang.ClassLoader.defineClass1(Native Method)
\tat java.base/java.lang.ClassLoader.defineClass(ClassLoader.java:1027)
\tat io.netty.channel.socket.nio.NioServerSocketChannel.<init>(NioServerSocketChannel.java:97)
\tat io.vertx.core.net.impl.TCPServerBase.listen(TCPServerBase.java:201)
2026-11-23 20:01:05,020 INFO  [io.quarkus] (main) web-api-v1 1.0 on JVM (powered by Quarkus 3.37.1) started in 9.871s. Listening on: http://127.0.0.1:8081. Management interface listening on http://127.0.0.1:9081.
"""
SLEEPING = """\
2026-11-23 20:03:00,001 WARN  [io.ver.cor.imp.BlockedThreadChecker] (vertx-blocked-thread-checker) Thread Thread[#52,vert.x-eventloop-thread-1,5,main] has been blocked for 2004 ms, time limit is 2000 ms: io.vertx.core.VertxException: Thread blocked
\tat java.base@25.0.3/java.lang.Thread.sleepNanos0(Native Method)
\tat java.base@25.0.3/java.lang.Thread.sleep(Thread.java:517)
\tat io.reactivebench.webapi.ArticlesResource.list(ArticlesResource.java:40)
"""
READING = """\
2026-11-23 20:03:00,001 WARN  [io.ver.cor.imp.BlockedThreadChecker] (vertx-blocked-thread-checker) Thread Thread[#52,vert.x-eventloop-thread-1,5,main] has been blocked for 2950 ms, time limit is 2000 ms: io.vertx.core.VertxException: Thread blocked
\tat java.base/sun.nio.ch.SocketDispatcher.read0(Native Method)
\tat java.base/sun.nio.ch.SocketDispatcher.read(SocketDispatcher.java:47)
\tat org.postgresql.core.PGStream.receiveChar(PGStream.java:467)
"""

# As the floor (v0, plain Vert.x) logs them, through java.util.logging: the exception on a line of its own first.
FLOOR = """\
Dec 06, 2026 2:46:31 AM io.vertx.core.impl.BlockedThreadChecker
WARNING: Thread Thread[vert.x-eventloop-thread-0,5,main] has been blocked for 5534 ms, time limit is 2000 ms
io.vertx.core.VertxException: Thread blocked
\tat java.base/java.lang.ClassLoader.findBootstrapClass(Native Method)
\tat java.base/java.lang.ClassLoader.findBootstrapClassOrNull(ClassLoader.java:1211)
"""


def busy_for(milliseconds):
    return (f"2026-11-23 20:04:00,000 WARN  [io.ver.cor.imp.BlockedThreadChecker] (vertx-blocked-thread-checker) Thread "
            f"Thread[#41,vert.x-eventloop-thread-0,5,main] has been blocked for {milliseconds} ms, time limit is 2000 ms: "
            "io.vertx.core.VertxException: Thread blocked\n"
            "\tat java.base/java.lang.Thread.start0(Native Method)\n"
            "\tat java.base/java.lang.Thread.start(Thread.java:1526)\n")


def test_a_cold_jvm_loading_classes_at_start_up_is_left_alone():
    # the report that failed a fresh machine's make test: nine JVMs starting on two cores, nothing wrong
    [report] = blocked.reports(STARTUP)
    assert report["innermost"] == "java.lang.ClassLoader.defineClass1"
    assert report["blocked_ms"] == 2163 and not report["waiting"] and not report["counts"]


@pytest.mark.parametrize("log, innermost", [(SLEEPING, "java.lang.Thread.sleepNanos0"),
                                            (READING, "sun.nio.ch.SocketDispatcher.read0")])
def test_an_event_loop_that_waits_counts_at_any_length(log, innermost):
    [report] = blocked.reports(log)
    assert report["innermost"] == innermost
    assert report["waiting"] and report["counts"]


def test_a_busy_thread_of_a_serving_service_counts_from_the_long_limit_on():
    assert not blocked.reports(STARTUP + busy_for(blocked.BUSY_LIMIT_MS - 1))[1]["counts"]
    assert blocked.reports(STARTUP + busy_for(blocked.BUSY_LIMIT_MS))[1]["counts"]


def test_a_busy_thread_at_start_up_is_left_alone_at_any_length():
    # a slow or loaded machine gives a cold JVM no core for as long as it likes; the readiness wait bounds start-up
    [report] = blocked.reports(busy_for(60_000))
    assert report["starting"] and not report["counts"]


def test_a_waiting_thread_counts_at_start_up_too():
    [report] = blocked.reports(SLEEPING)
    assert report["starting"] and report["counts"]


def test_the_limit_of_a_serving_service_is_its_own_longest_start_up_report():
    # this machine, this run, left a cold thread of this service 12.5 s without a core: no less is asked once serving
    log = busy_for(12_500) + STARTUP.splitlines(keepends=True)[-1]
    assert not blocked.reports(log + busy_for(12_000))[-1]["counts"]
    assert blocked.reports(log + busy_for(12_500))[-1]["counts"]


def test_each_start_of_the_service_in_its_log_is_a_start_up_again():
    restarted = STARTUP + "=== web-api-v1 starting 2026-11-23T20:05:00Z ===\n" + busy_for(30_000)
    assert [report["starting"] for report in blocked.reports(restarted)] == [True, True]
    assert not blocked.reports(restarted)[-1]["counts"]
    served_again = restarted + STARTUP.splitlines(keepends=True)[-1] + busy_for(30_000)
    assert blocked.reports(served_again)[-1]["counts"]


def test_the_floor_s_own_start_up_line_ends_its_start_up():
    # FloorServer.startedLine, through java.util.logging (FloorStartTest holds the Java side to these words)
    started = ("Dec 06, 2026 2:46:33 AM io.reactivebench.floor.FloorServer lambda$run$1\n"
               "INFO: articles-v0 started in 7.250s. Listening on: http://127.0.0.1:8100. "
               "Management interface listening on http://0.0.0.0:9100.\n")
    assert [report["starting"] for report in blocked.reports(FLOOR + started + FLOOR)] == [True, False]


def test_a_report_without_a_stack_is_judged_by_its_length():
    line = busy_for(2500).splitlines()[0] + "\n2026-11-23 20:04:01,000 INFO  [io.quarkus] (main) next\n"
    [report] = blocked.reports(line)
    assert report["innermost"] is None and not report["counts"]


def test_the_command_fails_on_a_log_with_a_counted_report_only(tmp_path, capsys):
    clean, dirty = tmp_path / "web-api-v1.log", tmp_path / "web-api-v2.log"
    clean.write_text(STARTUP + busy_for(3000))
    dirty.write_text(STARTUP + SLEEPING)
    with pytest.raises(SystemExit) as left_alone:
        blocked.main([str(clean)])
    assert left_alone.value.code == 0
    with pytest.raises(SystemExit) as counted:
        blocked.main([str(clean), str(dirty)])
    assert counted.value.code == 1
    assert "web-api-v2.log: Thread[#52,vert.x-eventloop-thread-1,5,main] blocked 2004 ms, waiting" in capsys.readouterr().out


def test_the_floor_s_stack_is_read_past_its_exception_s_own_line():
    [report] = blocked.reports(FLOOR)
    assert report["innermost"] == "java.lang.ClassLoader.findBootstrapClass"
    assert not report["waiting"] and not report["counts"]
