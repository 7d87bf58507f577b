package io.reactivebench.webapi.rest;

import io.reactivebench.articles.api.NewArticle;
import io.reactivebench.webapi.api.ArticleView;
import io.reactivebench.webapi.service.ArticleViewService;
import io.reactivebench.webapi.stream.ArticleStream;
import io.smallrye.common.annotation.NonBlocking;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.OutboundSseEvent;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

import static io.reactivebench.webapi.api.StreamContract.LAST_EVENT_ID;
import static io.reactivebench.webapi.api.StreamContract.LAST_EVENT_ID_DESCRIPTION;

/** v2: non-blocking endpoints; the event loop is free while articles and authors work. */
@Path("/articles")
@Produces(MediaType.APPLICATION_JSON)
@NonBlocking
public class ArticleViewResource {
    private final ArticleViewService service;
    private final ArticleStream stream;

    public ArticleViewResource(ArticleViewService service, ArticleStream stream) {
        this.service = service;
        this.stream = stream;
    }

    @GET
    @Operation(summary = "The ten newest articles with their authors' details")
    @APIResponse(responseCode = "200", description = "Author details are null where a look-up failed")
    @APIResponse(responseCode = "503", description = "The articles service failed or timed out")
    public Uni<List<ArticleView>> findNewest() {
        return service.findNewest();
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Creates an article through the articles service")
    @APIResponse(responseCode = "201", description = "The stored article")
    @APIResponse(responseCode = "400", description = "Invalid article; nothing was stored")
    public Uni<Response> create(@Valid @NotNull NewArticle newArticle) {
        return service.create(newArticle).map(article -> Response.status(Response.Status.CREATED).entity(article).build());
    }

    @GET
    @Path("stream")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @Operation(summary = "Server-sent events: every article created after the client connected, or after its Last-Event-ID")
    @APIResponse(responseCode = "200", description = "A comment (:connected), then one article-created event per article",
            content = @Content(mediaType = MediaType.SERVER_SENT_EVENTS))
    public Multi<OutboundSseEvent> stream(@Context Sse sse,
            @HeaderParam(LAST_EVENT_ID) @Parameter(description = LAST_EVENT_ID_DESCRIPTION) Long lastEventId) {
        return stream.subscribe(sse, lastEventId);
    }
}
