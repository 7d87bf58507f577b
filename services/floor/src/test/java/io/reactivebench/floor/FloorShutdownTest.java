package io.reactivebench.floor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A stopping v0 service does what Quarkus does with a shutdown delay: readiness DOWN at once, requests still
 * answered for the delay, each closing its connection, then closed.
 */
class FloorShutdownTest {

    @Test
    void aStoppingServiceIsNotReadyButStillAnswersForItsDelayThenCloses() throws Exception {
        int api = freePort(), management = freePort();
        FloorSettings settings = new FloorSettings(Map.of("QUARKUS_HTTP_PORT", String.valueOf(api),
                "QUARKUS_MANAGEMENT_PORT", String.valueOf(management), "QUARKUS_SHUTDOWN_DELAY", "2s",
                "QUARKUS_SHUTDOWN_TIMEOUT", "5s", "QUARKUS_VERTX_EVENT_LOOPS_POOL_SIZE", "1"));
        Vertx vertx = Vertx.vertx();
        new FloorServer(vertx, settings, new ServedRequests())
                .start(Map.of("/articles", request -> request.response().end("[]")), Future::succeededFuture)
                .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        // HTTP/1.1, as every caller of the floor speaks it (the kubelet's probes, the load generator, v0's web-api). The
        // HttpClient's default, an h2c upgrade of each new connection, once read a connection's end instead of the
        // answer while the floor stopped (a cold make test at 304d273), and always did on the API once the probes
        // used connections of their own: no caller of the project upgrades, so the floor's HTTP/2 path is not
        // what this test judges.
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        assertEquals(200, status(client, management, "/q/health/ready"));

        long started = System.nanoTime();
        CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> FloorServer.stop(vertx, settings));
        Thread.sleep(300);
        assertEquals(503, status(client, management, "/q/health/ready"));
        assertEquals(200, status(client, api, "/v0/articles"));
        // a keep-alive connection gets its answer, saying Connection: close, and then its end from the server
        try (Socket socket = new Socket("127.0.0.1", api)) {
            socket.setSoTimeout(1000); // read would wait this long, and fail, on a connection kept open
            socket.getOutputStream().write("GET /v0/articles HTTP/1.1\r\nHost: floor\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String answered = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertTrue(answered.startsWith("HTTP/1.1 200") && answered.toLowerCase(Locale.ROOT).contains("connection: close"),
                    answered);
        }
        stopped.get(10, TimeUnit.SECONDS);
        assertTrue(System.nanoTime() - started >= TimeUnit.SECONDS.toNanos(2), "closed before its delay");
        FloorServer.STOPPING.set(false);
    }

    private static int status(HttpClient client, int port, String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
