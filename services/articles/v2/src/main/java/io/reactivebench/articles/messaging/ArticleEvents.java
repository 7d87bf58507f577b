package io.reactivebench.articles.messaging;

import io.reactivebench.articles.api.Article;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.kafka.Record;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.List;
import org.eclipse.microprofile.reactive.messaging.Channel;

/** Publishes article-created events to Kafka (topic articles.created, keyed by article id). */
@ApplicationScoped
public class ArticleEvents {
    private final MutinyEmitter<Record<Long, Article>> emitter;

    public ArticleEvents(@Channel("articles-created") MutinyEmitter<Record<Long, Article>> emitter) {
        this.emitter = emitter;
    }

    /** Completes once Kafka acknowledged every event, or fails: no thread waits. */
    public Uni<Void> publish(List<Article> articles, Duration timeout) {
        return Uni.join().all(articles.stream().map(article -> emitter.send(Record.of(article.id(), article))).toList())
                .andFailFast()
                .ifNoItem().after(timeout).fail()
                .replaceWithVoid();
    }
}
