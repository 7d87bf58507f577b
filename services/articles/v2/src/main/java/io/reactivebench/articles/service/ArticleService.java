package io.reactivebench.articles.service;

import io.reactivebench.articles.api.Article;
import io.reactivebench.articles.api.NewArticle;
import io.reactivebench.articles.repository.ArticleRepository;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

@ApplicationScoped
public class ArticleService {
    private final ArticleRepository repository;

    public ArticleService(ArticleRepository repository) {
        this.repository = repository;
    }

    public Uni<List<Article>> findNewest(int amount) {
        return repository.findNewest(amount);
    }

    /** The article, or a null item when there is none. */
    public Uni<Article> findById(long id) {
        return repository.findById(id);
    }

    /** Stores the article with its article-created event; the relay (ArticleEventRelay) publishes the event. */
    public Uni<Article> create(NewArticle newArticle) {
        return repository.persist(newArticle, Instant.now().truncatedTo(ChronoUnit.MICROS));
    }
}
