package io.reactivebench.webapi.api;

/**
 * One article as web-api answers it: the article with its author's details merged in.
 * {@code authorBlog} and {@code authorTwitter} are null when the author could not be looked up.
 */
public record ArticleView(Long id, String title, String url, String authorName, String authorBlog, String authorTwitter) {
}
