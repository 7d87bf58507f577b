package io.reactivebench.articles.service;

import io.reactivebench.articles.api.Article;
import io.reactivebench.articles.api.NewArticle;
import io.reactivebench.articles.repository.ArticleRepository;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

@ApplicationScoped
public class ArticleService {
    private final ArticleRepository repository;

    public ArticleService(ArticleRepository repository) {
        this.repository = repository;
    }

    public List<Article> findNewest(int amount) {
        return repository.findNewest(amount);
    }

    public Optional<Article> findById(long id) {
        return repository.findById(id);
    }

    /** Stores the article with its article-created event; the relay (ArticleEventRelay) publishes the event. */
    public Article create(NewArticle newArticle) {
        return repository.persist(newArticle, Instant.now().truncatedTo(ChronoUnit.MICROS));
    }
}
