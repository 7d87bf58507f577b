package io.reactivebench.articles.messaging;

import io.quarkus.scheduler.Scheduled;
import io.reactivebench.articles.repository.ArticleEventEntity;
import io.reactivebench.articles.repository.ArticleEventRepository;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The outbox relay: publishes pending article-created events and deletes them once Kafka acknowledged
 * them. While Kafka is down they stay pending, and go out when it is back.
 */
@ApplicationScoped
public class ArticleEventRelay {
    private static final Logger LOG = Logger.getLogger(ArticleEventRelay.class);

    private final ArticleEventRepository repository;
    private final ArticleEvents events;
    private final int batchSize;
    private final Duration ackTimeout;

    public ArticleEventRelay(ArticleEventRepository repository, ArticleEvents events,
            @ConfigProperty(name = "articles.outbox.batch-size") int batchSize,
            @ConfigProperty(name = "articles.outbox.ack-timeout") Duration ackTimeout) {
        this.repository = repository;
        this.events = events;
        this.batchSize = batchSize;
        this.ackTimeout = ackTimeout;
    }

    @Scheduled(every = "${articles.outbox.relay-every}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    @Transactional
    void relay() {
        List<ArticleEventEntity> pending = repository.lockPending(batchSize);
        if (pending.isEmpty()) {
            return;
        }
        try {
            events.publish(ArticleEventRepository.publishedOf(pending), ackTimeout);
        } catch (RuntimeException notAcknowledged) {
            LOG.warnf("Kafka did not acknowledge %d article-created events (%s); they stay pending",
                    pending.size(), notAcknowledged);
            return;
        }
        repository.delete(pending);
    }
}
