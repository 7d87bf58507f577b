package io.reactivebench.webapi.client;

import io.reactivebench.articles.api.Article;
import io.reactivebench.articles.api.NewArticle;
import io.reactivebench.problem.DownstreamErrors;
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

    @Timeout(value = 1500, unit = ChronoUnit.MILLIS)
    @Retry(maxRetries = 1, delay = 0)
    @CircuitBreaker(requestVolumeThreshold = 20, failureRatio = 0.5, delay = 5, delayUnit = ChronoUnit.SECONDS)
    @Fallback(fallbackMethod = "newestUnavailable")
    public List<Article> findNewest(int amount) {
        return client.findNewest(amount);
    }

    @Timeout(value = 3, unit = ChronoUnit.SECONDS)
    @CircuitBreaker(requestVolumeThreshold = 20, failureRatio = 0.5, delay = 5, delayUnit = ChronoUnit.SECONDS,
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
