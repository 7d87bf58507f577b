package io.reactivebench.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/** Points a service at its own database on the real embedded PostgreSQL. Init arg {@code database}. */
public class PostgresResource implements QuarkusTestResourceLifecycleManager {
    private String database;

    @Override
    public void init(Map<String, String> initArgs) {
        database = initArgs.getOrDefault("database", "app");
    }

    @Override
    public Map<String, String> start() {
        Postgres.createDatabase(database);
        // Flyway as the owner, the service as its own user: a read or write the migrations did not grant fails here
        String service = Postgres.serviceRole(database);
        return Map.of(
                "quarkus.datasource.jdbc.url", Postgres.jdbcUrl(database),
                "quarkus.datasource.reactive.url", Postgres.reactiveUrl(database),
                "quarkus.datasource.username", service,
                "quarkus.datasource.password", service,
                "quarkus.flyway.username", database,
                "quarkus.flyway.password", database);
    }

    @Override
    public void stop() {
        // The server lives as long as the JVM: several test classes share it.
    }
}
