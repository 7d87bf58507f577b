package io.reactivebench.edge;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;

/**
 * Ready only once this instance has answered its own warm-up requests. A JVM that has served nothing yet loads
 * classes and runs interpreted code on its first requests; on Kubernetes, the pod that a rolling update or a
 * replaced pod puts into its Service gets a full share of the load at once, and behind web-api's 1 s look-up
 * time-out a cold authors answered slowly enough to open the circuit (make chaos-cluster measured it). The same
 * requests for every build, before any load is measured: the work compared stays equal.
 */
@Readiness
@ApplicationScoped
public class WarmUp implements HealthCheck {
    private static final Logger LOG = Logger.getLogger(WarmUp.class);

    private final EdgeConfig.WarmUp config;
    private final int port;
    private final AtomicInteger answered = new AtomicInteger();
    private volatile boolean done;

    public WarmUp(EdgeConfig edge, @ConfigProperty(name = "quarkus.http.port") int port) {
        this.config = edge.warmUp();
        this.port = port;
    }

    void start(@Observes StartupEvent event) {
        if (config.requests() <= 0 || config.path().isEmpty()) {
            done = true;
            return;
        }
        Thread.ofPlatform().daemon().name("warm-up").start(this::warmUp);
    }

    private void warmUp() {
        long start = System.nanoTime();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + config.path().get()))
                .timeout(Duration.ofSeconds(10)).build();
        AtomicInteger left = new AtomicInteger(config.requests());
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                ExecutorService senders = Executors.newFixedThreadPool(config.concurrency())) {
            for (int sender = 0; sender < config.concurrency(); sender++) {
                senders.execute(() -> {
                    while (left.getAndDecrement() > 0 && !Thread.currentThread().isInterrupted()) {
                        send(client, request);
                    }
                });
            }
            senders.shutdown();
            if (!senders.awaitTermination(config.limit().toMillis(), TimeUnit.MILLISECONDS)) {
                senders.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            done = true;
            LOG.infof("Warmed up: %d of %d requests to %s answered 200 in %d ms", answered.get(), config.requests(),
                    config.path().get(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        }
    }

    private void send(HttpClient client, HttpRequest request) {
        try {
            if (client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                answered.incrementAndGet();
            }
        } catch (IOException e) {
            // counted as not answered; the next one is sent all the same
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("warm-up").status(done).withData("answered", answered.get()).build();
    }
}
