package io.reactivebench.webapi.client;

import io.reactivebench.articles.api.Article;
import io.reactivebench.articles.api.NewArticle;
import io.reactivebench.problem.DownstreamErrors;
import io.reactivebench.webapi.api.DownstreamGuards;
import io.smallrye.faulttolerance.api.ApplyGuard;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.ClientErrorException;
import jakarta.ws.rs.WebApplicationException;
import java.util.List;
import org.eclipse.microprofile.faulttolerance.Fallback;
import org.eclipse.microprofile.rest.client.inject.RestClient;

/** Calls articles with a timeout and a circuit breaker; retries reads only. When articles fails: 503. */
@ApplicationScoped
public class ArticlesClient {
    private final ArticlesRestClient client;

    public ArticlesClient(@RestClient ArticlesRestClient client) {
        this.client = client;
    }

    @ApplyGuard(DownstreamGuards.ARTICLES_READS)
    @Fallback(fallbackMethod = "newestUnavailable")
    public List<Article> findNewest(int amount) {
        return client.findNewest(amount);
    }

    @ApplyGuard(DownstreamGuards.ARTICLES_WRITES)
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
