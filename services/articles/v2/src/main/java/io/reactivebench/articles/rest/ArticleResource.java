package io.reactivebench.articles.rest;

import io.reactivebench.articles.api.Article;
import io.reactivebench.articles.api.ArticleLimits;
import io.reactivebench.articles.api.NewArticle;
import io.reactivebench.articles.service.ArticleService;
import io.smallrye.common.annotation.NonBlocking;
import io.smallrye.mutiny.Uni;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/** v2: non-blocking endpoints; the event loop is free while the database works. */
@Path("/articles")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@NonBlocking
public class ArticleResource {
    private final ArticleService service;

    public ArticleResource(ArticleService service) {
        this.service = service;
    }

    @GET
    @Operation(summary = "Lists the newest articles, newest first")
    @APIResponse(responseCode = "200", description = "Up to amount articles")
    @APIResponse(responseCode = "400", description = "amount is not between 1 and " + ArticleLimits.MAX_AMOUNT)
    // amount is a String, validated: JAX-RS answers 404, not 400, when a query parameter fails to convert to int.
    public Uni<List<Article>> findNewest(
            @Parameter(description = "How many articles; empty or absent means " + ArticleLimits.DEFAULT_AMOUNT, allowEmptyValue = true,
                    schema = @Schema(type = SchemaType.INTEGER, minimum = "1", maximum = "" + ArticleLimits.MAX_AMOUNT,
                            defaultValue = "" + ArticleLimits.DEFAULT_AMOUNT))
            @QueryParam("amount") @DefaultValue("" + ArticleLimits.DEFAULT_AMOUNT) @Pattern(regexp = "\\d{1,3}", message = "must be a whole number")
            @Min(1) @Max(ArticleLimits.MAX_AMOUNT) String amount) {
        return service.findNewest(Integer.parseInt(amount));
    }

    @GET
    @Path("{id}")
    @Operation(summary = "Finds an article by id")
    @APIResponse(responseCode = "200", description = "The article")
    @APIResponse(responseCode = "404", description = "No article with that id")
    public Uni<Article> findById(@PathParam("id") long id) {
        return service.findById(id).onItem().ifNull().failWith(() -> new NotFoundException("No article with id " + id));
    }

    @POST
    @Operation(summary = "Stores an article and announces it on the articles.created topic")
    @APIResponse(responseCode = "201", description = "The stored article; Location is its URL")
    @APIResponse(responseCode = "400", description = "Invalid article; nothing was stored")
    public Uni<Response> create(@Valid @NotNull NewArticle newArticle, @Context UriInfo uri) {
        return service.create(newArticle)
                .map(article -> Response.created(uri.getAbsolutePathBuilder().path(String.valueOf(article.id())).build())
                        .entity(article).build());
    }
}
