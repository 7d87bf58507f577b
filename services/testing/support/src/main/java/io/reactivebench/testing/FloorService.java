package io.reactivebench.testing;

import static io.restassured.RestAssured.given;

import io.restassured.specification.RequestSpecification;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A v0 service started in the test's JVM on free ports, from the variables the local stack would give it: its API
 * and its management port, each as a RestAssured request. (The Quarkus builds' tests get the same from
 * {@code @QuarkusTest}.)
 */
public record FloorService(int port, int managementPort) {

    /** {@code start} gets the variables (the ports, the build, and {@code variables}) and completes once it listens. */
    public static FloorService start(Map<String, String> variables, Function<Map<String, String>, CompletionStage<?>> start) {
        FloorService service = new FloorService(FreePort.find(), FreePort.find());
        Map<String, String> all = new HashMap<>(variables);
        all.putAll(Map.of("REACTIVE_BENCH_BUILD", "v0", "QUARKUS_HTTP_HOST", "127.0.0.1",
                "QUARKUS_HTTP_PORT", String.valueOf(service.port()), "QUARKUS_MANAGEMENT_HOST", "127.0.0.1",
                "QUARKUS_MANAGEMENT_PORT", String.valueOf(service.managementPort())));
        try {
            start.apply(all).toCompletableFuture().get(120, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("the v0 service did not start", e);
        }
        return service;
    }

    /**
     * The variables of a service's own database, as the local stack gives them: a database and owner of its name,
     * who migrates, and the service's own user, who serves.
     */
    public static Map<String, String> database(String name) {
        Postgres.createDatabase(name);
        String service = Postgres.serviceRole(name);
        return Map.of("QUARKUS_DATASOURCE_JDBC_URL", Postgres.jdbcUrl(name), "QUARKUS_DATASOURCE_REACTIVE_URL",
                Postgres.reactiveUrl(name), "QUARKUS_DATASOURCE_USERNAME", service, "QUARKUS_DATASOURCE_PASSWORD", service,
                "QUARKUS_FLYWAY_USERNAME", name, "QUARKUS_FLYWAY_PASSWORD", name);
    }

    public RequestSpecification api() {
        return given().baseUri("http://127.0.0.1").port(port);
    }

    public RequestSpecification management() {
        return given().baseUri("http://127.0.0.1").port(managementPort);
    }

    /** The sum of the Prometheus samples of a series (its name and labels as the line starts), 0 when there are none. */
    public double metric(String series) {
        return Metrics.sum(management(), series);
    }
}
