"""What the latency map samples of a local process while it runs: its threads and its connections to a port."""
import os
import socket
import threading

from benchkit.core import procfs


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
