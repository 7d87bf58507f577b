package io.reactivebench.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reactivebench.testing.PinnedThreadGuard.Pin;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The guard bites: a virtual thread that parks inside a class initializer pins its carrier (even on JDK 24+), and a
 * pin in the JDK that repeats or lasts is kept; a one-off pin inside the JDK on a first use, and a short wait for a
 * class that another thread is initializing, are left out.
 */
class PinnedThreadGuardTest {

    static class ParksWhileInitializing {
        static {
            LockSupport.parkNanos(5_000_000); // 5 ms: below JFR's default threshold, which the guard does not use
        }
    }

    @Test
    void reportsAVirtualThreadThatPinsItsCarrier() throws InterruptedException {
        PinnedThreadGuard.start();
        PinnedThreadGuard.clear();
        Thread.ofVirtual().start(() -> new ParksWhileInitializing()).join();
        List<String> pins = PinnedThreadGuard.pins();
        assertEquals(1, pins.size(), String.join("\n", pins));
        assertTrue(pins.get(0).contains(ParksWhileInitializing.class.getName()), pins.get(0));
    }

    /** Outside the class it tells of: a thread reading it there would wait for the initialization too. */
    private static final CountDownLatch INITIALIZATION_STARTED = new CountDownLatch(1);

    static class InitializedByAnotherThread {
        static {
            INITIALIZATION_STARTED.countDown();
            LockSupport.parkNanos(50_000_000); // on a platform thread: no pin of its own
        }

        static void use() {
        }
    }

    @Test
    void leavesOutAShortWaitForAClassThatAnotherThreadIsInitializing() throws InterruptedException {
        PinnedThreadGuard.start();
        PinnedThreadGuard.clear();
        Thread initializer = Thread.ofPlatform().start(InitializedByAnotherThread::use);
        INITIALIZATION_STARTED.await();
        Thread.ofVirtual().start(InitializedByAnotherThread::use).join();
        initializer.join();
        List<Pin> recorded = PinnedThreadGuard.recorded();
        assertEquals(1, recorded.size(), recorded.toString());
        assertTrue(recorded.get(0).waitedForAClassToInitialize(), recorded.get(0).description());
        assertTrue(recorded.get(0).ledByTheProject(), recorded.get(0).description());
        assertEquals(List.of(), PinnedThreadGuard.pins());
    }

    @Test
    void passesAVirtualThreadThatParksWithoutPinning() throws InterruptedException {
        PinnedThreadGuard.start();
        PinnedThreadGuard.clear();
        Object monitor = new Object();
        Thread.ofVirtual().start(() -> {
            synchronized (monitor) { // pinned before JDK 24 (JEP 491), not since
                LockSupport.parkNanos(5_000_000);
            }
        }).join();
        assertEquals(List.of(), PinnedThreadGuard.pins());
    }

    /** The stack of the pin seen on a busy fresh machine: the JDK's method-type cache, filled on a pool's first call. */
    private static final List<String> FIRST_USE_IN_THE_JDK = List.of(
            "java.lang.VirtualThread.parkOnCarrierThread", "java.lang.VirtualThread.park",
            "java.util.concurrent.locks.LockSupport.park", "java.lang.ref.ReferenceQueue.poll",
            "jdk.internal.util.ReferencedKeyMap.get", "java.lang.invoke.MethodType.makeImpl",
            "io.agroal.pool.ConnectionPool.handlerFromSharedCache", "io.agroal.pool.ConnectionPool.getConnection",
            "io.reactivebench.authors.AuthorRepository.findById");

    private static Pin pin(List<String> frames, long millis) {
        return pin(frames, millis, "");
    }

    private static Pin pin(List<String> frames, long millis, String reason) {
        return pin(frames, millis, reason, Instant.EPOCH);
    }

    private static Pin pin(List<String> frames, long millis, String reason, Instant at) {
        return new Pin(frames, at, Duration.ofMillis(millis), reason, frames.get(frames.size() - 1) + " " + millis + " ms");
    }

    /** The stack of the pin seen on CI: a request's first use of a class that a concurrent request was initializing. */
    private static final List<String> FIRST_USE_OF_A_CLASS = List.of(
            "io.reactivebench.webapi.service.ArticleViewService.findNewest",
            "io.reactivebench.webapi.rest.ArticleViewResource.findNewest");
    private static final String WAITED = PinnedThreadGuard.CLASS_INITIALIZATION_WAIT
            + "io.reactivebench.webapi.api.ArticleView by another thread";

    @Test
    void leavesOutWaitsForAClassToInitializeThoughTheProjectLedAndTheSiteRepeats() {
        List<Pin> together = List.of(pin(FIRST_USE_OF_A_CLASS, 1, WAITED), pin(FIRST_USE_OF_A_CLASS, 3, WAITED));
        assertEquals(List.of(), PinnedThreadGuard.thatMatter(together));
    }

    @Test
    void keepsAWaitForAClassToInitializeThatLastsPastTheBound() {
        Pin long_ = pin(FIRST_USE_OF_A_CLASS, PinnedThreadGuard.ONE_OFF_BOUND.toMillis(), WAITED);
        assertEquals(List.of(long_), PinnedThreadGuard.thatMatter(List.of(long_)));
    }

    private static final String COULD_NOT_UNMOUNT = PinnedThreadGuard.VM_COULD_NOT_UNMOUNT + " (2)";

    @Test
    void leavesOutAOneOffPinWhereTheJvmCouldNotUnmountThoughTheProjectLed() {
        assertEquals(List.of(), PinnedThreadGuard.thatMatter(List.of(pin(FIRST_USE_OF_A_CLASS, 9, COULD_NOT_UNMOUNT))));
    }

    @Test
    void leavesOutPinsWhereTheJvmCouldNotUnmountThatOneFirstUseMadeTogether() {
        Instant first = Instant.EPOCH;
        List<Pin> together = List.of(pin(FIRST_USE_OF_A_CLASS, 0, COULD_NOT_UNMOUNT, first),
                pin(FIRST_USE_OF_A_CLASS, 0, COULD_NOT_UNMOUNT, first.plusMillis(3)),
                pin(FIRST_USE_OF_A_CLASS, 0, COULD_NOT_UNMOUNT, first.plusMillis(40)));
        assertEquals(List.of(), PinnedThreadGuard.thatMatter(together));
    }

    @Test
    void keepsPinsWhereTheJvmCouldNotUnmountWhenTheSiteRepeatsOrTheyLastPastTheBound() {
        Instant first = Instant.EPOCH;
        List<Pin> twice = List.of(pin(FIRST_USE_OF_A_CLASS, 9, COULD_NOT_UNMOUNT, first),
                pin(FIRST_USE_OF_A_CLASS, 2, COULD_NOT_UNMOUNT, first.plus(PinnedThreadGuard.ONE_MOMENT).plusMillis(1)));
        assertEquals(twice, PinnedThreadGuard.thatMatter(twice));
        Pin long_ = pin(FIRST_USE_OF_A_CLASS, PinnedThreadGuard.ONE_OFF_BOUND.toMillis(), COULD_NOT_UNMOUNT);
        assertEquals(List.of(long_), PinnedThreadGuard.thatMatter(List.of(long_)));
    }

    @Test
    void leavesOutAOneOffPinInsideTheJdkOnAFirstUse() {
        assertEquals(List.of(), PinnedThreadGuard.thatMatter(List.of(pin(FIRST_USE_IN_THE_JDK, 15))));
    }

    @Test
    void keepsThePinsOfTheSameSiteWhenItRepeats() {
        List<Pin> twice = List.of(pin(FIRST_USE_IN_THE_JDK, 15), pin(FIRST_USE_IN_THE_JDK, 2));
        assertEquals(twice, PinnedThreadGuard.thatMatter(twice));
    }

    @Test
    void keepsAPinInsideTheJdkThatLastsPastTheBound() {
        Pin long_ = pin(FIRST_USE_IN_THE_JDK, PinnedThreadGuard.ONE_OFF_BOUND.toMillis());
        assertEquals(List.of(long_), PinnedThreadGuard.thatMatter(List.of(long_)));
    }

    @Test
    void keepsAOneOffPinThatTheProjectsCodeLedInto() {
        Pin ours = pin(List.of("java.lang.VirtualThread.park", "java.util.concurrent.locks.LockSupport.parkNanos",
                "io.reactivebench.web.AuthorLookups.<clinit>", "io.agroal.pool.ConnectionPool.getConnection"), 1);
        assertEquals(List.of(ours), PinnedThreadGuard.thatMatter(List.of(ours)));
    }
}
