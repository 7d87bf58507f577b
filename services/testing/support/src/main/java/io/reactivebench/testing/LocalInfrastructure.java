package io.reactivebench.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * The local stack's infrastructure, for `make up`, `make demo` and `make chaos`: a real PostgreSQL (the
 * databases articles and authors, each with its owner) and a real Kafka broker, on fixed loopback ports,
 * with their data under one directory. Runs until it is stopped (SIGTERM), then stops both.
 *
 * <p>A control port on loopback lets the fault-injection suite stop and start either server while the
 * services run: {@code POST /postgres/stop}, {@code /postgres/start}, {@code /kafka/stop},
 * {@code /kafka/start}. Data survive a restart.
 *
 * <p>The benchmark's SQL parity reads what each build sends: PostgreSQL runs with pg_stat_statements;
 * {@code POST /postgres/statements/reset} empties it, {@code GET /postgres/statements} answers its
 * entries for the services' databases as JSON ({@code database, query, calls, rows}).
 *
 * <p>Arguments: {@code <directory> <postgres port> <kafka port> <control port>}; with the system property
 * {@code postgres.tls} naming a directory of {@code server.crt} and {@code server.key}, PostgreSQL offers TLS.
 */
public final class LocalInfrastructure {
    private final Path postgresData;
    private final int postgresPort;
    private final KafkaBroker kafka;
    private EmbeddedPostgres postgres;
    /** A directory with server.crt and server.key (system property postgres.tls), or null: no TLS offered. */
    private final Path tls = System.getProperty("postgres.tls") == null ? null : Path.of(System.getProperty("postgres.tls"));

    private LocalInfrastructure(Path directory, int postgresPort, int kafkaPort) throws IOException {
        this.postgresData = Files.createDirectories(directory.resolve("postgres"));
        this.postgresPort = postgresPort;
        this.kafka = new KafkaBroker(directory.resolve("kafka"), kafkaPort);
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length != 4) {
            System.err.println("usage: LocalInfrastructure <directory> <postgres port> <kafka port> <control port>");
            System.exit(2);
        }
        LocalInfrastructure infrastructure = new LocalInfrastructure(Path.of(args[0]).toAbsolutePath(),
                Integer.parseInt(args[1]), Integer.parseInt(args[2]));
        infrastructure.startPostgres();
        Postgres.createDatabase(infrastructure.postgres, "articles");
        Postgres.createDatabase(infrastructure.postgres, "authors");
        infrastructure.startKafka();
        HttpServer control = infrastructure.control(Integer.parseInt(args[3]));

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            control.stop(0);
            infrastructure.stopKafka();
            infrastructure.stopPostgres();
            stopped.countDown();
        }));
        System.out.println("infrastructure ready");
        stopped.await();
    }

    private synchronized void startPostgres() throws IOException {
        if (postgres != null) {
            return;
        }
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setPort(postgresPort)
                .setDataDirectory(postgresData)
                .setCleanDataDirectory(false)
                // Room for both builds' pools (2 × 20 per service) and the tests' own connections.
                .setServerConfig("max_connections", "300")
                .setServerConfig("shared_preload_libraries", "pg_stat_statements");
        if (tls != null) {
            // TLS offered, as in the cluster, for the clients that ask for it (sslmode=require); the services
            // ask for none on the local stack unless told to, so that TLS's cost can be measured apart.
            builder.setServerConfig("ssl", "on")
                    .setServerConfig("ssl_cert_file", tls.resolve("server.crt").toString())
                    .setServerConfig("ssl_key_file", tls.resolve("server.key").toString());
        }
        postgres = builder.start();
        try (Connection admin = postgres.getPostgresDatabase().getConnection();
                Statement statement = admin.createStatement()) {
            statement.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
        } catch (SQLException e) {
            throw new IOException("could not create pg_stat_statements", e);
        }
        System.out.println("postgres ready on 127.0.0.1:" + postgresPort);
    }

    private synchronized void stopPostgres() {
        if (postgres == null) {
            return;
        }
        try {
            postgres.close(); // a fast shutdown: sessions are ended, as in a failover or a restart
            System.out.println("postgres stopped");
        } catch (IOException e) {
            System.err.println("could not stop PostgreSQL: " + e.getMessage());
        } finally {
            postgres = null;
        }
    }

    private synchronized void startKafka() {
        kafka.start();
        System.out.println("kafka ready on " + kafka.bootstrapServers());
    }

    private synchronized void stopKafka() {
        kafka.close();
        System.out.println("kafka stopped");
    }

    private HttpServer control(int port) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10);
        server.createContext("/postgres/stop", exchange -> act(exchange, this::stopPostgres));
        server.createContext("/postgres/start", exchange -> act(exchange, this::startPostgres));
        server.createContext("/postgres/statements/reset", exchange -> act(exchange, this::resetStatements));
        server.createContext("/postgres/statements", this::answerStatements);
        server.createContext("/kafka/stop", exchange -> act(exchange, this::stopKafka));
        server.createContext("/kafka/start", exchange -> act(exchange, this::startKafka));
        server.start();
        System.out.println("control ready on 127.0.0.1:" + port);
        return server;
    }

    private synchronized void resetStatements() throws IOException {
        requireRunningPostgres();
        try (Connection admin = postgres.getPostgresDatabase().getConnection();
                Statement statement = admin.createStatement()) {
            statement.execute("SELECT pg_stat_statements_reset()");
        } catch (SQLException e) {
            throw new IOException("could not reset pg_stat_statements: " + e.getMessage(), e);
        }
    }

    private synchronized List<Map<String, Object>> statements() throws IOException {
        requireRunningPostgres();
        List<Map<String, Object>> entries = new ArrayList<>();
        try (Connection admin = postgres.getPostgresDatabase().getConnection();
                Statement statement = admin.createStatement();
                ResultSet found = statement.executeQuery("""
                        SELECT d.datname, s.query, s.calls, s.rows
                        FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
                        WHERE d.datname IN ('articles', 'authors')
                        ORDER BY d.datname, s.calls DESC""")) {
            while (found.next()) {
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("database", found.getString(1));
                entry.put("query", found.getString(2));
                entry.put("calls", found.getLong(3));
                entry.put("rows", found.getLong(4));
                entries.add(entry);
            }
        } catch (SQLException e) {
            throw new IOException("could not read pg_stat_statements: " + e.getMessage(), e);
        }
        return entries;
    }

    private void requireRunningPostgres() throws IOException {
        if (postgres == null) {
            throw new IOException("PostgreSQL is stopped");
        }
    }

    private void answerStatements(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!exchange.getRequestMethod().equals("GET")) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body;
            int status = 200;
            try {
                body = new ObjectMapper().writeValueAsBytes(statements());
                exchange.getResponseHeaders().set("Content-Type", "application/json");
            } catch (IOException e) {
                body = String.valueOf(e.getMessage()).getBytes(StandardCharsets.UTF_8);
                status = 500;
            }
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
        }
    }

    private interface Action {
        void run() throws IOException;
    }

    /** Runs the action and answers once it is done: 204, or 500 with the reason. */
    private static void act(HttpExchange exchange, Action action) throws IOException {
        try (exchange) {
            if (!exchange.getRequestMethod().equals("POST")) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            try {
                action.run();
                exchange.sendResponseHeaders(204, -1);
            } catch (IOException | RuntimeException e) {
                byte[] reason = String.valueOf(e.getMessage()).getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(500, reason.length);
                exchange.getResponseBody().write(reason);
            }
        }
    }
}
