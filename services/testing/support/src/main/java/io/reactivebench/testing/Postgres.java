package io.reactivebench.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A real PostgreSQL server (the zonky embedded binaries) started once per JVM, with one database and
 * owner per service, the way the postgres-operator creates them on Kubernetes.
 */
public final class Postgres {
    private static EmbeddedPostgres server;

    private Postgres() {
    }

    public static synchronized EmbeddedPostgres server() {
        if (server == null) {
            try {
                server = EmbeddedPostgres.builder().setPort(FreePort.find()).start();
            } catch (IOException e) {
                throw new UncheckedIOException("could not start the embedded PostgreSQL server", e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(Postgres::stop));
        }
        return server;
    }

    /** Creates the database {@code name} owned by a user of the same name and password, unless it exists. */
    public static synchronized String createDatabase(String name) {
        return createDatabase(server(), name);
    }

    /** The same, on a server started elsewhere (the local stack's). */
    public static String createDatabase(EmbeddedPostgres on, String name) {
        try (Connection admin = on.getPostgresDatabase().getConnection();
                PreparedStatement lookup = admin.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?");
                // DDL takes no bind parameters: PostgreSQL itself quotes the name (%I) and password (%L).
                PreparedStatement quote = admin.prepareStatement(
                        "SELECT format('CREATE ROLE %I LOGIN PASSWORD %L', ?, ?), format('CREATE DATABASE %I OWNER %I', ?, ?)");
                Statement statement = admin.createStatement()) {
            lookup.setString(1, identifier(name));
            ResultSet existing = lookup.executeQuery();
            if (!existing.next()) {
                for (int parameter = 1; parameter <= 4; parameter++) {
                    quote.setString(parameter, name);
                }
                ResultSet ddl = quote.executeQuery();
                ddl.next();
                statement.execute(ddl.getString(1));
                statement.execute(ddl.getString(2));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not create database " + name, e);
        }
        return name;
    }

    public static String jdbcUrl(String database) {
        return "jdbc:postgresql://localhost:" + server().getPort() + "/" + database;
    }

    public static String reactiveUrl(String database) {
        return "postgresql://localhost:" + server().getPort() + "/" + database;
    }

    public static synchronized void stop() {
        if (server != null) {
            try {
                server.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                server = null;
            }
        }
    }

    /** Names come from test code, never from users; still, only plain identifiers pass. */
    static String identifier(String name) {
        if (!name.matches("[a-z_][a-z0-9_]*")) {
            throw new IllegalArgumentException("not a plain identifier: " + name);
        }
        return name;
    }
}
