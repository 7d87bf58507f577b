package io.reactivebench.webapi.client;

import io.reactivebench.authors.api.Author;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/** The authors service's API, blocking: the calling thread waits for the answer. */
@Path("/authors")
@RegisterRestClient(configKey = "authors")
public interface AuthorsRestClient {

    @GET
    Author findByName(@QueryParam("name") String name);
}
