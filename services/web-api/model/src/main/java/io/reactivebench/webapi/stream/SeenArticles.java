package io.reactivebench.webapi.stream;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The ids of the articles streamed lately. The articles service publishes each event at least once (its
 * outbox may resend after a failure); with this, each connected client still gets each article once.
 */
public final class SeenArticles {
    private final Map<Long, Boolean> recent;

    public SeenArticles(int capacity) {
        this.recent = new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
                return size() > capacity;
            }
        };
    }

    /** True the first time an id comes (among the last {@code capacity} ids), false for a duplicate. */
    public synchronized boolean firstTime(long id) {
        return recent.putIfAbsent(id, Boolean.TRUE) == null;
    }
}
