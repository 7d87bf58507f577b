package io.reactivebench.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The guard must bite: a really blocked event loop is reported through the logger it listens on. */
class EventLoopGuardTest {

    @Test
    void seesABlockedEventLoop() throws Exception {
        System.setProperty("vertx.logger-delegate-factory-class-name", "io.vertx.core.logging.JULLogDelegateFactory");
        EventLoopGuard.clear();
        Vertx vertx = Vertx.vertx(new VertxOptions()
                .setBlockedThreadCheckInterval(50).setBlockedThreadCheckIntervalUnit(TimeUnit.MILLISECONDS)
                .setMaxEventLoopExecuteTime(100).setMaxEventLoopExecuteTimeUnit(TimeUnit.MILLISECONDS));
        try {
            vertx.runOnContext(ignored -> sleep(Duration.ofMillis(600)));
            Instant deadline = Instant.now().plusSeconds(5);
            while (EventLoopGuard.reports().isEmpty() && Instant.now().isBefore(deadline)) {
                Thread.sleep(50);
            }
            assertFalse(EventLoopGuard.reports().isEmpty(), "no blocked-thread report reached the guard");
            assertTrue(EventLoopGuard.reports().get(0).contains("blocked"), EventLoopGuard.reports().get(0));
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
            EventLoopGuard.clear();
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
