package io.reactivebench.webapi.client;

import io.reactivebench.articles.api.Article;
import io.reactivebench.articles.api.NewArticle;
import io.reactivebench.problem.DownstreamErrors;
import io.reactivebench.webapi.api.DownstreamPolicy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.ClientErrorException;
import jakarta.ws.rs.WebApplicationException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.eclipse.microprofile.faulttolerance.CircuitBreaker;
import org.eclipse.microprofile.faulttolerance.Fallback;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.eclipse.microprofile.faulttolerance.Timeout;
import org.eclipse.microprofile.rest.client.inject.RestClient;

/** Calls articles with a timeout and a circuit breaker; retries reads only. When articles fails: 503. */
@ApplicationScoped
public class ArticlesClient {
    private final ArticlesRestClient client;

    public ArticlesClient(@RestClient ArticlesRestClient client) {
        this.client = client;
    }

    @Timeout(value = DownstreamPolicy.ARTICLES_READ_TIMEOUT_MS, unit = ChronoUnit.MILLIS)
    @Retry(maxRetries = DownstreamPolicy.ARTICLES_READ_RETRIES, delay = 0)
    @CircuitBreaker(requestVolumeThreshold = DownstreamPolicy.BREAKER_WINDOW, failureRatio = DownstreamPolicy.BREAKER_FAILURE_RATIO,
            delay = DownstreamPolicy.BREAKER_DELAY_MS, delayUnit = ChronoUnit.MILLIS)
    @Fallback(fallbackMethod = "newestUnavailable")
    public List<Article> findNewest(int amount) {
        return client.findNewest(amount);
    }

    @Timeout(value = DownstreamPolicy.ARTICLES_WRITE_TIMEOUT_MS, unit = ChronoUnit.MILLIS)
    @CircuitBreaker(requestVolumeThreshold = DownstreamPolicy.BREAKER_WINDOW, failureRatio = DownstreamPolicy.BREAKER_FAILURE_RATIO,
            delay = DownstreamPolicy.BREAKER_DELAY_MS, delayUnit = ChronoUnit.MILLIS,
            skipOn = ClientErrorException.class)
    @Fallback(fallbackMethod = "createUnavailable", skipOn = ClientErrorException.class)
    public Article create(NewArticle article) {
        try {
            return client.create(article);
        } catch (WebApplicationException e) {
            throw DownstreamErrors.isClientError(e) ? DownstreamErrors.passThrough(e) : e;
        }
    }

    List<Article> newestUnavailable(int amount) {
        throw DownstreamErrors.unavailable("articles");
    }

    Article createUnavailable(NewArticle article) {
        throw DownstreamErrors.unavailable("articles");
    }
}
