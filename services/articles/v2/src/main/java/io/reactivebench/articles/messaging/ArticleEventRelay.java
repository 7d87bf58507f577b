package io.reactivebench.articles.messaging;

import io.quarkus.scheduler.Scheduled;
import io.reactivebench.articles.repository.ArticleEventRepository;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The outbox relay: publishes pending article-created events and deletes them once Kafka acknowledged
 * them. While Kafka is down they stay pending, and go out when it is back.
 */
@ApplicationScoped
public class ArticleEventRelay {
    private static final Logger LOG = Logger.getLogger(ArticleEventRelay.class);

    private final Pool client;
    private final ArticleEventRepository repository;
    private final ArticleEvents events;
    private final int batchSize;
    private final Duration ackTimeout;

    public ArticleEventRelay(Pool client, ArticleEventRepository repository, ArticleEvents events,
            @ConfigProperty(name = "articles.outbox.batch-size") int batchSize,
            @ConfigProperty(name = "articles.outbox.ack-timeout") Duration ackTimeout) {
        this.client = client;
        this.repository = repository;
        this.events = events;
        this.batchSize = batchSize;
        this.ackTimeout = ackTimeout;
    }

    @Scheduled(every = "${articles.outbox.relay-every}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> relay() {
        return client.withTransaction(connection -> repository.lockPending(connection, batchSize)
                .flatMap(pending -> pending.isEmpty() ? Uni.createFrom().voidItem()
                        : events.publish(ArticleEventRepository.publishedOf(pending), ackTimeout)
                                .onFailure().invoke(notAcknowledged -> LOG.warnf(
                                        "Kafka did not acknowledge %d article-created events (%s); they stay pending",
                                        pending.size(), notAcknowledged))
                                .flatMap(acknowledged -> repository.delete(connection, pending))))
                .onFailure().recoverWithNull();
    }
}
