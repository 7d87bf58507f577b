package io.reactivebench.testing;

import io.quarkus.vertx.VertxOptionsCustomizer;
import io.vertx.core.VertxOptions;
import jakarta.inject.Singleton;
import java.util.concurrent.TimeUnit;

/**
 * In the tests Vert.x looks for a blocked thread every 10 ms instead of every second: a block a little over the
 * tests' 50 ms limit (%test.quarkus.vertx.max-event-loop-execute-time) is then always seen, not once in twenty.
 */
@Singleton
public class FrequentBlockedThreadChecks implements VertxOptionsCustomizer {
    static final long CHECK_INTERVAL_MS = 10;

    @Override
    public void accept(VertxOptions options) {
        options.setBlockedThreadCheckInterval(CHECK_INTERVAL_MS).setBlockedThreadCheckIntervalUnit(TimeUnit.MILLISECONDS);
    }
}
