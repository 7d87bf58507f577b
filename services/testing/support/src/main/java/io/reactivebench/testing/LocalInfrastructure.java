package io.reactivebench.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * The local stack's infrastructure, for `make up` and `make demo`: a real PostgreSQL (the databases
 * articles and authors, each with its owner) and a real Kafka broker, on fixed loopback ports, with their
 * data under one directory. Runs until it is stopped (SIGTERM), then stops both.
 *
 * <p>Arguments: {@code <directory> <postgres port> <kafka port>}.
 */
public final class LocalInfrastructure {
    private LocalInfrastructure() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length != 3) {
            System.err.println("usage: LocalInfrastructure <directory> <postgres port> <kafka port>");
            System.exit(2);
        }
        Path directory = Path.of(args[0]).toAbsolutePath();
        int postgresPort = Integer.parseInt(args[1]);
        int kafkaPort = Integer.parseInt(args[2]);

        Path postgresData = Files.createDirectories(directory.resolve("postgres"));
        EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                .setPort(postgresPort)
                .setDataDirectory(postgresData)
                .setCleanDataDirectory(false)
                // Room for both builds' pools (2 × 20 per service) and the tests' own connections.
                .setServerConfig("max_connections", "300")
                .start();
        Postgres.createDatabase(postgres, "articles");
        Postgres.createDatabase(postgres, "authors");
        System.out.println("postgres ready on 127.0.0.1:" + postgresPort);

        KafkaBroker kafka = new KafkaBroker(directory.resolve("kafka"), kafkaPort).start();
        System.out.println("kafka ready on " + kafka.bootstrapServers());

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            kafka.close();
            try {
                postgres.close();
            } catch (IOException e) {
                System.err.println("could not stop PostgreSQL: " + e.getMessage());
            }
            stopped.countDown();
        }));
        System.out.println("infrastructure ready");
        stopped.await();
    }
}
