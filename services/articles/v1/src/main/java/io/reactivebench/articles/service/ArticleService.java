package io.reactivebench.articles.service;

import io.reactivebench.articles.api.Article;
import io.reactivebench.articles.api.NewArticle;
import io.reactivebench.articles.messaging.ArticleEvents;
import io.reactivebench.articles.repository.ArticleRepository;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

@ApplicationScoped
public class ArticleService {
    private final ArticleRepository repository;
    private final ArticleEvents events;

    public ArticleService(ArticleRepository repository, ArticleEvents events) {
        this.repository = repository;
        this.events = events;
    }

    public List<Article> findNewest(int amount) {
        return repository.findNewest(amount);
    }

    public Optional<Article> findById(long id) {
        return repository.findById(id);
    }

    /** Stores the article (the transaction commits here), then announces it. */
    public Article create(NewArticle newArticle) {
        Article article = repository.persist(newArticle, Instant.now().truncatedTo(ChronoUnit.MICROS));
        events.articleCreated(article);
        return article;
    }
}
