package io.reactivebench.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/** Reads the service's own database directly, to check what was (not) stored. */
public final class Database {
    private Database() {
    }

    public static long count(String table) {
        Config config = ConfigProvider.getConfig();
        try (Connection connection = DriverManager.getConnection(
                config.getValue("quarkus.datasource.jdbc.url", String.class),
                config.getValue("quarkus.datasource.username", String.class),
                config.getValue("quarkus.datasource.password", String.class));
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT count(*) FROM " + Postgres.identifier(table))) {
            result.next();
            return result.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("could not count " + table, e);
        }
    }
}
