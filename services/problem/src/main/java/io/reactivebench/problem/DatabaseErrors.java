package io.reactivebench.problem;

import java.net.ConnectException;
import java.sql.SQLException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Tells a database that is down or restarting from a real error, for both database clients (JDBC with
 * Agroal in v1, the Vert.x reactive client in v2), so that callers get 503 + Retry-After, not 500.
 */
public final class DatabaseErrors {
    /** The Vert.x client's PgException ends its message with the SQLSTATE: "… shutting down (57P03)". */
    private static final Pattern TRAILING_SQL_STATE = Pattern.compile("\\((\\w{5})\\)$");

    private DatabaseErrors() {
    }

    public static boolean isUnavailable(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof ConnectException) {
                return true; // refused: nothing listens on the database's port
            }
            if (cause instanceof SQLException sql
                    && (unavailableState(sql.getSQLState()) || String.valueOf(sql.getMessage()).contains("Acquisition timeout"))) {
                return true; // Agroal gave up waiting for a connection
            }
            String type = cause.getClass().getSimpleName();
            if (type.equals("ClosedConnectionException")) {
                return true; // the Vert.x client's connection was closed by the server
            }
            if (type.equals("PgException")) {
                Matcher state = TRAILING_SQL_STATE.matcher(String.valueOf(cause.getMessage()));
                return state.find() && unavailableState(state.group(1));
            }
        }
        return false;
    }

    /** SQLSTATE class 08 (connection exception), 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now. */
    private static boolean unavailableState(String state) {
        return state != null && (state.startsWith("08") || state.startsWith("57P0"));
    }
}
