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
 * A real PostgreSQL server (the zonky embedded binaries) started once per JVM, with one database, its owner and a
 * user of the service's own per service, the way the postgres-operator creates them on Kubernetes.
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

    /**
     * Creates the database {@code name} owned by a user of the same name and password, and the service's own user
     * ({@link #serviceRole}, its name its password), each unless it exists: the owner migrates, the service runs as
     * the other, granted the rows alone by the migrations (as on Kubernetes, where the operator makes both).
     */
    public static synchronized String createDatabase(String name) {
        return createDatabase(server(), name);
    }

    /** The same, on a server started elsewhere (the local stack's). */
    public static String createDatabase(EmbeddedPostgres on, String name) {
        try (Connection admin = on.getPostgresDatabase().getConnection();
                PreparedStatement role = admin.prepareStatement("SELECT 1 FROM pg_roles WHERE rolname = ?");
                PreparedStatement database = admin.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?");
                // DDL takes no bind parameters: PostgreSQL itself quotes the names (%I) and passwords (%L).
                PreparedStatement createRole = admin.prepareStatement("SELECT format('CREATE ROLE %I LOGIN PASSWORD %L', ?, ?)");
                PreparedStatement createDatabase = admin.prepareStatement("SELECT format('CREATE DATABASE %I OWNER %I', ?, ?)");
                Statement statement = admin.createStatement()) {
            for (String user : new String[] {identifier(name), serviceRole(name)}) {
                if (!answers(role, user)) {
                    statement.execute(answer(createRole, user, user));
                }
            }
            if (!answers(database, name)) {
                statement.execute(answer(createDatabase, name, name));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not create database " + name, e);
        }
        return name;
    }

    /** The user a service of database {@code name} runs as (its password the same): not the schema's owner. */
    public static String serviceRole(String database) {
        return identifier(database) + "_app";
    }

    /** Whether {@code query}, given {@code parameters}, returns a row. */
    private static boolean answers(PreparedStatement query, String... parameters) throws SQLException {
        for (int parameter = 1; parameter <= parameters.length; parameter++) {
            query.setString(parameter, parameters[parameter - 1]);
        }
        return query.executeQuery().next();
    }

    /** The one value {@code query} returns, given {@code parameters}. */
    private static String answer(PreparedStatement query, String... parameters) throws SQLException {
        if (!answers(query, parameters)) {
            throw new SQLException("no answer to " + query);
        }
        return query.getResultSet().getString(1);
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
