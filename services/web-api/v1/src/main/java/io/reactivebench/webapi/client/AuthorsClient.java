package io.reactivebench.webapi.client;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.reactivebench.authors.api.Author;
import io.reactivebench.problem.DownstreamErrors;
import io.reactivebench.webapi.api.DownstreamPolicy;
import io.vertx.core.http.HttpClosedException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;
import java.io.IOException;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import org.eclipse.microprofile.faulttolerance.CircuitBreaker;
import org.eclipse.microprofile.faulttolerance.Fallback;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.faulttolerance.Timeout;
import org.eclipse.microprofile.rest.client.inject.RestClient;

/**
 * Looks up an author with a timeout, a circuit breaker, and one more try when the connection failed.
 * An unknown author is empty; a failed look-up is empty too, and counted
 * (webapi_author_lookup_fallbacks_total), since the answer is then degraded.
 */
@ApplicationScoped
public class AuthorsClient {
    private final AuthorsRestClient client;
    private final Counter fallbacks;

    public AuthorsClient(@RestClient AuthorsRestClient client, MeterRegistry registry) {
        this.client = client;
        this.fallbacks = registry.counter("webapi.author.lookup.fallbacks");
    }

    @Timeout(value = DownstreamPolicy.AUTHORS_TIMEOUT_MS, unit = ChronoUnit.MILLIS)
    @Retry(maxRetries = DownstreamPolicy.AUTHORS_RETRIES_ON_CONNECTION_FAILURE, delay = 0,
            retryOn = {ProcessingException.class, HttpClosedException.class, IOException.class})
    @CircuitBreaker(requestVolumeThreshold = DownstreamPolicy.BREAKER_WINDOW, failureRatio = DownstreamPolicy.BREAKER_FAILURE_RATIO,
            delay = DownstreamPolicy.BREAKER_DELAY_MS, delayUnit = ChronoUnit.MILLIS)
    @Fallback(fallbackMethod = "lookupFailed")
    public Optional<Author> findByName(String name) {
        try {
            return Optional.of(client.findByName(name));
        } catch (WebApplicationException e) {
            if (DownstreamErrors.isNotFound(e)) {
                return Optional.empty();
            }
            throw e;
        }
    }

    Optional<Author> lookupFailed(String name) {
        fallbacks.increment();
        return Optional.empty();
    }
}
