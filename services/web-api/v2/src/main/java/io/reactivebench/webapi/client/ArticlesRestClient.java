package io.reactivebench.webapi.client;

import io.reactivebench.articles.api.Article;
import io.reactivebench.articles.api.NewArticle;
import io.smallrye.mutiny.Uni;
import java.util.List;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/** The articles service's API, reactive: the Uni completes when the answer arrives, no thread waits. */
@Path("/articles")
@RegisterRestClient(configKey = "articles")
public interface ArticlesRestClient {

    @GET
    Uni<List<Article>> findNewest(@QueryParam("amount") int amount);

    @POST
    Uni<Article> create(NewArticle article);
}
