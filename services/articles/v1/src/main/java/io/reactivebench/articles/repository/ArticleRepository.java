package io.reactivebench.articles.repository;

import io.quarkus.panache.common.Sort;
import io.reactivebench.articles.api.Article;
import io.reactivebench.articles.api.NewArticle;
import io.reactivebench.jdbc.Read;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Hibernate ORM Panache over JDBC: the calling thread waits for the database. */
@ApplicationScoped
public class ArticleRepository {
    // Matches the index articles_newest_idx: PostgreSQL reads it backwards and stops after amount rows.
    private static final Sort NEWEST_FIRST = Sort.descending("creationDate", "id");

    // A read (jdbc.reads: without a transaction, as shipped): the entities are turned into answers right away.
    @Read
    public List<Article> findNewest(int amount) {
        return ArticleEntity.<ArticleEntity>findAll(NEWEST_FIRST).page(0, amount)
                .list().stream().map(ArticleEntity::toArticle).toList();
    }

    @Read
    public Optional<Article> findById(long id) {
        return ArticleEntity.<ArticleEntity>findByIdOptional(id).map(ArticleEntity::toArticle);
    }

    /** Stores the article and its pending article-created event in one transaction. */
    @Transactional
    public Article persist(NewArticle newArticle, Instant creationDate) {
        ArticleEntity entity = ArticleEntity.of(newArticle, creationDate);
        entity.persist();
        ArticleEventEntity.pending(entity).persist();
        return entity.toArticle();
    }
}
