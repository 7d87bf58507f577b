package io.reactivebench.articles.floor;

import io.reactivebench.articles.api.ArticleLimits;
import io.reactivebench.floor.FloorDatabase;
import io.reactivebench.floor.FloorServer;
import io.reactivebench.floor.FloorSettings;
import io.reactivebench.floor.Problems;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.regex.Pattern;

/**
 * articles, the floor: {@code GET /v0/articles} reads the newest articles with v2's statement, through the Vert.x
 * reactive PostgreSQL client, and writes them as JSON on the event loop. Nothing else serves the request: no JAX-RS,
 * no CDI, no validation framework, no object mapping.
 */
public final class ArticlesFloor {
    // The statement every build sends (articles v1's and v2's repositories), so that PostgreSQL does the same work.
    static final String FIND_NEWEST = "SELECT id, title, url, author, creation_date FROM articles ORDER BY creation_date DESC, id DESC LIMIT $1";
    private static final Pattern AMOUNT = Pattern.compile("\\d{1,3}");

    private final Pool database;

    ArticlesFloor(Pool database) {
        this.database = database;
    }

    public static void main(String[] arguments) {
        FloorServer.run("articles", ArticlesFloor::start);
    }

    /** Migrates the build's schema, then serves; completes once it listens. */
    public static Future<Void> start(Vertx vertx, FloorSettings settings) {
        return FloorDatabase.serve(vertx, settings, "classpath:db/articles", "/articles", database -> new ArticlesFloor(database)::findNewest);
    }

    void findNewest(HttpServerRequest request) {
        String amount = request.getParam("amount", String.valueOf(ArticleLimits.DEFAULT_AMOUNT));
        if (amount.isEmpty()) {
            amount = String.valueOf(ArticleLimits.DEFAULT_AMOUNT);
        }
        if (!AMOUNT.matcher(amount).matches()) {
            Problems.rejectQuery(request.response(), "amount", "must be a whole number");
            return;
        }
        int asked = Integer.parseInt(amount);
        if (asked < 1 || asked > ArticleLimits.MAX_AMOUNT) {
            Problems.rejectQuery(request.response(), "amount", "must be between 1 and " + ArticleLimits.MAX_AMOUNT);
            return;
        }
        database.preparedQuery(FIND_NEWEST).execute(Tuple.of(asked)).onComplete(read -> {
            if (read.failed()) {
                Problems.send(request.response(), 503, "The database did not answer");
                return;
            }
            JsonArray articles = new JsonArray();
            for (Row row : read.result()) {
                articles.add(article(row));
            }
            request.response().putHeader("Content-Type", "application/json;charset=UTF-8").end(articles.toBuffer());
        });
    }

    /** The fields in the order of the record every other build serialises (Article), the date as an ISO instant. */
    private static JsonObject article(Row row) {
        return new JsonObject().put("id", row.getLong("id")).put("title", row.getString("title"))
                .put("url", row.getString("url")).put("author", row.getString("author"))
                .put("creationDate", row.getOffsetDateTime("creation_date").toInstant().toString());
    }
}
