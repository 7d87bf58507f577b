package io.reactivebench.webapi.config;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Named;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.context.ManagedExecutor;
import org.eclipse.microprofile.context.ThreadContext;
import org.jboss.logging.Logger;

/**
 * The bounded executor on which v1 runs its author look-ups in parallel: each look-up holds one of its
 * threads while it waits. At most {@code web-api.author-lookups.max-concurrency} run at once; the rest
 * queue. The queue needs no bound of its own: worker threads bound the requests in flight, and each
 * request queues at most ten look-ups.
 */
@ApplicationScoped
public class AuthorLookupExecutor {
    public static final String NAME = "author-lookups";
    private static final Logger LOG = Logger.getLogger(AuthorLookupExecutor.class);

    @Produces
    @ApplicationScoped
    @Named(NAME)
    ManagedExecutor authorLookups(@ConfigProperty(name = "web-api.author-lookups.max-concurrency") int maxConcurrency) {
        LOG.infof("Author look-ups run on up to %d threads", maxConcurrency);
        return ManagedExecutor.builder()
                .maxAsync(maxConcurrency)
                .maxQueued(-1)
                .propagated(ThreadContext.NONE)
                .cleared(ThreadContext.ALL_REMAINING)
                .build();
    }

    void shutdown(@Disposes @Named(NAME) ManagedExecutor executor) {
        executor.shutdown();
    }
}
