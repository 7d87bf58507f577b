package io.reactivebench.edge;

import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/** The limits at the HTTP edge of a build (application.properties, prefix {@code edge}). */
@ConfigMapping(prefix = "edge")
public interface EdgeConfig {
    /**
     * API requests in flight above which new ones are turned away with 503 at once, instead of queueing
     * behind the others: under overload the accepted requests keep a bounded latency (Little's law: at most
     * this many ahead of each) and the memory of the waiting ones stays bounded. Health, metrics and
     * streams do not count.
     */
    @WithDefault("200")
    int maxInFlight();

    /**
     * The largest request body, checked on its Content-Length before it is read. A chunked body has no
     * length up front; quarkus.http.limits.max-body-size (set to the same value) stops it while it arrives.
     */
    @WithDefault("16K")
    MemorySize maxBodySize();

    /** What this instance asks of itself before it reports ready (WarmUp). */
    WarmUp warmUp();

    interface WarmUp {
        /** The request, e.g. {@code /v1/authors?name=...}: each service's own, in its config module. */
        Optional<String> path();

        /** How many; 0 (the default, in tests and local runs) reports ready without any. */
        @WithDefault("0")
        int requests();

        /** How many at once: enough that the first connections, threads and pooled sessions exist too. */
        @WithDefault("4")
        int concurrency();

        /** Ready after this long even if not all were answered (a slow machine is no reason to stay out). */
        @WithDefault("60s")
        Duration limit();
    }
}
