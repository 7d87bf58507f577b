"""The clients of a fault run beside the load generator: the writer (POSTs), the stream reader (SSE), the CPU
recorder, and the waits for a build to be healthy and its answers settled."""
import http.client
import json
import socket
import sys
import threading
import time
import urllib.error
import urllib.request

from benchkit.core import load, samples


class CpuRecorder(threading.Thread):
    """Once a second, how busy the whole machine was and, where the platform reads its parts' CPU apart (the test
    node's pods), the cores each part used: to tell what a fault does from what JVMs starting beside it on the same
    cores do (a redeploy starts three at once)."""

    def __init__(self, faults):
        super().__init__(daemon=True)
        self.faults, self.done, self.samples = faults, threading.Event(), []

    def run(self):
        at, machine, parts = time.time(), self.faults.machine_ticks(), self.faults.part_cpu_seconds()
        while not self.done.wait(1.0):
            now, machine_now, parts_now = time.time(), self.faults.machine_ticks(), self.faults.part_cpu_seconds()
            cores = {}
            for key in set(parts) & set(parts_now):  # a replaced part has a new key: counted from its next second
                part, seconds = parts_now[key]
                cores[part] = round(cores.get(part, 0) + (seconds - parts[key][1]) / (now - at), 3)
            busy = (machine_now[0] - machine[0]) / max(1, machine_now[1] - machine[1]) if machine else None
            self.samples.append((now, None if busy is None else round(busy, 3), cores))
            at, machine, parts = now, machine_now, parts_now

    def stop(self):
        self.done.set()
        self.join(5)
        return self.samples


# ---------- clients: the writer and the stream reader

class Writer(threading.Thread):
    """POSTs a new article through web-api every 1/rate s, and remembers what each answer was."""

    def __init__(self, url, rate, tag):
        super().__init__(daemon=True)
        self.url, self.period, self.tag = url, 1 / rate, tag
        self.sent = []  # (time, status, id or None, title)
        self.done = threading.Event()

    def run(self):
        n = 0
        next_at = time.time()
        while not self.done.is_set():
            n += 1
            title = f"{self.tag} #{n}"
            body = json.dumps({"title": title, "url": f"https://example.org/chaos/{n}", "author": "Ada Lovelace"})
            request = urllib.request.Request(self.url, data=body.encode(), method="POST",
                                             headers={"Content-Type": "application/json"})
            status, article_id = 0, None
            try:
                with urllib.request.urlopen(request, timeout=10) as answer:
                    status = answer.status
                    article_id = json.loads(answer.read()).get("id")
            except urllib.error.HTTPError as error:
                status = error.code
                if status == 503 and not (error.headers.get("Retry-After")
                                          and error.headers.get_content_type() == "application/problem+json"):
                    status = "503 without problem JSON and Retry-After"  # not the clear answer promised
            except (urllib.error.URLError, OSError):
                status = 0
            self.sent.append((time.time(), status, article_id, title))
            next_at += self.period
            self.done.wait(max(0, next_at - time.time()))


class StreamReader(threading.Thread):
    """Follows web-api's server-sent events and records each article event: (time, id, title). When a stream
    ends (its web-api pod stopped), it connects again after a second, as a browser's EventSource does, sending
    the id of the last event it got (Last-Event-ID); reconnections counts how often."""

    def __init__(self, base_url, path):
        super().__init__(daemon=True)
        self.host, port = base_url.removeprefix("http://").split(":")
        self.port, self.path = int(port), path
        self.connection = None
        self.events = []
        self.connected = threading.Event()
        self.stopped = threading.Event()
        self.error = None
        self.reconnections = 0

    def run(self):
        while True:
            try:
                self.follow()
            except (OSError, ValueError, http.client.HTTPException) as error:
                if not self.connected.is_set():  # the first connection failed: the caller says so
                    self.error = error
                    self.connected.set()
                    return
            if self.stopped.wait(1):
                return
            self.reconnections += 1

    def follow(self):
        self.connection = http.client.HTTPConnection(self.host, self.port, timeout=None)
        headers = {"Accept": "text/event-stream"}
        if self.events:
            headers["Last-Event-ID"] = str(self.events[-1][1])
        self.connection.request("GET", self.path, headers=headers)
        answer = self.connection.getresponse()
        if answer.status != 200:
            raise http.client.HTTPException(f"{self.path} answered {answer.status}")
        self.connected.set()
        while True:
            line = answer.fp.readline()
            if not line:
                return
            if line.startswith(b"data:"):
                event = json.loads(line[5:])
                self.events.append((time.time(), event.get("id"), event.get("title")))

    def stop(self):
        self.stopped.set()
        try:
            self.connection.sock.shutdown(socket.SHUT_RDWR)
        except (OSError, AttributeError):
            pass


# ---------- the load and what it saw

def run_load(loadgen, version, base_url, scenario, settings, work, stop=None):
    """One load run (stop: an Event that ends it early); returns ((outcomes, durations) from its samples, the
    figures of its summary). Its samples go to work/load.csv, read as they are written by the fault's timing."""
    summary = work / "load.json"
    _, _, written = load.run(loadgen, version, scenario, base_url, summary, settings, stop=stop)
    return samples.timeline(written), load.metrics(json.loads(summary.read_text()))


# ---------- one fault against one build

def complete_answer(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            articles = json.loads(answer.read())
        return len(articles) == 10 and all(a["authorBlog"] is not None for a in articles)
    except (OSError, ValueError):
        return False


def await_healthy(web_api, version, timeout=180):
    """Until three answers in a row are complete: every part is back and every circuit closed."""
    deadline, streak = time.time() + timeout, 0
    while streak < 3:
        if time.time() > deadline:
            sys.exit(f"{version} did not answer completely within {timeout} s before the next fault")
        streak = streak + 1 if complete_answer(f"{web_api}/{version}/articles") else 0
        time.sleep(0.3 if streak else 1)


def settled(outcomes, since, seconds):
    """Whether the answers so far end in `seconds` of complete ones, all after `since`."""
    if not outcomes:
        return False
    latest = max(at for at, _ in outcomes)
    last_bad = max((at for at, outcome in outcomes if outcome != "complete"), default=since)
    return latest - max(since, last_bad) >= seconds


def await_settled(samples, since, seconds, deadline):
    """Until the answers written so far end in `seconds` of complete ones since the part came back, or until the
    deadline: a build that has recovered is not kept under load for the whole `after`, one that has not gets all
    of it (and the report's checks judge it)."""
    while time.time() < deadline and not settled(samples.read().outcomes, since, seconds):
        time.sleep(1)


def answers_ready(url):
    try:
        with urllib.request.urlopen(f"{url}/q/health/ready", timeout=5) as answer:
            return answer.status == 200
    except OSError:
        return False
