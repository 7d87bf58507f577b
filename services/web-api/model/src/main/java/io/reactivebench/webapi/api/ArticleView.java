package io.reactivebench.webapi.api;

import io.reactivebench.articles.api.Article;
import io.reactivebench.authors.api.Author;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import java.util.Map;

/**
 * One article as web-api answers it: the article with its author's details merged in.
 * {@code authorBlog} and {@code authorTwitter} are null when the author could not be looked up.
 */
public record ArticleView(Long id, String title, String url, String authorName,
        @Schema(nullable = true) String authorBlog, @Schema(nullable = true) String authorTwitter) {

    /** Merges each article with its author from {@code authorsByName}, where a missing or null author leaves nulls. */
    public static List<ArticleView> merge(List<Article> articles, Map<String, Author> authorsByName) {
        return articles.stream().map(article -> of(article, authorsByName.get(article.author()))).toList();
    }

    private static ArticleView of(Article article, Author author) {
        return new ArticleView(article.id(), article.title(), article.url(), article.author(),
                author == null ? null : author.blog(), author == null ? null : author.twitter());
    }
}
