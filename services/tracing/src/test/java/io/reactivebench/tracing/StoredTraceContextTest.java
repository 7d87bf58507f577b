package io.reactivebench.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import org.junit.jupiter.api.Test;

class StoredTraceContextTest {
    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String SPAN = "00f067aa0ba902b7";

    @Test
    void aSpanKeptAsTraceparentIsTheParentItNamesAgain() {
        Span span = Span.wrap(SpanContext.create(TRACE, SPAN, TraceFlags.getSampled(), TraceState.getDefault()));
        String kept;
        try (Scope ignored = span.makeCurrent()) {
            kept = StoredTraceContext.current();
        }
        assertEquals("00-" + TRACE + "-" + SPAN + "-01", kept);
        SpanContext parent = Span.fromContext(StoredTraceContext.of(kept)).getSpanContext();
        assertEquals(TRACE, parent.getTraceId());
        assertEquals(SPAN, parent.getSpanId());
        assertTrue(parent.isRemote() && parent.isSampled());
    }

    @Test
    void withoutASpanNothingIsKeptAndNothingIsRead() {
        try (Scope ignored = Context.root().makeCurrent()) {
            assertNull(StoredTraceContext.current());
        }
        assertNull(StoredTraceContext.of(null));
        assertNull(StoredTraceContext.of("not a traceparent"));
        assertNull(StoredTraceContext.of("00-00000000000000000000000000000000-" + SPAN + "-01"));
    }
}
