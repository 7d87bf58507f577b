package io.reactivebench.floor;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** RFC 9457 problem answers, with the fields the other builds' answers have (title, status, detail, violations). */
public final class Problems {
    public static final String MEDIA_TYPE = "application/problem+json";

    private Problems() {
    }

    public static void send(HttpServerResponse response, int status, String detail) {
        send(response, problem(status, detail));
    }

    /** A 400 for one rejected query parameter. */
    public static void rejectQuery(HttpServerResponse response, String parameter, String message) {
        JsonObject violation = new JsonObject().put("field", parameter).put("in", "query").put("message", message);
        send(response, problem(400, parameter + ": " + message).put("violations", new JsonArray().add(violation)));
    }

    private static JsonObject problem(int status, String detail) {
        return new JsonObject().put("title", HttpResponseStatus.valueOf(status).reasonPhrase()).put("status", status)
                .put("detail", detail);
    }

    private static void send(HttpServerResponse response, JsonObject problem) {
        response.setStatusCode(problem.getInteger("status")).putHeader("Content-Type", MEDIA_TYPE).end(problem.toBuffer());
    }
}
