package io.reactivebench.floor;

import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A v0 service's settings, read from the variables the Quarkus builds read (QUARKUS_HTTP_PORT,
 * QUARKUS_DATASOURCE_REACTIVE_URL, …), so that the local stack and the chart configure every build alike.
 */
public record FloorSettings(Map<String, String> variables) {

    public static FloorSettings fromEnvironment() {
        return new FloorSettings(System.getenv());
    }

    public String get(String name, String fallback) {
        String value = variables.get(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    public String required(String name) {
        String value = get(name, null);
        if (value == null) {
            throw new IllegalStateException(name + " is not set");
        }
        return value;
    }

    public int number(String name, int fallback) {
        return Integer.parseInt(get(name, String.valueOf(fallback)));
    }

    /** The build's name, which prefixes every path and names its database schema, as {@code reactive-bench.build} does. */
    public String build() {
        return get("REACTIVE_BENCH_BUILD", "v0");
    }

    public String httpHost() {
        return get("QUARKUS_HTTP_HOST", "0.0.0.0");
    }

    public int httpPort() {
        return number("QUARKUS_HTTP_PORT", 8080);
    }

    public String managementHost() {
        return get("QUARKUS_MANAGEMENT_HOST", "0.0.0.0");
    }

    public int managementPort() {
        return number("QUARKUS_MANAGEMENT_PORT", 9000);
    }

    private static final Pattern SIMPLE_DURATION = Pattern.compile("(\\d+)(ms|s|m)?");

    /**
     * How long a stopping service keeps serving while it reports itself not ready, before it closes: Quarkus'
     * quarkus.shutdown.delay, as the chart sets it for every build (none by default).
     */
    public Duration shutdownDelay() {
        return duration("QUARKUS_SHUTDOWN_DELAY");
    }

    /** How long it then waits for the requests still in flight: quarkus.shutdown.timeout. */
    public Duration shutdownTimeout() {
        return duration("QUARKUS_SHUTDOWN_TIMEOUT");
    }

    /** A duration as Quarkus reads one: a number of seconds, with ms, s or m, or ISO-8601 (PT10S); none: zero. */
    Duration duration(String name) {
        String value = get(name, "0");
        Matcher simple = SIMPLE_DURATION.matcher(value);
        if (!simple.matches()) {
            return Duration.parse(value);
        }
        long amount = Long.parseLong(simple.group(1));
        return switch (simple.group(2) == null ? "s" : simple.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "m" -> Duration.ofMinutes(amount);
            default -> Duration.ofSeconds(amount);
        };
    }

    /** As v2's application.properties sets them (quarkus.vertx.event-loops-pool-size), and the chart overrides them. */
    public int eventLoops() {
        return number("QUARKUS_VERTX_EVENT_LOOPS_POOL_SIZE", 2);
    }
}
