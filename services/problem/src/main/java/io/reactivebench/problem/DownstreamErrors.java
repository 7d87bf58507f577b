package io.reactivebench.problem;

import jakarta.ws.rs.ClientErrorException;
import jakarta.ws.rs.ServiceUnavailableException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;

/** How a service answers for a downstream service's errors, in every build alike. */
public final class DownstreamErrors {
    private DownstreamErrors() {
    }

    public static boolean isNotFound(Throwable failure) {
        return failure instanceof WebApplicationException e && e.getResponse().getStatus() == 404;
    }

    public static boolean isClientError(Throwable failure) {
        return failure instanceof WebApplicationException e
                && e.getResponse().getStatusInfo().getFamily() == Response.Status.Family.CLIENT_ERROR;
    }

    /** The downstream's 4xx answer, status and problem body, for our caller: their input was at fault, not us. */
    public static ClientErrorException passThrough(Throwable clientError) {
        Response downstream = ((WebApplicationException) clientError).getResponse();
        String body = downstream.hasEntity() ? downstream.readEntity(String.class) : null;
        return new ClientErrorException(Response.status(downstream.getStatus()).type(Problem.MEDIA_TYPE).entity(body).build());
    }

    /** 503: a downstream service failed, timed out or its circuit is open; the caller may retry later. */
    public static ServiceUnavailableException unavailable(String service) {
        return new ServiceUnavailableException("The " + service + " service is unavailable",
                Long.valueOf(Problem.RETRY_AFTER_SECONDS));
    }
}
