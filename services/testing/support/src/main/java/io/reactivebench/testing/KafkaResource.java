package io.reactivebench.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.Map;

/** Points a service at a real Kafka broker, started once per JVM. */
public class KafkaResource implements QuarkusTestResourceLifecycleManager {
    private static KafkaBroker broker;

    public static synchronized String bootstrapServers() {
        if (broker == null) {
            try {
                broker = new KafkaBroker(Files.createTempDirectory("kafka-broker-"), FreePort.find()).start();
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

    @Override
    public Map<String, String> start() {
        return Map.of("kafka.bootstrap.servers", bootstrapServers());
    }

    @Override
    public void stop() {
        // The broker lives as long as the JVM (a shutdown hook stops it): several test classes share it.
    }
}
