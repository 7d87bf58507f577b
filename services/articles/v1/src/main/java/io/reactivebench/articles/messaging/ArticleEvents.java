package io.reactivebench.articles.messaging;

import io.reactivebench.articles.api.Article;
import io.smallrye.reactive.messaging.kafka.Record;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;

/** Publishes article-created events to Kafka (topic articles.created, keyed by article id). */
@ApplicationScoped
public class ArticleEvents {
    private final Emitter<Record<Long, Article>> emitter;

    public ArticleEvents(@Channel("articles-created") Emitter<Record<Long, Article>> emitter) {
        this.emitter = emitter;
    }

    /** Returns once Kafka acknowledged every event, or throws: the worker thread waits. */
    public void publish(List<Article> articles, Duration timeout) {
        CompletableFuture<?>[] acks = articles.stream()
                .map(article -> emitter.send(Record.of(article.id(), article)).toCompletableFuture())
                .toArray(CompletableFuture[]::new);
        CompletableFuture.allOf(acks).orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).join();
    }
}
