package io.reactivebench.vthreadstall;

import java.lang.reflect.Field;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;

/**
 * The virtual-thread scheduler's own counts (JDK 21 to 25: a ForkJoinPool in VirtualThread.DEFAULT_SCHEDULER; the
 * JVM runs with --add-opens java.base/java.lang=ALL-UNNAMED to see it). Queued work beside no active carrier is the
 * shape the issue suspects: runnable virtual threads that no carrier was woken for.
 */
final class Scheduler {
    private static final ForkJoinPool POOL = find();

    private Scheduler() {
    }

    private static ForkJoinPool find() {
        try {
            Field field = Class.forName("java.lang.VirtualThread").getDeclaredField("DEFAULT_SCHEDULER");
            field.setAccessible(true);
            return (ForkJoinPool) field.get(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            System.err.println("the virtual-thread scheduler cannot be read (" + e + "); its counts are left out");
            return null;
        }
    }

    static Map<String, Object> counts() {
        Map<String, Object> counts = new LinkedHashMap<>();
        if (POOL == null) {
            return counts;
        }
        counts.put("parallelism", POOL.getParallelism());
        counts.put("carriers", POOL.getPoolSize());
        counts.put("active", POOL.getActiveThreadCount());
        counts.put("running", POOL.getRunningThreadCount());
        counts.put("queued_submissions", POOL.getQueuedSubmissionCount());
        counts.put("queued_tasks", POOL.getQueuedTaskCount());
        counts.put("steals", POOL.getStealCount());
        return counts;
    }

    /** The pool's own one-line account (what jcmd Thread.vthread_scheduler prints). */
    static String describe() {
        return POOL == null ? "" : POOL.toString();
    }

    /** Runnable work waits in a queue while no carrier is active. */
    static boolean queuedWithNoCarrierActive(Map<String, Object> counts) {
        if (counts.isEmpty()) {
            return false;
        }
        long queued = ((Number) counts.get("queued_submissions")).longValue() + ((Number) counts.get("queued_tasks")).longValue();
        return queued > 0 && ((Number) counts.get("active")).intValue() == 0;
    }
}
