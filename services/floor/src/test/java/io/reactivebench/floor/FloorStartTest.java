package io.reactivebench.floor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A v0 service says that it serves in Quarkus' words: the harness's blocked-thread check (check_blocked.py) tells a
 * service's start-up from its serving by "NAME started in …s. Listening on:".
 */
class FloorStartTest {

    @Test
    void saysItServesAsQuarkusSaysIt() {
        FloorSettings settings = new FloorSettings(Map.of("QUARKUS_HTTP_HOST", "127.0.0.1", "QUARKUS_HTTP_PORT", "8100",
                "QUARKUS_MANAGEMENT_PORT", "9100"));
        assertEquals("articles-v0 started in 1.250s. Listening on: http://127.0.0.1:8100. "
                        + "Management interface listening on http://0.0.0.0:9100.",
                FloorServer.startedLine("articles-v0", TimeUnit.MILLISECONDS.toNanos(1250), settings));
    }
}
