package io.reactivebench.floor;

import java.util.Map;

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

    /** As v2's application.properties sets them (quarkus.vertx.event-loops-pool-size), and the chart overrides them. */
    public int eventLoops() {
        return number("QUARKUS_VERTX_EVENT_LOOPS_POOL_SIZE", 2);
    }
}
