package io.reactivebench.webapi.api;

import io.smallrye.common.annotation.Identifier;
import io.smallrye.faulttolerance.api.Guard;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import jakarta.ws.rs.ClientErrorException;
import java.time.temporal.ChronoUnit;

/**
 * How web-api treats articles and authors, the same in every build: one SmallRye Fault Tolerance guard per
 * kind of call, applied with {@code @ApplyGuard} to the blocking (v1, v3) and the {@code Uni} (v2) clients alike.
 * Every circuit opens when half of the last 20 calls failed, and tries again after 5 s. A guard is configurable
 * by its identifier, e.g. {@code smallrye.faulttolerance."authors".timeout.value=1000} (milliseconds).
 */
@Singleton
public class DownstreamGuards {
    public static final String ARTICLES_READS = "articles-reads";
    public static final String ARTICLES_WRITES = "articles-writes";
    public static final String AUTHORS = "authors";

    private static final int BREAKER_WINDOW = 20;
    private static final double BREAKER_FAILURE_RATIO = 0.5;
    private static final long BREAKER_DELAY_MS = 5000;

    /** Reading the newest articles: 1.5 s, one retry, since it is idempotent. */
    @Produces
    @Identifier(ARTICLES_READS)
    static final Guard ARTICLES_READ = Guard.create()
            .withTimeout().duration(1500, ChronoUnit.MILLIS).done()
            .withRetry().maxRetries(1).delay(0, ChronoUnit.MILLIS).done()
            .withCircuitBreaker().requestVolumeThreshold(BREAKER_WINDOW).failureRatio(BREAKER_FAILURE_RATIO)
                    .delay(BREAKER_DELAY_MS, ChronoUnit.MILLIS).done()
            .build();

    /** Creating an article: 3 s, never retried; a rejected article (4xx) is the client's failure, not articles'. */
    @Produces
    @Identifier(ARTICLES_WRITES)
    static final Guard ARTICLES_WRITE = Guard.create()
            .withTimeout().duration(3000, ChronoUnit.MILLIS).done()
            .withCircuitBreaker().requestVolumeThreshold(BREAKER_WINDOW).failureRatio(BREAKER_FAILURE_RATIO)
                    .delay(BREAKER_DELAY_MS, ChronoUnit.MILLIS).skipOn(ClientErrorException.class).done()
            .build();

    /** One author look-up: 1 s; a failure falls back to null details, so no retry. */
    @Produces
    @Identifier(AUTHORS)
    static final Guard AUTHOR_LOOKUP = Guard.create()
            .withTimeout().duration(1000, ChronoUnit.MILLIS).done()
            .withCircuitBreaker().requestVolumeThreshold(BREAKER_WINDOW).failureRatio(BREAKER_FAILURE_RATIO)
                    .delay(BREAKER_DELAY_MS, ChronoUnit.MILLIS).done()
            .build();
}
