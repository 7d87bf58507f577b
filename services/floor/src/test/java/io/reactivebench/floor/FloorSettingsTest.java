package io.reactivebench.floor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The floor reads the shutdown delay and timeout as Quarkus does, from the variables the chart sets for every build. */
class FloorSettingsTest {

    @Test
    void readsTheShutdownDelayAndTimeoutAsQuarkusWritesThem() {
        FloorSettings settings = new FloorSettings(Map.of("QUARKUS_SHUTDOWN_DELAY", "10s", "QUARKUS_SHUTDOWN_TIMEOUT", "PT20S"));
        assertEquals(Duration.ofSeconds(10), settings.shutdownDelay());
        assertEquals(Duration.ofSeconds(20), settings.shutdownTimeout());
        assertEquals(Duration.ofMillis(500), new FloorSettings(Map.of("QUARKUS_SHUTDOWN_DELAY", "500ms")).shutdownDelay());
        assertEquals(Duration.ofSeconds(3), new FloorSettings(Map.of("QUARKUS_SHUTDOWN_DELAY", "3")).shutdownDelay());
    }

    @Test
    void withoutTheVariablesItStopsAtOnce() {
        FloorSettings settings = new FloorSettings(Map.of());
        assertEquals(Duration.ZERO, settings.shutdownDelay());
        assertEquals(Duration.ZERO, settings.shutdownTimeout());
    }
}
