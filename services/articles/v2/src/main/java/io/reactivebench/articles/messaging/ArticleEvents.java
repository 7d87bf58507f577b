package io.reactivebench.articles.messaging;

import io.opentelemetry.context.Context;
import io.reactivebench.articles.api.Article;
import io.reactivebench.articles.outbox.ArticleCreated;
import io.reactivebench.tracing.StoredTraceContext;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.TracingMetadata;
import io.smallrye.reactive.messaging.kafka.Record;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.List;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * Publishes article-created events to Kafka (topic articles.created, keyed by article id), each in the trace of the
 * request that stored it.
 */
@ApplicationScoped
public class ArticleEvents {
    private final MutinyEmitter<Record<Long, Article>> emitter;

    public ArticleEvents(@Channel("articles-created") MutinyEmitter<Record<Long, Article>> emitter) {
        this.emitter = emitter;
    }

    /** Completes once Kafka acknowledged every event, or fails: no thread waits. */
    public Uni<Void> publish(List<ArticleCreated> events, Duration timeout) {
        return Uni.join().all(events.stream().map(event -> emitter.sendMessage(messageOf(event))).toList())
                .andFailFast()
                .ifNoItem().after(timeout).fail()
                .replaceWithVoid();
    }

    /** The event, sent as a child of the request that stored it; in the relay's own trace when the row kept none. */
    private static Message<Record<Long, Article>> messageOf(ArticleCreated event) {
        Message<Record<Long, Article>> message = Message.of(Record.of(event.article().id(), event.article()));
        Context parent = StoredTraceContext.of(event.traceParent());
        return parent == null ? message : message.addMetadata(TracingMetadata.with(parent, parent));
    }
}
