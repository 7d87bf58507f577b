package io.reactivebench.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A real Kafka broker in KRaft combined mode (broker and controller in one process), run in its own JVM
 * from the jars that testing/kafka-broker copied. Its own JVM, because the broker needs kafka-clients of
 * its own version, not the one Quarkus brings.
 */
public final class KafkaBroker implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final Path directory;
    private final int port;
    private Process process;
    private boolean shutdownHookAdded;

    public KafkaBroker(Path directory, int port) {
        this.directory = directory;
        this.port = port;
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    public KafkaBroker start() {
        if (isRunning()) {
            return this;
        }
        try {
            Path config = writeConfig();
            run("kafka.tools.StorageTool", "format", "--ignore-formatted", "-t", clusterId(), "-c", config.toString())
                    .waitFor(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            process = run("kafka.Kafka", config.toString());
            // For the local stack's `down`, should this JVM die without running its shutdown hook.
            Files.writeString(directory.resolve("broker.pid"), Long.toString(process.pid()));
            if (!shutdownHookAdded) {
                Runtime.getRuntime().addShutdownHook(new Thread(this::close));
                shutdownHookAdded = true;
            }
            awaitPort();
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the Kafka broker in " + directory, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // Kept once written: a restarted broker listens where it did and finds its own data.
    private Path writeConfig() throws IOException {
        Files.createDirectories(directory);
        Path config = directory.resolve("server.properties");
        if (Files.exists(config)) {
            return config;
        }
        int controllerPort = FreePort.find();
        Files.write(config, List.of(
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                "controller.listener.names=CONTROLLER",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "log.dirs=" + directory.resolve("data"),
                "num.partitions=1",
                "auto.create.topics.enable=true",
                "offsets.topic.replication.factor=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "share.coordinator.state.topic.replication.factor=1",
                "group.initial.rebalance.delay.ms=0"));
        return config;
    }

    // Kept in the directory, so that a restarted broker finds its own data again.
    private String clusterId() throws IOException {
        Path file = directory.resolve("cluster.id");
        if (!Files.exists(file)) {
            Files.writeString(file, UUID.randomUUID().toString().replace("-", "").substring(0, 22));
        }
        return Files.readString(file).trim();
    }

    private Process run(String mainClass, String... args) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new java.util.ArrayList<>(List.of(java, "-Xms256m", "-Xmx512m",
                "-cp", libDirectory() + File.separator + "*", mainClass));
        command.addAll(List.of(args));
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("broker.log").toFile()))
                .start();
    }

    private static Path libDirectory() {
        Path lib = Path.of(System.getProperty("kafka.broker.lib", "testing/kafka-broker/target/lib"));
        if (!Files.isDirectory(lib)) {
            throw new IllegalStateException("No Kafka broker jars in " + lib.toAbsolutePath()
                    + ": build services/testing/kafka-broker first (./mvnw -pl testing/kafka-broker package)");
        }
        return lib;
    }

    private void awaitPort() throws InterruptedException {
        Instant deadline = Instant.now().plus(START_TIMEOUT);
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("The Kafka broker exited with " + process.exitValue()
                        + "; see " + directory.resolve("broker.log"));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (IOException notYet) {
                Thread.sleep(200);
            }
        }
        throw new IllegalStateException("The Kafka broker did not open port " + port + " within " + START_TIMEOUT);
    }
}
