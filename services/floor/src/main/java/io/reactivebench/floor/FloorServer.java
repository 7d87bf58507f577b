package io.reactivebench.floor;

import io.vertx.core.AbstractVerticle;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.json.JsonObject;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * A v0 service's two servers: its API, an HTTP server on each event loop (the instances share the port), the
 * routes under the build's prefix, and the management port with health and metrics, as Quarkus' management
 * interface serves them.
 */
public final class FloorServer {
    private final Vertx vertx;
    private final FloorSettings settings;
    private final ServedRequests served;

    /**
     * A v0 service's main: its settings from the environment, a Vert.x of as many event loops as they give, and
     * {@code start}; logs when it serves, in the words of Quarkus' start-up line (check_blocked.py tells a service's
     * start-up from its serving by that line), and exits when it fails.
     */
    public static void run(String service, BiFunction<Vertx, FloorSettings, Future<Void>> start) {
        long starting = System.nanoTime();
        FloorSettings settings = FloorSettings.fromEnvironment();
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(settings.eventLoops()));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(vertx, settings), "floor-shutdown"));
        start.apply(vertx, settings)
                .onSuccess(serving -> Logger.getLogger(FloorServer.class.getName()).info(startedLine(
                        service + "-" + settings.build(), System.nanoTime() - starting, settings)))
                .onFailure(failure -> {
                    failure.printStackTrace();
                    System.exit(1);
                });
    }

    /**
     * A stopping service as Quarkus stops one with a shutdown delay: it reports itself not ready at once (so that its
     * Service stops sending it requests), keeps serving for the delay, then closes, waiting up to the shutdown timeout
     * for what is still in flight, every answer meanwhile closing its connection (dispatch). Without it a rolled v0
     * dropped the requests its Service still sent it.
     */
    static void stop(Vertx vertx, FloorSettings settings) {
        STOPPING.set(true);
        try {
            Thread.sleep(settings.shutdownDelay().toMillis());
            vertx.close().toCompletionStage().toCompletableFuture()
                    .get(Math.max(1, settings.shutdownTimeout().toMillis()), TimeUnit.MILLISECONDS);
        } catch (Exception interruptedOrLate) {
            // the JVM stops now either way
        }
    }

    /** "articles-v0 started in 1.234s. Listening on: …", as Quarkus says it. */
    static String startedLine(String service, long nanos, FloorSettings settings) {
        return String.format(Locale.ROOT, "%s started in %.3fs. Listening on: http://%s:%d. Management interface listening on http://%s:%d.",
                service, nanos / 1e9, settings.httpHost(), settings.httpPort(), settings.managementHost(),
                settings.managementPort());
    }

    /** Whether this service is stopping: readiness answers DOWN from then on. */
    static final AtomicBoolean STOPPING = new AtomicBoolean();

    public FloorServer(Vertx vertx, FloorSettings settings, ServedRequests served) {
        this.vertx = vertx;
        this.settings = settings;
        this.served = served;
    }

    /**
     * Serves {@code routes} (GET only: what the floor answers; each by its path without the prefix), and readiness as
     * {@code ready} finds it; completes once both servers listen.
     */
    public Future<Void> start(Map<String, Handler<HttpServerRequest>> routes, Supplier<Future<?>> ready) {
        String prefix = "/" + settings.build();
        Supplier<io.vertx.core.Verticle> api = () -> new AbstractVerticle() {
            @Override
            public void start(Promise<Void> started) {
                vertx.createHttpServer(new HttpServerOptions().setHost(settings.httpHost()).setPort(settings.httpPort()))
                        .requestHandler(request -> dispatch(request, prefix, routes))
                        .listen().<Void>mapEmpty().onComplete(started);
            }
        };
        return vertx.deployVerticle(api, new DeploymentOptions().setInstances(settings.eventLoops()))
                .compose(deployed -> vertx.createHttpServer(new HttpServerOptions()
                                .setHost(settings.managementHost()).setPort(settings.managementPort()))
                        .requestHandler(request -> manage(request, ready)).listen())
                .mapEmpty();
    }

    private void dispatch(HttpServerRequest request, String prefix, Map<String, Handler<HttpServerRequest>> routes) {
        long arrived = System.nanoTime();
        String path = request.path();
        String unprefixed = path.startsWith(prefix) && request.method() == HttpMethod.GET ? path.substring(prefix.length()) : null;
        Handler<HttpServerRequest> route = unprefixed == null ? null : routes.get(unprefixed);
        String counted = route == null ? "NOT_FOUND" : unprefixed;
        // Stopping, every answer closes its connection, as Quarkus' answers do during its shutdown delay: a caller's
        // pooled keep-alive connection to this pod ends after an answer, and its next request opens one through the
        // Service, to a pod that stays. Kept open, those connections were cut when the server closed (a rolled v0's
        // web-api failed six requests in a row, its callers' connections reset).
        // (HTTP/2 has no such header: its connection is shut down, GOAWAY, its streams in flight answered first.)
        boolean stopping = STOPPING.get(), http2 = request.version() == HttpVersion.HTTP_2;
        if (stopping && !http2) {
            request.response().putHeader("Connection", "close");
        }
        request.response().endHandler(ended ->
                served.record(request.method().name(), counted, request.response().getStatusCode(), System.nanoTime() - arrived));
        if (stopping) {
            // after the answer's last byte is on the wire: endHandler runs just before it is written, and a close
            // there raced the write (a caller read the connection's end instead of its answer)
            request.response().bodyEndHandler(written -> {
                if (http2) {
                    request.connection().shutdown();
                } else {
                    request.connection().close();
                }
            });
        }
        if (route == null) {
            Problems.send(request.response(), 404, "No resource at " + path);
        } else {
            route.handle(request);
        }
    }

    private void manage(HttpServerRequest request, Supplier<Future<?>> ready) {
        switch (request.path()) {
            // started: this server listens only once the API's have started (the chart's startup probe asks it)
            case "/q/health/live", "/q/health/started" -> health(request, Future.succeededFuture());
            case "/q/health/ready", "/q/health" -> health(request,
                    STOPPING.get() ? Future.failedFuture("stopping") : ready.get());
            case "/q/metrics" -> request.response().putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                    .end(served.prometheus());
            default -> Problems.send(request.response(), 404, "No resource at " + request.path());
        }
    }

    private static void health(HttpServerRequest request, Future<?> check) {
        check.onComplete(result -> request.response().setStatusCode(result.succeeded() ? 200 : 503)
                .putHeader("Content-Type", "application/json")
                .end(new JsonObject().put("status", result.succeeded() ? "UP" : "DOWN").toBuffer()));
    }
}
