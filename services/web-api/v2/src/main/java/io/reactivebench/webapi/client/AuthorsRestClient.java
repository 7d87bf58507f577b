package io.reactivebench.webapi.client;

import io.reactivebench.authors.api.Author;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/** The authors service's API, reactive: the Uni completes when the answer arrives, no thread waits. */
@Path("/authors")
@RegisterRestClient(configKey = "authors")
public interface AuthorsRestClient {

    @GET
    Uni<Author> findByName(@QueryParam("name") String name);
}
