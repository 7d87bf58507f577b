package io.reactivebench.webapi.rest;

import io.reactivebench.articles.api.NewArticle;
import io.reactivebench.webapi.api.ArticleView;
import io.reactivebench.webapi.service.ArticleViewService;
import io.reactivebench.webapi.stream.ArticleStream;
import io.smallrye.common.annotation.Blocking;
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
import jakarta.ws.rs.sse.SseEventSink;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

import static io.reactivebench.webapi.api.StreamContract.LAST_EVENT_ID;
import static io.reactivebench.webapi.api.StreamContract.LAST_EVENT_ID_DESCRIPTION;

/** Blocking endpoints: each request holds its thread (a worker thread in v1, a virtual one in v3) until articles and authors answered. */
@Path("/articles")
@Produces(MediaType.APPLICATION_JSON)
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
    public List<ArticleView> findNewest() {
        return service.findNewest();
    }

    @POST
    // @Blocking: Quarkus REST 3.37 treats an application-wide @RunOnVirtualThread (v3) as non-blocking for a method
    // that reads a body, and would call it on the event loop; this keeps it on a worker thread in v1 and v3 alike.
    @Blocking
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Creates an article through the articles service")
    @APIResponse(responseCode = "201", description = "The stored article")
    @APIResponse(responseCode = "400", description = "Invalid article; nothing was stored")
    public Response create(@Valid @NotNull NewArticle newArticle) {
        return Response.status(Response.Status.CREATED).entity(service.create(newArticle)).build();
    }

    @GET
    @Path("stream")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @Operation(summary = "Server-sent events: every article created after the client connected, or after its Last-Event-ID")
    @APIResponse(responseCode = "200", description = "A comment (:connected), then one article-created event per article",
            content = @Content(mediaType = MediaType.SERVER_SENT_EVENTS))
    public void stream(@Context SseEventSink sink, @Context Sse sse,
            @HeaderParam(LAST_EVENT_ID) @Parameter(description = LAST_EVENT_ID_DESCRIPTION) Long lastEventId) {
        stream.subscribe(sink, sse, lastEventId);
    }
}
