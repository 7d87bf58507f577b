package io.reactivebench.webapi.api;

/**
 * How web-api treats articles and authors, the same in every build: the values of the fault-tolerance
 * annotations on every build's clients. Each can be overridden through MicroProfile config, e.g.
 * {@code io.reactivebench.webapi.client.AuthorsClient/findByName/Timeout/value=1000} (milliseconds).
 */
public final class DownstreamPolicy {
    /** Reading the newest articles; one retry, since it is idempotent. */
    public static final long ARTICLES_READ_TIMEOUT_MS = 1500;
    public static final int ARTICLES_READ_RETRIES = 1;
    /** Creating an article; never retried. */
    public static final long ARTICLES_WRITE_TIMEOUT_MS = 3000;
    /**
     * One author look-up; a failure falls back to null details. Tried once more only when its connection failed
     * before any answer (a pooled keep-alive connection to a pod that stopped, a refused connection): the look-up
     * is idempotent and the second try goes out on another connection; never after a time-out or an answer.
     */
    public static final long AUTHORS_TIMEOUT_MS = 1000;
    public static final int AUTHORS_RETRIES_ON_CONNECTION_FAILURE = 1;
    /** Every circuit opens when half of the last 20 calls failed, and tries again after 5 s. */
    public static final int BREAKER_WINDOW = 20;
    public static final double BREAKER_FAILURE_RATIO = 0.5;
    public static final long BREAKER_DELAY_MS = 5000;

    private DownstreamPolicy() {
    }
}
