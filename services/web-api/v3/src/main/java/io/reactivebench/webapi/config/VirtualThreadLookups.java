package io.reactivebench.webapi.config;

import io.reactivebench.webapi.service.ArticleViewService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Named;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * v3's author look-ups: each on a virtual thread of its own, started for it and gone when it is done, so there is
 * no pool of threads to size (v1 has AuthorLookupExecutor). What does need a bound is the resource behind them:
 * the REST client's connections to authors. A look-up waits for one of as many permits as there are connections
 * before it calls, parked, holding no carrier, and outside the call's time-out, as v1's look-ups wait in their
 * executor's queue; without it, every look-up of a burst would wait inside its 1 s time-out for a connection.
 */
@ApplicationScoped
public class VirtualThreadLookups {
    private static final Logger LOG = Logger.getLogger(VirtualThreadLookups.class);

    @Produces
    @ApplicationScoped
    @Named(ArticleViewService.AUTHOR_LOOKUPS)
    Executor authorLookups(@ConfigProperty(name = "quarkus.rest-client.authors.connection-pool-size") int connections) {
        LOG.infof("Author look-ups run on virtual threads, at most %d at once (the authors client's connections)", connections);
        Semaphore permits = new Semaphore(connections);
        ThreadFactory threads = Thread.ofVirtual().name(ArticleViewService.AUTHOR_LOOKUPS + "-", 1).factory();
        return lookup -> threads.newThread(() -> {
            permits.acquireUninterruptibly();
            try {
                lookup.run();
            } finally {
                permits.release();
            }
        }).start();
    }
}
