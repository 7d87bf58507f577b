package io.reactivebench.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.List;

/**
 * A trace context that outlives its thread: kept as a W3C traceparent with the row it belongs to (an outbox event),
 * and made the parent of the work that picks the row up later (the relay's Kafka send), so that a POST's trace goes on
 * through Kafka instead of ending at the insert.
 */
public final class StoredTraceContext {
    private static final String TRACEPARENT = "traceparent";
    private static final TextMapGetter<String> STORED = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(String traceParent) {
            return List.of(TRACEPARENT);
        }

        @Override
        public String get(String traceParent, String key) {
            return TRACEPARENT.equals(key) ? traceParent : null;
        }
    };

    private StoredTraceContext() {
    }

    /** The current span as a traceparent, or null where there is none (tracing off: nothing is kept). */
    public static String current() {
        SpanContext span = Span.current().getSpanContext();
        if (!span.isValid()) {
            return null;
        }
        return "00-" + span.getTraceId() + "-" + span.getSpanId() + "-" + span.getTraceFlags().asHex();
    }

    /** The context a kept traceparent names, as a remote parent; null for none or one that is not a traceparent. */
    public static Context of(String traceParent) {
        if (traceParent == null) {
            return null;
        }
        Context parent = W3CTraceContextPropagator.getInstance().extract(Context.root(), traceParent, STORED);
        return Span.fromContext(parent).getSpanContext().isValid() ? parent : null;
    }
}
