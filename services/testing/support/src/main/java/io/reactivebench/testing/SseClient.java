package io.reactivebench.testing;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** A real server-sent-events client: connects, and collects the {@code data:} lines it receives. */
public final class SseClient implements AutoCloseable {
    private final BlockingQueue<String> data = new LinkedBlockingQueue<>();
    private final CompletableFuture<HttpResponse<Void>> connection;
    private final HttpClient client = HttpClient.newHttpClient();

    public SseClient(String url) {
        this(url, null);
    }

    /** A client that reconnects: it sends the id of the last event it received (null: none). */
    public SseClient(String url, Long lastEventId) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(url)).header("Accept", "text/event-stream");
        if (lastEventId != null) {
            builder.header("Last-Event-ID", lastEventId.toString());
        }
        HttpRequest request = builder.GET().build();
        connection = client.sendAsync(request, HttpResponse.BodyHandlers.fromLineSubscriber(
                new LineCollector(line -> {
                    if (line.startsWith("data:")) {
                        data.add(line.substring("data:".length()).strip());
                    }
                })));
    }

    /** The first data line that matches, waiting at most {@code timeout}. */
    public Optional<String> await(Predicate<String> match, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (long left = timeout.toNanos(); left > 0; left = deadline - System.nanoTime()) {
            String line = data.poll(left, TimeUnit.NANOSECONDS);
            if (line != null && match.test(line)) {
                return Optional.of(line);
            }
        }
        return Optional.empty();
    }

    @Override
    public void close() {
        connection.cancel(true);
        client.shutdownNow();
    }

    private record LineCollector(java.util.function.Consumer<String> onLine)
            implements java.util.concurrent.Flow.Subscriber<String> {
        @Override
        public void onSubscribe(java.util.concurrent.Flow.Subscription subscription) {
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(String line) {
            onLine.accept(line);
        }

        @Override
        public void onError(Throwable error) {
        }

        @Override
        public void onComplete() {
        }
    }
}
