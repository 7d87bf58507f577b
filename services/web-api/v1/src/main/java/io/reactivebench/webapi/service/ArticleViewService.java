package io.reactivebench.webapi.service;

import io.opentelemetry.context.Context;
import io.reactivebench.articles.api.Article;
import io.reactivebench.articles.api.ArticleLimits;
import io.reactivebench.articles.api.NewArticle;
import io.reactivebench.authors.api.Author;
import io.reactivebench.webapi.api.ArticleView;
import io.reactivebench.webapi.client.ArticlesClient;
import io.reactivebench.webapi.client.AuthorsClient;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.Optional;

@ApplicationScoped
public class ArticleViewService {
    /** The executor of the author look-ups: a bounded pool of platform threads in v1, virtual threads in v3. */
    public static final String AUTHOR_LOOKUPS = "author-lookups";

    private final ArticlesClient articles;
    private final AuthorsClient authors;
    private final Executor lookups;

    public ArticleViewService(ArticlesClient articles, AuthorsClient authors,
            @Named(AUTHOR_LOOKUPS) Executor lookups) {
        this.articles = articles;
        this.authors = authors;
        // A look-up runs on a thread of its executor's, where the request's trace is not current: each task takes the
        // submitter's context along, so the look-ups are spans of the request's trace (nothing to carry when tracing is off).
        this.lookups = Context.taskWrapping(lookups);
    }

    /** The newest articles with their authors: every distinct author looked up once, all in parallel. */
    public List<ArticleView> findNewest() {
        List<Article> newest = articles.findNewest(ArticleLimits.DEFAULT_AMOUNT);
        Map<String, CompletableFuture<Optional<Author>>> pending = new LinkedHashMap<>();
        for (Article article : newest) {
            pending.computeIfAbsent(article.author(), name -> CompletableFuture.supplyAsync(() -> authors.findByName(name), lookups));
        }
        Map<String, Author> authorsByName = new HashMap<>();
        pending.forEach((name, lookup) -> authorsByName.put(name, lookup.join().orElse(null)));
        return ArticleView.merge(newest, authorsByName);
    }

    public Article create(NewArticle article) {
        return articles.create(article);
    }
}
