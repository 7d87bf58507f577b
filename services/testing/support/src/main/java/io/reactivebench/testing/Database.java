package io.reactivebench.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/** Reads the service's own database directly, to check what was (not) stored and how it is queried. */
public final class Database {
    private Database() {
    }

    public static long articleCount() {
        return firstRow("SELECT count(*) FROM articles", result -> result.getLong(1));
    }

    /** Runs test-owned SQL (fixtures, ANALYZE); never built from user input. */
    public static void execute(String sql) {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("could not run: " + sql, e);
        }
    }

    /** PostgreSQL's plan, as text, for an {@code EXPLAIN …} statement. */
    public static String plan(String explain) {
        return firstRow(explain, result -> {
            StringBuilder plan = new StringBuilder(result.getString(1));
            while (result.next()) {
                plan.append('\n').append(result.getString(1));
            }
            return plan.toString();
        });
    }

    private interface Reader<T> {
        T read(ResultSet firstRow) throws SQLException;
    }

    private static <T> T firstRow(String sql, Reader<T> reader) {
        try (Connection connection = connect();
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return reader.read(result);
        } catch (SQLException e) {
            throw new IllegalStateException("could not run: " + sql, e);
        }
    }

    private static Connection connect() throws SQLException {
        Config config = ConfigProvider.getConfig();
        return DriverManager.getConnection(
                config.getValue("quarkus.datasource.jdbc.url", String.class),
                config.getValue("quarkus.datasource.username", String.class),
                config.getValue("quarkus.datasource.password", String.class));
    }
}
