package io.reactivebench.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A real HTTP server standing in for a downstream service. It answers what a test tells it to, after an
 * optional delay, and records every request and how many were in flight at once.
 */
public final class HttpStandIn implements AutoCloseable {

    public record Request(String method, String path, Map<String, String> query, String body) {
        public String query(String name) {
            return query.get(name);
        }
    }

    public record Reply(int status, String contentType, String body, Duration delay) {
        public static Reply json(int status, String body) {
            return new Reply(status, "application/json", body, Duration.ZERO);
        }

        public static Reply problem(int status, String title) {
            return new Reply(status, "application/problem+json",
                    "{\"status\":" + status + ",\"title\":\"" + title + "\"}", Duration.ZERO);
        }

        /** No answer at all: the connection is closed once the request is read, as by a server shutting down. */
        public static Reply hangUp() {
            return new Reply(HANG_UP, "", "", Duration.ZERO);
        }

        public Reply after(Duration pause) {
            return new Reply(status, contentType, body, pause);
        }
    }

    private static final int HANG_UP = -1;

    private final HttpServer server;
    private final Map<String, Function<Request, Reply>> routes = new ConcurrentHashMap<>();
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();

    public HttpStandIn() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1000);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // Platform threads: the stand-in is test scaffolding, and its own virtual threads pinning in Jackson's
        // first serializations would count against the service under test (PinnedThreadGuard).
        server.setExecutor(Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "http-stand-in");
            thread.setDaemon(true);
            return thread;
        }));
        server.createContext("/", this::handle);
        server.start();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Answers {@code method path} (any query) with what {@code handler} returns. */
    public HttpStandIn on(String method, String path, Function<Request, Reply> handler) {
        routes.put(method + " " + path, handler);
        return this;
    }

    /** Forgets routes, recorded requests and the in-flight peak. */
    public void reset() {
        routes.clear();
        resetCounts();
    }

    public void resetCounts() {
        requests.clear();
        maxInFlight.set(0);
    }

    public List<Request> requests(String method, String path) {
        return requests.stream().filter(r -> r.method().equals(method) && r.path().equals(path)).toList();
    }

    public int maxInFlight() {
        return maxInFlight.get();
    }

    /** Waits until no request is in flight (a slow reply of an earlier test, still being held), at most 20 s. */
    public void awaitIdle() {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private void handle(HttpExchange exchange) throws IOException {
        maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        try (exchange) {
            Request request = new Request(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
                    parseQuery(exchange.getRequestURI().getRawQuery()),
                    new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            requests.add(request);
            Function<Request, Reply> route = routes.get(request.method() + " " + request.path());
            Reply reply = route == null ? Reply.problem(404, "No stand-in route") : route.apply(request);
            Thread.sleep(reply.delay());
            if (reply.status() == HANG_UP) {
                throw new IOException("hung up"); // the server closes the connection without an answer
            }
            byte[] body = reply.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", reply.contentType());
            exchange.sendResponseHeaders(reply.status(), body.length == 0 ? -1 : body.length);
            exchange.getResponseBody().write(body);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            inFlight.decrementAndGet();
        }
    }

    private static Map<String, String> parseQuery(String rawQuery) {
        Map<String, String> query = new ConcurrentHashMap<>();
        if (rawQuery != null) {
            for (String pair : rawQuery.split("&")) {
                String[] parts = pair.split("=", 2);
                query.put(URLDecoder.decode(parts[0], StandardCharsets.UTF_8),
                        parts.length > 1 ? URLDecoder.decode(parts[1], StandardCharsets.UTF_8) : "");
            }
        }
        return query;
    }
}
