package io.reactivebench.webapi.client;

import io.reactivebench.articles.api.Article;
import io.reactivebench.articles.api.NewArticle;
import java.util.List;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/** The articles service's API, blocking: the calling thread waits for the answer. */
@Path("/articles")
@RegisterRestClient(configKey = "articles")
public interface ArticlesRestClient {

    @GET
    List<Article> findNewest(@QueryParam("amount") int amount);

    @POST
    Article create(NewArticle article);
}
