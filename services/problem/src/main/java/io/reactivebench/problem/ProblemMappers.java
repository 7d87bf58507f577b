package io.reactivebench.problem;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.ConstraintViolationException;
import jakarta.validation.Path;
import jakarta.ws.rs.NotSupportedException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.Response.Status;
import java.util.Comparator;
import java.util.List;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** Turns every error a build can raise into problem JSON, the same way in every build. */
public class ProblemMappers {
    private static final Logger LOG = Logger.getLogger(ProblemMappers.class);

    @ServerExceptionMapper
    public Response invalidInput(ConstraintViolationException e) {
        List<Problem.Violation> violations = e.getConstraintViolations().stream()
                .map(ProblemMappers::violation)
                .sorted(Comparator.comparing(Problem.Violation::field))
                .toList();
        refused(violations);
        return new Problem("Bad Request", 400, "The request has invalid fields", violations).toResponse();
    }

    // Listed one by one: Quarkus REST has built-in mappers for the subtypes, and the most specific mapper wins.
    @ServerExceptionMapper({ JsonProcessingException.class, JsonParseException.class, MismatchedInputException.class,
            InvalidFormatException.class, UnrecognizedPropertyException.class })
    public Response unreadableJson(JsonProcessingException e) {
        String detail = e instanceof UnrecognizedPropertyException unknown
                ? "Unknown field '" + unknown.getPropertyName() + "'"
                : "The body is not the JSON expected: " + e.getOriginalMessage();
        refused(detail);
        return Problem.of(Status.BAD_REQUEST, detail).toResponse();
    }

    /** Any body but JSON is bad input like any other: 400, not 415, so that clients see one kind of rejection. */
    @ServerExceptionMapper
    public Response unsupportedMediaType(NotSupportedException e) {
        return Problem.of(Status.BAD_REQUEST, "The body must be application/json").toResponse();
    }

    /** An error with a problem body of its own (a downstream's, passed through) is answered as it is. */
    @ServerExceptionMapper
    public Response httpError(WebApplicationException e) {
        if (e.getResponse().hasEntity()) {
            return e.getResponse();
        }
        Response.StatusType status = e.getResponse().getStatusInfo();
        // A 503 keeps its Retry-After (DownstreamErrors.unavailable sets one).
        return new Problem(status.getReasonPhrase(), status.getStatusCode(), e.getMessage(), null)
                .toResponse(e.getResponse().getHeaderString(HttpHeaders.RETRY_AFTER));
    }

    @ServerExceptionMapper
    public Response unexpected(Exception e) {
        if (DatabaseErrors.isUnavailable(e)) {
            LOG.warnf("The database is unavailable: %s", e.toString()); // expected while it restarts: no stack trace
            return Problem.of(Status.SERVICE_UNAVAILABLE, "The database is unavailable; retry shortly")
                    .toResponse(Problem.RETRY_AFTER_SECONDS);
        }
        LOG.error("Unexpected error", e);
        return Problem.of(Status.INTERNAL_SERVER_ERROR, "An unexpected error occurred").toResponse();
    }

    /**
     * A refused request, at DEBUG: off unless asked for (tracing on asks), so that a client's bad input costs no log
     * line in a measured run; when on, the line carries the request's trace id (the console format names it).
     */
    private static void refused(Object why) {
        LOG.debugf("Refused with 400: %s", why);
    }

    private static Problem.Violation violation(ConstraintViolation<?> violation) {
        // method → parameter for a query parameter; method → parameter → property for a field of the body
        Path.Node leaf = null;
        for (Path.Node node : violation.getPropertyPath()) {
            leaf = node;
        }
        String in = leaf != null && leaf.getKind() == jakarta.validation.ElementKind.PARAMETER ? "query" : "body";
        return new Problem.Violation(leaf == null ? null : leaf.getName(), in, violation.getMessage());
    }
}
