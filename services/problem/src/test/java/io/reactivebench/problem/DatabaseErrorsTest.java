package io.reactivebench.problem;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.hibernate.exception.GenericJDBCException;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;

/** The errors both builds saw while PostgreSQL restarted under load (make chaos), and some that must stay 500. */
class DatabaseErrorsTest {
    @Test
    void aRestartingDatabaseIsUnavailableForTheJdbcBuild() {
        SQLException terminated = new SQLException("FATAL: terminating connection due to administrator command", "57P01");
        assertTrue(DatabaseErrors.isUnavailable(new GenericJDBCException("JDBC exception executing SQL", terminated)));
        assertTrue(DatabaseErrors.isUnavailable(new PSQLException("Connection refused", PSQLState.CONNECTION_UNABLE_TO_CONNECT)));
        assertTrue(DatabaseErrors.isUnavailable(new SQLTransientConnectionException(
                "Acquisition timeout while waiting for new connection")));
    }

    @Test
    void aRestartingDatabaseIsUnavailableForTheReactiveBuild() {
        assertTrue(DatabaseErrors.isUnavailable(new RuntimeException(new ConnectException("Connection refused: /127.0.0.1:15432"))));
        assertTrue(DatabaseErrors.isUnavailable(new PgException("the database system is shutting down", "FATAL", "57P03", null)));
        assertTrue(DatabaseErrors.isUnavailable(ClosedConnectionException.INSTANCE));
    }

    @Test
    void aWrongQueryOrAConstraintIsNotAnOutage() {
        assertFalse(DatabaseErrors.isUnavailable(new PSQLException("syntax error", PSQLState.SYNTAX_ERROR)));
        assertFalse(DatabaseErrors.isUnavailable(new PgException("duplicate key value", "ERROR", "23505", null)));
        assertFalse(DatabaseErrors.isUnavailable(new IllegalStateException("boom")));
        assertFalse(DatabaseErrors.isUnavailable(new SQLException("no state")));
    }
}
