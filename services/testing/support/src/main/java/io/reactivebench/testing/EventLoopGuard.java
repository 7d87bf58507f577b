package io.reactivebench.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Vert.x reported a blocked event loop (or worker) thread while it ran.
 * Vert.x's BlockedThreadChecker logs a warning for each; this listens on that logger.
 */
public class EventLoopGuard implements BeforeAllCallback, AfterAllCallback {
    public static final String CHECKER_LOGGER = "io.vertx.core.impl.BlockedThreadChecker";

    private static final List<String> REPORTS = new CopyOnWriteArrayList<>();
    private static final Handler LISTENER = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                REPORTS.add(String.valueOf(record.getMessage()));
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    // Held, so that the logger (and the listener on it) is not garbage-collected.
    private static final Logger CHECKER = Logger.getLogger(CHECKER_LOGGER);

    static {
        CHECKER.addHandler(LISTENER);
    }

    /** What Vert.x reported since the last {@link #clear()}. */
    public static List<String> reports() {
        return List.copyOf(REPORTS);
    }

    public static void clear() {
        REPORTS.clear();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        clear();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        List<String> reports = reports();
        if (!reports.isEmpty()) {
            throw new AssertionError("Vert.x reported blocked threads during " + context.getDisplayName() + ":\n"
                    + String.join("\n", reports));
        }
    }
}
