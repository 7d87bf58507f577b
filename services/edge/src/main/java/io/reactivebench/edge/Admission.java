package io.reactivebench.edge;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.vertx.http.runtime.filters.Filters;
import io.reactivebench.problem.Problem;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Admits or turns away each API request before any thread of the paradigm works on it: a body larger
 * than the limit gets 413, and a request beyond the in-flight limit gets 503 with Retry-After, both as
 * problem JSON. It runs on the event loop in both builds and never blocks.
 */
@ApplicationScoped
public class Admission {
    /** Ahead of Quarkus REST's own handlers (higher runs first). */
    private static final int PRIORITY = 1_000;

    private final AtomicInteger inFlight = new AtomicInteger();
    private final int maxInFlight;
    private final long maxBodyBytes;
    private final Buffer overloaded;
    private final Buffer tooLarge;
    private final Counter shed;
    private final Counter rejectedTooLarge;

    public Admission(EdgeConfig config, ObjectMapper json, MeterRegistry registry) throws JsonProcessingException {
        this.maxInFlight = config.maxInFlight();
        this.maxBodyBytes = config.maxBodySize().asLongValue();
        this.overloaded = problem(json, 503, "Service Unavailable",
                "Too many requests in flight (limit " + maxInFlight + "); retry after " + Problem.RETRY_AFTER_SECONDS + " s");
        this.tooLarge = problem(json, 413, "Content Too Large",
                "The body is larger than the limit of " + maxBodyBytes + " bytes");
        this.shed = Counter.builder("edge.requests.rejected").tag("reason", "overload")
                .description("API requests turned away with 503 because too many were in flight")
                .register(registry);
        this.rejectedTooLarge = Counter.builder("edge.requests.rejected").tag("reason", "too-large")
                .description("API requests turned away with 413 because their body was over the limit")
                .register(registry);
        Gauge.builder("edge.requests.in.flight", inFlight, AtomicInteger::get)
                .description("API requests admitted and not answered yet")
                .register(registry);
    }

    void register(@Observes Filters filters) {
        filters.register(this::admit, PRIORITY);
    }

    void admit(RoutingContext context) {
        String path = context.normalizedPath();
        if (path.startsWith("/q/")) {
            context.next();
            return;
        }
        if (declaredLength(context.request()) > maxBodyBytes) {
            rejectedTooLarge.increment();
            // The body is not read: closing the connection is the only way not to receive it.
            context.response().putHeader(HttpHeaders.CONNECTION, "close");
            answer(context, 413, tooLarge);
            return;
        }
        if (path.endsWith("/stream")) { // a stream is open for minutes; it is not load to shed
            context.next();
            return;
        }
        if (inFlight.incrementAndGet() > maxInFlight) {
            inFlight.decrementAndGet();
            shed.increment();
            context.response().putHeader(HttpHeaders.RETRY_AFTER, Problem.RETRY_AFTER_SECONDS);
            answer(context, 503, overloaded);
            return;
        }
        // Called once, when the response has been sent or the connection was lost.
        context.addEndHandler(done -> inFlight.decrementAndGet());
        context.next();
    }

    private static long declaredLength(HttpServerRequest request) {
        String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
        if (length == null) {
            return 0;
        }
        try {
            return Long.parseLong(length.trim());
        } catch (NumberFormatException e) {
            return 0; // Vert.x rejects a malformed Content-Length itself, before any handler
        }
    }

    private static void answer(RoutingContext context, int status, Buffer body) {
        context.response()
                .setStatusCode(status)
                .putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE)
                .end(body);
    }

    private static Buffer problem(ObjectMapper json, int status, String title, String detail)
            throws JsonProcessingException {
        return Buffer.buffer(json.writeValueAsBytes(new Problem(title, status, detail, null)));
    }
}
