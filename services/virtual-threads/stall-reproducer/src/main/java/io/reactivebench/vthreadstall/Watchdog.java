package io.reactivebench.vthreadstall;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * A platform thread that sees a stall: look-ups in flight and none finished for {@code stallMillis}. It takes the
 * evidence (the first three stalls of a run in full, the counts of every one), and if the stall lasts to
 * {@code kickMillis} it starts one virtual thread that does nothing: new work makes the scheduler wake a carrier, so
 * a stall that ends right after it was runnable work no carrier had been woken for; one that ends before it ended by
 * itself (a time-out, a timer, PostgreSQL).
 */
final class Watchdog extends Thread {
    private static final int FULL_EVIDENCE_STALLS = 3;

    private final Settings settings;
    private final ConnectionPool pool;
    private final IntSupplier inFlight;
    private final AtomicLong timeouts;
    private final Evidence evidence;
    private final List<Map<String, Object>> stalls = new ArrayList<>();
    private volatile long lastProgress = System.nanoTime();
    private volatile boolean stallOpen;
    private final AtomicLong resumedAt = new AtomicLong();
    private final AtomicLong kickRanAt = new AtomicLong();
    private volatile boolean stopping;

    Watchdog(Settings settings, ConnectionPool pool, IntSupplier inFlight, AtomicLong timeouts, Evidence evidence) {
        super("stall-watchdog");
        setDaemon(true);
        this.settings = settings;
        this.pool = pool;
        this.inFlight = inFlight;
        this.timeouts = timeouts;
        this.evidence = evidence;
    }

    /** Called by every look-up that finished. */
    void progress() {
        long now = System.nanoTime();
        lastProgress = now;
        if (stallOpen) {
            resumedAt.compareAndSet(0, now);
        }
    }

    @Override
    public void run() {
        long stallNanos = settings.stallMillis() * 1_000_000L;
        long kickNanos = settings.kickMillis() * 1_000_000L;
        while (!stopping) {
            sleepQuietly();
            long since = lastProgress;
            if (System.nanoTime() - since < stallNanos || inFlight.getAsInt() == 0) {
                continue;
            }
            resumedAt.set(0);
            kickRanAt.set(0);
            stallOpen = true;
            if (lastProgress != since) {  // it moved on between the two reads
                stallOpen = false;
                continue;
            }
            Map<String, Object> stall = new LinkedHashMap<>();
            Map<String, Object> seen = Evidence.moment(pool, inFlight.getAsInt());
            stall.put("seen", seen);
            stall.put("runnable_queued_no_carrier_active", Scheduler.queuedWithNoCarrierActive(castScheduler(seen)));
            long timeoutsBefore = timeouts.get();
            if (evidence != null && stalls.size() < FULL_EVIDENCE_STALLS) {
                stall.put("moments", evidence.take("stall-" + (stalls.size() + 1), pool, inFlight, 3));
            }
            long kickedAt = 0;
            while (resumedAt.get() == 0 && !stopping) {
                if (kickedAt == 0 && System.nanoTime() - since >= kickNanos) {
                    kickedAt = System.nanoTime();
                    Thread.ofVirtual().name("stall-kick").start(() -> kickRanAt.compareAndSet(0, System.nanoTime()));
                }
                sleepQuietly();
            }
            stallOpen = false;
            long resumed = resumedAt.get();
            stall.put("stalled_ms", resumed == 0 ? null : (resumed - since) / 1_000_000);
            stall.put("kicked", kickedAt != 0);
            stall.put("resumed_ms_after_kick", kickedAt == 0 || resumed == 0 ? null : (resumed - kickedAt) / 1_000_000);
            stall.put("kick_ran_ms_after_kick", kickedAt == 0 || kickRanAt.get() == 0 ? null : (kickRanAt.get() - kickedAt) / 1_000_000);
            stall.put("acquisition_timeouts_meanwhile", timeouts.get() - timeoutsBefore);
            stalls.add(stall);
            System.err.println("stall: " + json(stall.get("seen")) + " lasted " + stall.get("stalled_ms") + " ms"
                    + (kickedAt != 0 ? ", kicked" : ""));
        }
    }

    private static String json(Object value) {
        try {
            return OverloadRun.JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            return String.valueOf(value);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> castScheduler(Map<String, Object> moment) {
        return (Map<String, Object>) moment.get("scheduler");
    }

    private static void sleepQuietly() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    List<Map<String, Object>> finish() throws InterruptedException {
        stopping = true;
        join(10_000);
        return stalls;
    }
}
