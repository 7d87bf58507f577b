package io.reactivebench.articles.repository;

import io.quarkus.panache.common.Sort;
import io.reactivebench.articles.api.Article;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.LockModeType;
import java.util.List;

/** The outbox of article-created events, read by the relay inside its transaction. */
@ApplicationScoped
public class ArticleEventRepository {
    // Hibernate's value for SKIP LOCKED: another relay (another replica) takes the next events instead of waiting.
    private static final int SKIP_LOCKED = -2;

    /** Locks up to {@code limit} pending events, oldest first, until the transaction ends. */
    public List<ArticleEventEntity> lockPending(int limit) {
        return ArticleEventEntity.<ArticleEventEntity>findAll(Sort.ascending("id"))
                .withLock(LockModeType.PESSIMISTIC_WRITE)
                .withHint("jakarta.persistence.lock.timeout", SKIP_LOCKED)
                .page(0, limit).list();
    }

    public static List<Article> articlesOf(List<ArticleEventEntity> events) {
        return events.stream().map(event -> event.article.toArticle()).toList();
    }

    public void delete(List<ArticleEventEntity> events) {
        ArticleEventEntity.delete("id in ?1", events.stream().map(event -> event.id).toList());
    }
}
