package io.reactivebench.articles.api;

import java.time.Instant;

/**
 * A stored article, as the articles service answers it and as the {@code article-created} event carries it.
 * {@code creationDate} has microsecond precision, the precision PostgreSQL keeps.
 */
public record Article(Long id, String title, String url, String author, Instant creationDate) {
}
