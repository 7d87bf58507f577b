package io.reactivebench.articles.repository;

import io.reactivebench.articles.outbox.ArticleCreated;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.LockModeType;
import java.util.List;
import org.hibernate.Timeouts;

/** The outbox of article-created events, read by the relay inside its transaction. */
@ApplicationScoped
public class ArticleEventRepository {
    /**
     * Locks up to {@code limit} pending events, oldest first, until the transaction ends, with their articles in
     * the same query (one statement per batch, as v2's JOIN). SKIP LOCKED: another relay (another replica) takes
     * the next events instead of waiting.
     */
    public List<ArticleEventEntity> lockPending(int limit) {
        return ArticleEventEntity.<ArticleEventEntity>find("from ArticleEventEntity event join fetch event.article order by event.id")
                .withLock(LockModeType.PESSIMISTIC_WRITE)
                .withHint("jakarta.persistence.lock.timeout", Timeouts.SKIP_LOCKED_MILLI)
                .page(0, limit).list();
    }

    public static List<ArticleCreated> publishedOf(List<ArticleEventEntity> events) {
        return events.stream().map(ArticleEventEntity::published).toList();
    }

    public void delete(List<ArticleEventEntity> events) {
        ArticleEventEntity.delete("id in ?1", events.stream().map(event -> event.id).toList());
    }
}
