package io.reactivebench.webapi.config;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import io.reactivebench.webapi.service.ArticleViewService;
import jakarta.inject.Named;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The bounded executor on which v1 runs its author look-ups in parallel: each look-up holds one of its
 * threads while it waits. At most {@code web-api.author-lookups.max-concurrency} run at once; the rest
 * queue (at most ten per admitted request, and the edge bounds the requests in flight).
 *
 * <p>Its threads are its own. A ManagedExecutor from {@code ManagedExecutor.builder()} would run the
 * look-ups on Quarkus' worker pool, the pool whose threads wait for them: with every worker thread
 * holding a request that waits for look-ups queued behind it, nothing moves again under overload.
 */
@ApplicationScoped
public class AuthorLookupExecutor {
    private static final Logger LOG = Logger.getLogger(AuthorLookupExecutor.class);

    @Produces
    @ApplicationScoped
    @Named(ArticleViewService.AUTHOR_LOOKUPS)
    ExecutorService authorLookups(@ConfigProperty(name = "web-api.author-lookups.max-concurrency") int maxConcurrency) {
        LOG.infof("Author look-ups run on up to %d threads of their own", maxConcurrency);
        AtomicInteger created = new AtomicInteger();
        ThreadFactory threads = task -> {
            Thread thread = new Thread(task, ArticleViewService.AUTHOR_LOOKUPS + "-" + created.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        ThreadPoolExecutor executor = new ThreadPoolExecutor(maxConcurrency, maxConcurrency, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), threads);
        executor.allowCoreThreadTimeOut(true); // idle, it holds no threads
        return executor;
    }

    void shutdown(@Disposes @Named(ArticleViewService.AUTHOR_LOOKUPS) ExecutorService executor) {
        executor.shutdown();
    }
}
