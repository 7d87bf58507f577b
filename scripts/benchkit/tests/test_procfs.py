"""What the latency map samples of a local process while it runs: its threads and its connections to a port."""
import os
import socket
import subprocess
import threading

from benchkit.core import platform
from benchkit.platforms import procfs


def test_connections_to_a_port_are_counted_and_others_are_not():
    with socket.create_server(("127.0.0.1", 0)) as server, socket.create_server(("127.0.0.1", 0)) as other:
        port = server.getsockname()[1]
        before = procfs.connections_to(os.getpid(), [port])
        clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
        elsewhere = socket.create_connection(("127.0.0.1", other.getsockname()[1]))
        try:
            accepted = [server.accept()[0] for _ in clients]
            # the accepted ends are this process's too, but their remote port is the clients' own
            assert procfs.connections_to(os.getpid(), [port]) == before + 3
        finally:
            for connection in [*clients, *accepted, elsewhere]:
                connection.close()


def test_connections_of_ipv6_sockets_are_counted_too():
    # a JVM connects IPv6 sockets, an IPv4 address mapped into them (/proc/PID/net/tcp6)
    with socket.create_server(("::1", 0), family=socket.AF_INET6) as server:
        port = server.getsockname()[1]
        before = procfs.connections_to(os.getpid(), [port])
        client = socket.create_connection(("::1", port))
        accepted, _ = server.accept()
        try:
            assert procfs.connections_to(os.getpid(), [port]) == before + 1
        finally:
            client.close()
            accepted.close()


def test_threads_are_counted():
    started, release = threading.Event(), threading.Event()
    before = procfs.threads(os.getpid())
    worker = threading.Thread(target=lambda: (started.set(), release.wait()))
    worker.start()
    started.wait()
    try:
        assert procfs.threads(os.getpid()) == before + 1
    finally:
        release.set()
        worker.join()


def test_a_process_that_is_gone_has_no_figures():
    assert procfs.threads(2**22 + 1) is None
    assert procfs.connections_to(2**22 + 1, [5432]) is None


def test_the_kernel_counts_a_process_blocking_and_its_system_calls():
    # Real readings of this process: a thread that sleeps blocks (voluntary switches), and reads are system calls.
    # The sleeper stays alive until read: a thread that has ended is no longer among the process's tasks.
    slept, read = threading.Event(), threading.Event()

    def sleep_then_wait():
        for _ in range(5):
            threading.Event().wait(0.01)
        slept.set()
        read.wait()

    before = procfs.scheduling([os.getpid()])
    sleeper = threading.Thread(target=sleep_then_wait)
    sleeper.start()
    slept.wait()
    for _ in range(20):
        with open("/proc/self/stat") as stat:
            stat.read()
    after = procfs.scheduling([os.getpid()])
    read.set()
    sleeper.join()
    did = platform.process_between(before, after)
    assert did["voluntary_switches"] >= 5
    assert did["read_syscalls"] >= 20
    assert did["threads"] >= 1 and did["packets"] is None  # the machine's loopback is nobody's own


def test_what_the_script_prints_in_a_pod_is_read_back():
    text = "\n".join([
        "io 1 syscr: 100", "io 1 syscw: 40", "io 7 syscr: 5", "io 7 syscw: 1",
        "task 1 10 2 5000000", "task 12 300 20 7000000", "task 13 4",  # 13 ended while read
        "net Inter-|   Receive                                                |  Transmit",
        "net face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed",
        "net lo: 500 7 0 0 0 0 0 0 500 7 0 0 0 0 0 0",
        "net eth0: 9000 60 0 0 0 0 0 0 8000 50 0 0 0 0 0 0"])
    reading = procfs.parse_scheduling(text)
    assert reading == {"tasks": {"1": [10, 2, 5000000], "12": [300, 20, 7000000]},
                       "io": {"1": [100, 40], "7": [5, 1]}, "packets": 110}
    later = {"tasks": {"1": [15, 2, 6000000], "14": [8, 1, 1000000]}, "io": {"1": [130, 50], "7": [5, 1]},
             "packets": 150, "threads_peak": 40}
    # thread 12 ended (its switches went with it), 14 is new: counted from its start
    assert platform.process_between(reading, later) == {
        "voluntary_switches": 13, "involuntary_switches": 1, "run_delay_seconds": 0.002, "read_syscalls": 30,
        "write_syscalls": 10, "packets": 40, "threads": 2, "threads_peak": 40}


def test_the_scheduler_by_kernel_release():
    assert procfs.scheduler("6.1.0-28-amd64") == "CFS"
    assert procfs.scheduler("6.6.0") == "EEVDF" and procfs.scheduler("6.18.44-fc") == "EEVDF"


def test_a_process_gone_has_no_throttling():
    gone = subprocess.Popen(["true"])
    gone.wait()
    assert procfs.process_throttling(gone.pid) is None
