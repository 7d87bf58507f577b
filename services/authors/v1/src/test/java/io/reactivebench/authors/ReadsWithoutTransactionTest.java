package io.reactivebench.authors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.quarkus.arc.Arc;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.reactivebench.authors.repository.AuthorRepository;
import io.reactivebench.testing.PostgresResource;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * As the JDBC builds ship (jdbc.reads=autocommit, docs/tuning.md): a read runs without a transaction, and Hibernate
 * gives its connection back before the read returns, while the request's session is still open; so the read gives
 * its place in the connection queue back only after its connection (nothing waits inside Agroal). The profile adds
 * Agroal's metrics, which tell how many connections are out.
 */
@QuarkusTest
@TestProfile(ReadsWithoutTransactionTest.WithPoolMetrics.class)
@WithTestResource(value = PostgresResource.class, initArgs = @ResourceArg(name = "database", value = "authors"))
class ReadsWithoutTransactionTest {
    public static class WithPoolMetrics implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.datasource.metrics.enabled", "true",
                    "quarkus.datasource.jdbc.enable-metrics", "true");
        }
    }

    @Inject
    ReadProbe probe;
    @Inject
    AuthorRepository repository;
    @Inject
    AgroalDataSource dataSource;

    @Test
    void aReadRunsWithoutATransaction() throws SystemException {
        assertEquals(Status.STATUS_NO_TRANSACTION, probe.transactionStatus());
    }

    @Test
    void theMetricSeesAConnectionHeld() throws SQLException {
        try (Connection held = dataSource.getConnection()) {
            assertEquals(1, dataSource.getMetrics().activeCount());
        }
        assertEquals(0, dataSource.getMetrics().activeCount());
    }

    @Test
    void aReadGivesItsConnectionBackBeforeTheRequestEnds() {
        var request = Arc.container().requestContext();
        boolean activated = !request.isActive();
        if (activated) {
            request.activate();
        }
        try {
            assertTrue(repository.findByName("Niklas Heidloff").isPresent());
            assertEquals(0, dataSource.getMetrics().activeCount(), "no connection held after the read, session open");
        } finally {
            if (activated) {
                request.terminate();
            }
        }
    }
}
