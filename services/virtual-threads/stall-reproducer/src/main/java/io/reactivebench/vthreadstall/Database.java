package io.reactivebench.vthreadstall;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/** A real PostgreSQL (the zonky binaries, as the contract suites use) with the authors table and its five rows. */
final class Database implements AutoCloseable {
    static final String USER = "authors";
    static final String PASSWORD = "authors";
    static final String LOOK_UP = "SELECT id, name, twitter, blog, bio FROM authors WHERE name = ?";
    static final String[] NAMES = {"Niklas Heidloff", "Harald Uebele", "Thomas Suedbroecker", "Adam de Leeuw", "Ana Gomez"};

    private final EmbeddedPostgres server;

    Database() throws IOException, SQLException {
        server = EmbeddedPostgres.builder().start();
        try (Connection admin = server.getPostgresDatabase().getConnection(); Statement statement = admin.createStatement()) {
            statement.execute("CREATE ROLE " + USER + " LOGIN PASSWORD '" + PASSWORD + "'");  // constants, no input
            statement.execute("CREATE DATABASE authors OWNER " + USER);
        }
        try (Connection owner = DriverManager.getConnection(url(), USER, PASSWORD);
                Statement statement = owner.createStatement();
                PreparedStatement insert = owner.prepareStatement(
                        "INSERT INTO authors (name, twitter, blog, bio) VALUES (?, '@x', 'https://example.org', 'writes')")) {
            statement.execute("CREATE TABLE authors (id bigserial PRIMARY KEY, name text UNIQUE NOT NULL, twitter text, blog text, bio text)");
            for (String name : NAMES) {
                insert.setString(1, name);
                insert.executeUpdate();
            }
        }
    }

    String url() {
        return "jdbc:postgresql://localhost:" + server.getPort() + "/authors";
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
