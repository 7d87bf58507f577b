package io.reactivebench.authors.rest;

import io.reactivebench.authors.api.Author;
import io.reactivebench.authors.api.AuthorNames;
import io.reactivebench.authors.service.AuthorService;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/** A blocking endpoint: each request holds its thread (a worker thread in v1, a virtual one in v3) until the database answers. */
@Path("/authors")
@Produces(MediaType.APPLICATION_JSON)
public class AuthorResource {
    private final AuthorService service;

    public AuthorResource(AuthorService service) {
        this.service = service;
    }

    @GET
    @Operation(summary = "Finds an author by name")
    @APIResponse(responseCode = "200", description = "The author")
    @APIResponse(responseCode = "400", description = "No name given, too long, or with control characters")
    @APIResponse(responseCode = "404", description = "No author of that name")
    public Author findByName(@QueryParam("name") @NotNull @Size(max = AuthorNames.MAX_LENGTH)
            @Pattern(regexp = AuthorNames.VISIBLE_TEXT, message = AuthorNames.NOT_VISIBLE_TEXT) String name) {
        return service.findByName(name)
                .orElseThrow(() -> new NotFoundException("No author named " + name));
    }
}
