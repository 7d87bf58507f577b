package io.reactivebench.authors.floor;

import io.reactivebench.authors.api.AuthorNames;
import io.reactivebench.floor.FloorDatabase;
import io.reactivebench.floor.FloorServer;
import io.reactivebench.floor.FloorSettings;
import io.reactivebench.floor.Problems;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.util.regex.Pattern;

/**
 * authors, the floor: {@code GET /v0/authors?name=} looks the author up with v2's statement, through the Vert.x
 * reactive PostgreSQL client, and writes it as JSON on the event loop.
 */
public final class AuthorsFloor {
    // The statement every build sends (authors v1's and v2's repositories).
    static final String FIND_BY_NAME = "SELECT name, twitter, blog FROM authors WHERE name = $1";
    private static final Pattern VISIBLE_TEXT = Pattern.compile(AuthorNames.VISIBLE_TEXT);

    private final Pool database;

    AuthorsFloor(Pool database) {
        this.database = database;
    }

    public static void main(String[] arguments) {
        FloorServer.run("authors", AuthorsFloor::start);
    }

    /** Migrates the build's schema, then serves; completes once it listens. */
    public static Future<Void> start(Vertx vertx, FloorSettings settings) {
        return FloorDatabase.serve(vertx, settings, "classpath:db/authors", "/authors", database -> new AuthorsFloor(database)::findByName);
    }

    void findByName(HttpServerRequest request) {
        String name = request.getParam("name");
        if (name == null) {
            Problems.rejectQuery(request.response(), "name", "must not be null");
        } else if (name.length() > AuthorNames.MAX_LENGTH) {
            Problems.rejectQuery(request.response(), "name", "size must be between 0 and " + AuthorNames.MAX_LENGTH);
        } else if (!VISIBLE_TEXT.matcher(name).matches()) {
            Problems.rejectQuery(request.response(), "name", AuthorNames.NOT_VISIBLE_TEXT);
        } else {
            database.preparedQuery(FIND_BY_NAME).execute(Tuple.of(name)).onComplete(read -> {
                if (read.failed()) {
                    Problems.send(request.response(), 503, "The database did not answer");
                } else if (read.result().rowCount() == 0) {
                    Problems.send(request.response(), 404, "No author named " + name);
                } else {
                    request.response().putHeader("Content-Type", "application/json;charset=UTF-8")
                            .end(author(read.result()).toBuffer());
                }
            });
        }
    }

    /** The fields in the order of the record every other build serialises (Author). */
    private static JsonObject author(RowSet<Row> rows) {
        Row row = rows.iterator().next();
        return new JsonObject().put("name", row.getString("name")).put("twitter", row.getString("twitter"))
                .put("blog", row.getString("blog"));
    }
}
