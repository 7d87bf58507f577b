package io.reactivebench.articles.messaging;

import io.opentelemetry.context.Context;
import io.reactivebench.articles.api.Article;
import io.reactivebench.articles.outbox.ArticleCreated;
import io.reactivebench.tracing.StoredTraceContext;
import io.smallrye.reactive.messaging.TracingMetadata;
import io.smallrye.reactive.messaging.kafka.Record;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Publishes article-created events to Kafka (topic articles.created, keyed by article id), each in the trace of the
 * request that stored it.
 */
@ApplicationScoped
public class ArticleEvents {
    private final Emitter<Record<Long, Article>> emitter;

    public ArticleEvents(@Channel("articles-created") Emitter<Record<Long, Article>> emitter) {
        this.emitter = emitter;
    }

    /** Returns once Kafka acknowledged every event, or throws: the worker thread waits. */
    public void publish(List<ArticleCreated> events, Duration timeout) {
        CompletableFuture<?>[] acks = events.stream().map(this::send).toArray(CompletableFuture[]::new);
        CompletableFuture.allOf(acks).orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).join();
    }

    private CompletableFuture<Void> send(ArticleCreated event) {
        CompletableFuture<Void> acknowledged = new CompletableFuture<>();
        emitter.send(messageOf(event)
                .withAck(() -> {
                    acknowledged.complete(null);
                    return CompletableFuture.completedFuture(null);
                })
                .withNack(failure -> {
                    acknowledged.completeExceptionally(failure);
                    return CompletableFuture.completedFuture(null);
                }));
        return acknowledged;
    }

    /** The event, sent as a child of the request that stored it; in the relay's own trace when the row kept none. */
    private static Message<Record<Long, Article>> messageOf(ArticleCreated event) {
        Message<Record<Long, Article>> message = Message.of(Record.of(event.article().id(), event.article()));
        Context parent = StoredTraceContext.of(event.traceParent());
        return parent == null ? message : message.addMetadata(TracingMetadata.with(parent, parent));
    }
}
