package io.reactivebench.floor;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.SslMode;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.util.Map;
import java.util.function.Function;
import org.flywaydb.core.Flyway;

/** The database of a v0 service: its schema migrated as every build's is at start, and v2's pool. */
public final class FloorDatabase {
    private FloorDatabase() {
    }

    /**
     * Migrates the build's schema from {@code locations} (Flyway over JDBC, off the event loop, as the other builds do
     * at start), then opens the pool.
     */
    static Future<Pool> open(Vertx vertx, FloorSettings settings, String locations) {
        // As the builds' Flyway: the schema's owner migrates (QUARKUS_FLYWAY_*, the datasource's user where not
        // given), and grants the service's user the rows alone (afterMigrate.sql)
        String user = settings.required("QUARKUS_DATASOURCE_USERNAME");
        return vertx.executeBlocking(() -> Flyway.configure()
                        .dataSource(settings.required("QUARKUS_DATASOURCE_JDBC_URL"),
                                settings.get("QUARKUS_FLYWAY_USERNAME", user),
                                settings.get("QUARKUS_FLYWAY_PASSWORD", settings.required("QUARKUS_DATASOURCE_PASSWORD")))
                        .placeholders(Map.of("service_role", user))
                        .schemas(settings.build()).locations(locations).load().migrate())
                .map(migrated -> pool(vertx, settings));
    }

    /**
     * As v2's application.properties configures its pool: five connections, statements prepared once, pipelined;
     * TLS as the variables say that configure v2's: the chart's {@code verify-ca} against the one CA certificate it
     * names (PostgreSQL's, made by the platform chart), for the operator's PostgreSQL, which refuses anything but TLS;
     * off unless told, Quarkus' default.
     */
    private static Pool pool(Vertx vertx, FloorSettings settings) {
        PgConnectOptions connection = PgConnectOptions.fromUri(settings.required("QUARKUS_DATASOURCE_REACTIVE_URL"))
                .setUser(settings.required("QUARKUS_DATASOURCE_USERNAME"))
                .setPassword(settings.required("QUARKUS_DATASOURCE_PASSWORD"))
                .setCachePreparedStatements(true).setPipeliningLimit(256)
                .setSslMode(SslMode.of(settings.get("QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE", "disable")))
                .setTrustAll(Boolean.parseBoolean(settings.get("QUARKUS_DATASOURCE_REACTIVE_TRUST_ALL", "false")))
                // Quarkus' NONE (its default) is Vert.x's empty name: no check of the server's name
                .setHostnameVerificationAlgorithm(settings.get("QUARKUS_DATASOURCE_REACTIVE_HOSTNAME_VERIFICATION_ALGORITHM", "NONE")
                        .replace("NONE", ""))
                .addProperty("search_path", settings.build());
        if (Boolean.parseBoolean(settings.get("QUARKUS_DATASOURCE_REACTIVE_TRUST_CERTIFICATE_PEM", "false"))) {
            PemTrustOptions trusted = new PemTrustOptions();
            for (String path : settings.required("QUARKUS_DATASOURCE_REACTIVE_TRUST_CERTIFICATE_PEM_CERTS").split(",")) {
                trusted.addCertPath(path.trim());
            }
            connection.setTrustOptions(trusted);
        }
        return PgBuilder.pool().with(new PoolOptions().setMaxSize(settings.number("QUARKUS_DATASOURCE_REACTIVE_MAX_SIZE", 5)))
                .connectingTo(connection).using(vertx).build();
    }

    /**
     * A database-backed v0 service: its schema migrated from {@code locations}, then {@code route} served by the
     * handler {@code handler} makes of the pool, ready while the database answers; completes once it listens.
     */
    public static Future<Void> serve(Vertx vertx, FloorSettings settings, String locations, String route,
            Function<Pool, Handler<HttpServerRequest>> handler) {
        return open(vertx, settings, locations).compose(database -> new FloorServer(vertx, settings, new ServedRequests())
                .start(Map.of(route, handler.apply(database)), () -> database.query("SELECT 1").execute()));
    }
}
