package io.reactivebench.floor;

import java.lang.management.ManagementFactory;
import java.lang.management.RuntimeMXBean;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a v0 service counts of itself, in the Prometheus text the harness reads of every build: each route's answers
 * by method and status, with the seconds spent on them (the series names of Quarkus' HTTP server timer, routes
 * without the build's prefix), named counters, and the JVM's start and uptime as Micrometer's process metrics name
 * them (a Quarkus build's /q/metrics has them too: the harness tells one start of a service from the next by them).
 */
public final class ServedRequests {
    private record Series(LongAdder count, DoubleAdder seconds) {
    }

    private final Map<String, Series> served = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> counters = new ConcurrentHashMap<>();

    public void record(String method, String route, int status, long nanos) {
        Series series = served.computeIfAbsent(
                "method=\"" + method + "\",status=\"" + status + "\",uri=\"" + route + "\"",
                labels -> new Series(new LongAdder(), new DoubleAdder()));
        series.count().increment();
        series.seconds().add(nanos / 1e9);
    }

    /** A counter that the metrics show as {@code name}, 0 until it is first incremented. */
    public LongAdder counter(String name) {
        return counters.computeIfAbsent(name, n -> new LongAdder());
    }

    public String prometheus() {
        StringBuilder text = new StringBuilder("# TYPE http_server_requests_seconds summary\n");
        new TreeMap<>(served).forEach((labels, series) -> {
            text.append("http_server_requests_seconds_count{").append(labels).append("} ").append(series.count().sum()).append('\n');
            text.append("http_server_requests_seconds_sum{").append(labels).append("} ").append(series.seconds().sum()).append('\n');
        });
        new TreeMap<>(counters).forEach((name, count) ->
                text.append("# TYPE ").append(name).append(" counter\n").append(name).append(' ').append(count.sum()).append('\n'));
        RuntimeMXBean runtime = ManagementFactory.getRuntimeMXBean();
        text.append("# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds ")
                .append(runtime.getStartTime() / 1e3).append('\n');
        text.append("# TYPE process_uptime_seconds gauge\nprocess_uptime_seconds ").append(runtime.getUptime() / 1e3).append('\n');
        return text.toString();
    }
}
