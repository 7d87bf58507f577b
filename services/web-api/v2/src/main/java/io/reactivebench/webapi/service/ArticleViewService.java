package io.reactivebench.webapi.service;

import io.reactivebench.articles.api.Article;
import io.reactivebench.articles.api.ArticleLimits;
import io.reactivebench.articles.api.NewArticle;
import io.reactivebench.authors.api.Author;
import io.reactivebench.webapi.api.ArticleView;
import io.reactivebench.webapi.client.ArticlesClient;
import io.reactivebench.webapi.client.AuthorsClient;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

@ApplicationScoped
public class ArticleViewService {

    private final ArticlesClient articles;
    private final AuthorsClient authors;

    public ArticleViewService(ArticlesClient articles, AuthorsClient authors) {
        this.articles = articles;
        this.authors = authors;
    }

    /** The newest articles with their authors: every distinct author looked up once, all in parallel. */
    public Uni<List<ArticleView>> findNewest() {
        return articles.findNewest(ArticleLimits.DEFAULT_AMOUNT).flatMap(newest -> {
            List<String> names = newest.stream().map(Article::author).distinct().toList();
            if (names.isEmpty()) {
                return Uni.createFrom().item(List.<ArticleView>of());
            }
            List<Uni<Author>> pending = names.stream().map(authors::findByName).toList();
            // A look-up never fails (its fall-back is null details), so failing fast never cuts one short.
            return Uni.join().all(pending).andFailFast().map(found -> {
                Map<String, Author> authorsByName = new HashMap<>();
                for (int i = 0; i < names.size(); i++) {
                    authorsByName.put(names.get(i), found.get(i));
                }
                return ArticleView.merge(newest, authorsByName);
            });
        });
    }

    public Uni<Article> create(NewArticle article) {
        return articles.create(article);
    }
}
