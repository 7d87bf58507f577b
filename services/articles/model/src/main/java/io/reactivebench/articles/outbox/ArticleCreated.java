package io.reactivebench.articles.outbox;

import io.reactivebench.articles.api.Article;

/**
 * A pending article-created event as the relay publishes it: the article, and the trace of the request that stored it
 * (a traceparent, or null when tracing is off).
 */
public record ArticleCreated(Article article, String traceParent) {
}
