"""A stand-in HTTP server for a test: a handler class of the test's own, served on a free port of the loopback."""
import contextlib
import http.server
import threading


class Quiet(http.server.BaseHTTPRequestHandler):
    """A handler that logs nothing (a stand-in's requests are the test's to judge)."""

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serving(handler):
    """handler (a Quiet subclass) served in a thread of its own while the block runs: its address, http://host:port."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
