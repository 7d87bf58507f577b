package io.reactivebench.jdbc;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * The readiness check of the JDBC builds' database, in place of Quarkus' own (quarkus.datasource.health.enabled=false,
 * this module's configuration): it borrows its connection in the {@link ConnectionQueue}, in turn with the
 * transactions, instead of waiting for one inside Agroal. Quarkus' check waits inside Agroal when the pool is busy,
 * and a connection returned just as it parks stays idle beside it; a transaction arriving then sees a waiter and parks
 * behind it for up to a second (ConnectionQueueInterceptorTest shows both). In the queue nothing waits inside Agroal.
 */
@Readiness
@ApplicationScoped
public class QueuedDataSourceHealthCheck implements HealthCheck {
    private static final int VALID_SECONDS = 3;

    private final ConnectionQueue queue;
    private final AgroalDataSource dataSource;

    @Inject
    public QueuedDataSourceHealthCheck(ConnectionQueue queue, AgroalDataSource dataSource) {
        this.queue = queue;
        this.dataSource = dataSource;
    }

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named("Database connections health check (in the connection queue)");
        try {
            boolean valid = queue.borrowInTurn(() -> {
                try (Connection connection = dataSource.getConnection()) {
                    return connection.isValid(VALID_SECONDS);
                }
            });
            return response.status(valid).withData("default", valid ? "UP" : "not valid").build();
        } catch (Exception e) {
            return response.down().withData("default", "DOWN - " + e.getMessage()).build();
        }
    }
}
