package io.reactivebench.testing;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import jdk.jfr.Event;
import jdk.jfr.Name;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when a virtual thread pinned its carrier while it ran: JFR's {@code jdk.VirtualThreadPinned}
 * events, every one (threshold 0, not JFR's default 20 ms), recorded in this JVM. Left out, as not the
 * application's: pins of the JDK's own I/O poller threads ({@code sun.nio.ch.Poller}), and a class being loaded
 * for the first time (the JVM calls the class loader from native code, which pins even on JDK 24+; a cold
 * service's first requests do that for a few milliseconds).
 */
public class PinnedThreadGuard implements BeforeAllCallback, AfterAllCallback {
    static final String PINNED = "jdk.VirtualThreadPinned";
    private static final String JDK_POLLER = "sun.nio.ch.Poller";
    private static final Duration DELIVERY = Duration.ofSeconds(10);

    private static final List<String> PINS = new CopyOnWriteArrayList<>();
    private static volatile CountDownLatch delivered;
    private static RecordingStream stream;

    /** Marks a point in the recording: once it has arrived, every event before it has. */
    @Name("io.reactivebench.testing.Checkpoint")
    static class Checkpoint extends Event {
    }

    static synchronized void start() {
        if (stream != null) {
            return;
        }
        stream = new RecordingStream();
        stream.enable(PINNED).withThreshold(Duration.ZERO).withStackTrace();
        stream.enable(Checkpoint.class);
        stream.onEvent(PINNED, event -> {
            if (!notTheApplications(event)) {
                PINS.add(describe(event));
            }
        });
        stream.onEvent(Checkpoint.class.getAnnotation(Name.class).value(), event -> delivered.countDown());
        stream.setMaxAge(Duration.ofMinutes(1));
        stream.startAsync();
    }

    /** The pins recorded until now (JFR delivers events in batches, so this waits for the latest). */
    static List<String> pins() {
        delivered = new CountDownLatch(1);
        new Checkpoint().commit();
        try {
            if (!delivered.await(DELIVERY.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("JFR did not deliver its events within " + DELIVERY);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        return List.copyOf(PINS);
    }

    static void clear() {
        pins();
        PINS.clear();
    }

    /** A pin of the JDK's own I/O poller, or of the JVM loading a class (see the class comment). */
    private static boolean notTheApplications(RecordedEvent event) {
        return event.getStackTrace() != null && event.getStackTrace().getFrames().stream()
                .anyMatch(frame -> frame.getMethod().getType().getName().startsWith(JDK_POLLER)
                        || frame.getMethod().getName().equals("loadClass"));
    }

    private static String describe(RecordedEvent event) {
        String stack = event.getStackTrace() == null ? "(no stack trace)" : event.getStackTrace().getFrames().stream()
                .limit(12).map(PinnedThreadGuard::frame).collect(Collectors.joining("\n    at ", "    at ", ""));
        return "a virtual thread pinned its carrier for " + event.getDuration().toMillis() + " ms:\n" + stack;
    }

    private static String frame(RecordedFrame frame) {
        return frame.getMethod().getType().getName() + "." + frame.getMethod().getName() + " line " + frame.getLineNumber();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        start();
        clear();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        List<String> pins = pins();
        if (!pins.isEmpty()) {
            throw new AssertionError(pins.size() + " pinned virtual thread(s) during " + context.getDisplayName() + ":\n"
                    + String.join("\n", pins));
        }
    }
}
