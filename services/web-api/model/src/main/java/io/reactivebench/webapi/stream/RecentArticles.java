package io.reactivebench.webapi.stream;

import io.reactivebench.articles.api.Article;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The articles streamed lately, in the order they came. Two uses: the articles service publishes each event at
 * least once (its outbox may resend after a failure), so each connected client still gets each article once; and
 * a client that reconnects with {@code Last-Event-ID} (its stream ended: this pod stopped, the network broke) is
 * sent what it missed first.
 */
public final class RecentArticles {
    private final Map<Long, Article> recent;

    public RecentArticles(int capacity) {
        this.recent = new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Article> eldest) {
                return size() > capacity;
            }
        };
    }

    /** Remembers an article; true the first time its id comes (among the last {@code capacity}), false for a duplicate. */
    public synchronized boolean add(Article article) {
        return recent.putIfAbsent(article.id(), article) == null;
    }

    /**
     * What came after the article {@code lastEventId}, oldest first: everything after it if it is remembered,
     * otherwise every remembered article with a greater id (ids grow with time, only roughly in Kafka's order).
     */
    public synchronized List<Article> after(long lastEventId) {
        List<Article> missed = new ArrayList<>();
        boolean remembered = recent.containsKey(lastEventId);
        boolean passed = false;
        for (Article article : recent.values()) {
            if (remembered ? passed : article.id() > lastEventId) {
                missed.add(article);
            }
            passed |= article.id() == lastEventId;
        }
        return missed;
    }
}
