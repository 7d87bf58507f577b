package io.reactivebench.problem;

import com.fasterxml.jackson.annotation.JsonInclude;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;

/** An RFC 9457 problem: what went wrong, for a client to read; never a stack trace. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(String title, int status, String detail, List<Violation> violations) {
    public static final String MEDIA_TYPE = "application/problem+json";

    /** One rejected input: which field (or parameter), where it was, and why. */
    public record Violation(String field, String in, String message) {
    }

    public static Problem of(Response.Status status, String detail) {
        return new Problem(status.getReasonPhrase(), status.getStatusCode(), detail, null);
    }

    /** The seconds a client should wait before it retries a 503 (the Retry-After header), wherever a build answers one. */
    public static final String RETRY_AFTER_SECONDS = "1";

    public Response toResponse() {
        return toResponse(null);
    }

    /** The same, with a Retry-After header (none when {@code retryAfterSeconds} is null). */
    public Response toResponse(String retryAfterSeconds) {
        Response.ResponseBuilder answer = Response.status(status).type(MediaType.valueOf(MEDIA_TYPE)).entity(this);
        if (retryAfterSeconds != null) {
            answer.header(HttpHeaders.RETRY_AFTER, retryAfterSeconds);
        }
        return answer.build();
    }
}
