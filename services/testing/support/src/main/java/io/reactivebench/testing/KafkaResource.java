package io.reactivebench.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

/** Points a service at a real Kafka broker, started once per JVM. */
public class KafkaResource implements QuarkusTestResourceLifecycleManager {
    private static KafkaBroker broker;

    public static synchronized String bootstrapServers() {
        if (broker == null) {
            try {
                Path directory = Files.createTempDirectory("kafka-broker-");
                KafkaBroker started = new KafkaBroker(directory, FreePort.find()).start();
                // The broker's data goes with this JVM: six suites a make test left six directories behind each.
                // Closed first (its own hook may be closing it too: close() waits for the process either way).
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    started.close();
                    deleteTree(directory);
                }));
                broker = started;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return broker.bootstrapServers();
    }

    /** Stops the broker, as an outage would; {@link #startBroker()} brings it back with its data. */
    public static synchronized void stopBroker() {
        broker.close();
    }

    public static synchronized void startBroker() {
        broker.start();
    }

    private static void deleteTree(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            System.err.println("Could not remove the Kafka broker's directory " + directory + ": " + e);
        }
    }

    @Override
    public Map<String, String> start() {
        return Map.of("kafka.bootstrap.servers", bootstrapServers());
    }

    @Override
    public void stop() {
        // The broker lives as long as the JVM (a shutdown hook stops it): several test classes share it.
    }
}
