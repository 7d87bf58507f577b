package io.reactivebench.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
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
 * Fails a test class when a virtual thread pinned its carrier in a way that matters while it ran: JFR's
 * {@code jdk.VirtualThreadPinned} events, every one (threshold 0, not JFR's default 20 ms), recorded in this JVM.
 * A pin matters when the code that led into it is the project's, when it lasted {@link #ONE_OFF_BOUND} or more, or
 * when the same site pinned again in the class. Printed, not failed, when shorter than the bound:
 * <ul>
 *   <li>a one-off pin inside the JDK on a first use, reached from a library (the JDK's method-type cache, filled once
 *   while a connection pool links its first call: its length is how busy the machine is that moment, not the code's);
 *   <li>a wait for a class that another thread is initializing (the JVM waits in its own code, which pins even on
 *   JDK 24+, and JFR names it in {@code pinnedReason}): it happens on a class's first use only, however many
 *   requests arrive together, so neither the project's frame that first used the class nor a site seen twice makes
 *   it matter. Its length is the other thread's initializer, which, if it blocks on a virtual thread, is a pin of
 *   its own that the guard keeps;
 *   <li>once at its site, a pin where the JVM could not unmount the thread in its own code (JFR's reason "Freeze or
 *   preempt failed", JDK 24+), though the project's frame is where it stood: seen at a class's first use, by each of
 *   the parallel look-ups of one request that met it together. The same site again later is kept, as a contended
 *   monitor would pin it.
 * </ul>
 * Left out as not the application's at all: pins of the JDK's own I/O poller threads ({@code sun.nio.ch.Poller}) and
 * a class being loaded for the first time (the JVM calls the class loader from native code).
 */
public class PinnedThreadGuard implements BeforeAllCallback, AfterAllCallback {
    static final String PINNED = "jdk.VirtualThreadPinned";
    /** A pin this long always matters: over ten times the 15 ms a first use took at a load average of 9-13 on two cores. */
    static final Duration ONE_OFF_BOUND = Duration.ofMillis(200);
    private static final String PROJECT = "io.reactivebench.";
    private static final List<String> JDK = List.of("java.", "javax.", "jdk.", "sun.", "com.sun.");
    private static final String JDK_POLLER = "sun.nio.ch.Poller";
    private static final Duration DELIVERY = Duration.ofSeconds(10);
    /** JFR's reason for a wait on another thread's class initialization (JDK 24+; the field is absent before). */
    static final String CLASS_INITIALIZATION_WAIT = "Waited for initialization of ";
    /**
     * JFR's reason when the JVM tried to unmount a virtual thread in its own code and could not (JDK 24+): seen once
     * at a class's first use (web-api v3's first use of ArticleView, 9 ms, in its contract suite).
     */
    static final String VM_COULD_NOT_UNMOUNT = "Freeze or preempt failed";
    /**
     * Pins where the JVM could not unmount that start within this of each other are one moment of their site: the
     * first use of a class by threads that met it together (web-api v3's five look-ups of one request, three of them
     * pinned in OpenTelemetry's context storage at once, 0 ms each, in a cold make test at dfc6979).
     */
    static final Duration ONE_MOMENT = Duration.ofSeconds(1);
    private static final String PINNED_REASON = "pinnedReason";

    private static final List<Pin> PINS = new CopyOnWriteArrayList<>();
    private static volatile CountDownLatch delivered;
    private static RecordingStream stream;

    /**
     * One pin: the stack's frames as {@code type.method}, innermost first, when it began, how long the carrier was
     * held, and JFR's reason for it (empty where the JDK records none).
     */
    record Pin(List<String> frames, Instant at, Duration duration, String reason, String description) {

        /** A wait for another thread's class initialization: a class's first use, once by construction. */
        boolean waitedForAClassToInitialize() {
            return reason.startsWith(CLASS_INITIALIZATION_WAIT);
        }

        /** The JVM could not unmount the thread where it waited in its own code (a monitor's or a class's). */
        boolean theJvmCouldNotUnmount() {
            return reason.startsWith(VM_COULD_NOT_UNMOUNT);
        }

        /** The code that led into the pin: the innermost frame that is not the JDK's (null: the JDK's alone). */
        String ledBy() {
            return frames.stream().filter(frame -> JDK.stream().noneMatch(frame::startsWith)).findFirst().orElse(null);
        }

        /** Where it pinned: the JDK's frames down to the code that led into them, and that code. */
        List<String> site() {
            String ledBy = ledBy();
            return ledBy == null ? frames : frames.subList(0, frames.indexOf(ledBy) + 1);
        }

        boolean ledByTheProject() {
            String ledBy = ledBy();
            return ledBy != null && ledBy.startsWith(PROJECT);
        }
    }

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
                PINS.add(pin(event));
            }
        });
        stream.onEvent(Checkpoint.class.getAnnotation(Name.class).value(), event -> delivered.countDown());
        stream.setMaxAge(Duration.ofMinutes(1));
        stream.startAsync();
    }

    /** The pins recorded until now (JFR delivers events in batches, so this waits for the latest). */
    static List<Pin> recorded() {
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

    /** The pins until now that matter (see the class comment), described. */
    static List<String> pins() {
        return thatMatter(recorded()).stream().map(Pin::description).toList();
    }

    static void clear() {
        recorded();
        PINS.clear();
    }

    /**
     * Of these pins, the ones that matter: as long as the bound, or, unless a wait for a class to initialize, led by
     * the project's code or from a site seen twice. Where the JVM could not unmount the thread in its own code, the
     * project's frame does not make it matter, a site seen twice does: a contended monitor of the project's would pin
     * its site again and again, a class's first use does once.
     */
    static List<Pin> thatMatter(List<Pin> pins) {
        Map<List<String>, Long> bySite = pins.stream().collect(Collectors.groupingBy(Pin::site, Collectors.counting()));
        Map<List<String>, Long> momentsBySite = pins.stream().collect(Collectors.groupingBy(Pin::site,
                Collectors.collectingAndThen(Collectors.toList(), PinnedThreadGuard::moments)));
        List<Pin> matter = new ArrayList<>();
        for (Pin pin : pins) {
            boolean once = pin.waitedForAClassToInitialize();
            boolean repeats = (pin.theJvmCouldNotUnmount() ? momentsBySite : bySite).get(pin.site()) > 1;
            boolean ledByTheProject = pin.ledByTheProject() && !pin.theJvmCouldNotUnmount();
            if (pin.duration().compareTo(ONE_OFF_BOUND) >= 0 || !once && (ledByTheProject || repeats)) {
                matter.add(pin);
            } else {
                System.out.println("[PinnedThreadGuard] left out, " + (once
                        ? "a wait for a class that another thread was initializing: "
                        : pin.theJvmCouldNotUnmount() ? "a one-off pin where the JVM could not unmount the thread: "
                        : "a one-off pin inside the JDK on a first use: ") + pin.description());
            }
        }
        return matter;
    }

    /** How many moments these pins fell in: each begins with a pin more than {@link #ONE_MOMENT} after the one before. */
    static long moments(List<Pin> pins) {
        List<Instant> starts = pins.stream().map(Pin::at).sorted().toList();
        long moments = starts.isEmpty() ? 0 : 1;
        for (int i = 1; i < starts.size(); i++) {
            if (Duration.between(starts.get(i - 1), starts.get(i)).compareTo(ONE_MOMENT) > 0) {
                moments++;
            }
        }
        return moments;
    }

    /** A pin of the JDK's own I/O poller, or of the JVM loading a class (see the class comment). */
    private static boolean notTheApplications(RecordedEvent event) {
        return event.getStackTrace() != null && event.getStackTrace().getFrames().stream()
                .anyMatch(frame -> frame.getMethod().getType().getName().startsWith(JDK_POLLER)
                        || frame.getMethod().getName().equals("loadClass"));
    }

    private static Pin pin(RecordedEvent event) {
        List<RecordedFrame> frames = event.getStackTrace() == null ? List.of() : event.getStackTrace().getFrames();
        Function<RecordedFrame, String> name = frame -> frame.getMethod().getType().getName() + "." + frame.getMethod().getName();
        String stack = frames.isEmpty() ? "(no stack trace)" : frames.stream().limit(12)
                .map(frame -> name.apply(frame) + " line " + frame.getLineNumber())
                .collect(Collectors.joining("\n    at ", "    at ", ""));
        String reason = event.hasField(PINNED_REASON) && event.getString(PINNED_REASON) != null
                ? event.getString(PINNED_REASON) : "";
        return new Pin(frames.stream().map(name).toList(), event.getStartTime(), event.getDuration(), reason,
                "a virtual thread pinned its carrier for " + event.getDuration().toMillis() + " ms"
                        + (reason.isEmpty() ? "" : " (" + reason + ")") + ":\n" + stack);
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
