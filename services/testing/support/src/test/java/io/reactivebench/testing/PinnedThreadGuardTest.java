package io.reactivebench.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** The guard bites: a virtual thread that parks inside a class initializer pins its carrier (even on JDK 24+). */
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
}
