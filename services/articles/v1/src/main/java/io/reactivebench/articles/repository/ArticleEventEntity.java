package io.reactivebench.articles.repository;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import io.reactivebench.articles.outbox.ArticleCreated;
import io.reactivebench.tracing.StoredTraceContext;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;

/** A pending article-created event (see V3__create_article_events.sql), mapped for Hibernate ORM. */
@Entity
@Table(name = "article_events")
public class ArticleEventEntity extends PanacheEntityBase {
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;
    @ManyToOne(fetch = FetchType.LAZY, optional = false)
    @JoinColumn(name = "article_id")
    public ArticleEntity article;
    @Column(name = "trace_parent")
    public String traceParent;

    /** The event of an article stored now, in the trace of the request that stores it. */
    static ArticleEventEntity pending(ArticleEntity article) {
        ArticleEventEntity event = new ArticleEventEntity();
        event.article = article;
        event.traceParent = StoredTraceContext.current();
        return event;
    }

    ArticleCreated published() {
        return new ArticleCreated(article.toArticle(), traceParent);
    }
}
