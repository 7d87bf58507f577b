package io.reactivebench.webapi.floor;

import io.reactivebench.articles.api.ArticleLimits;
import io.reactivebench.floor.FloorServer;
import io.reactivebench.floor.FloorSettings;
import io.reactivebench.floor.Problems;
import io.reactivebench.floor.ServedRequests;
import io.reactivebench.webapi.api.DownstreamPolicy;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

/**
 * web-api, the floor: {@code GET /v0/articles} reads the ten newest articles from articles, looks every distinct
 * author up in authors, all at once, and merges them, with Vert.x's web client over kept-alive connections, on the
 * event loop. A look-up that fails or outlasts its time-out leaves its author's details null, as in every build; no
 * retry and no circuit breaker.
 */
public final class WebApiFloor {
    static final String FALLBACKS = "webapi_author_lookup_fallbacks_total";

    private final WebClient client;
    private final String articles;
    private final String authors;
    private final LongAdder fallbacks;

    WebApiFloor(WebClient client, FloorSettings settings, LongAdder fallbacks) {
        this.client = client;
        this.articles = settings.required("QUARKUS_REST_CLIENT_ARTICLES_URL") + "/articles";
        this.authors = settings.required("QUARKUS_REST_CLIENT_AUTHORS_URL") + "/authors";
        this.fallbacks = fallbacks;
    }

    public static void main(String[] arguments) {
        FloorServer.run("web-api", WebApiFloor::start);
    }

    /** Serves; completes once it listens. Ready at once: as in every build, readiness does not ask the other services. */
    public static Future<Void> start(Vertx vertx, FloorSettings settings) {
        // as the other builds' REST clients are configured: 100 kept-alive connections to each service, 1 s to connect
        WebClient client = WebClient.create(vertx, new WebClientOptions().setKeepAlive(true).setMaxPoolSize(100)
                .setConnectTimeout(1000));
        ServedRequests served = new ServedRequests();
        WebApiFloor floor = new WebApiFloor(client, settings, served.counter(FALLBACKS));
        return new FloorServer(vertx, settings, served).start(Map.of("/articles", floor::findNewest), Future::succeededFuture);
    }

    void findNewest(HttpServerRequest request) {
        client.getAbs(articles).addQueryParam("amount", String.valueOf(ArticleLimits.DEFAULT_AMOUNT))
                .timeout(DownstreamPolicy.ARTICLES_READ_TIMEOUT_MS).send().onComplete(read -> {
                    if (read.failed() || read.result().statusCode() != 200) {
                        request.response().putHeader("Retry-After", "1");
                        Problems.send(request.response(), 503, "articles did not answer");
                        return;
                    }
                    JsonArray newest = read.result().bodyAsJsonArray();
                    Set<String> names = new LinkedHashSet<>();
                    newest.forEach(article -> names.add(((JsonObject) article).getString("author")));
                    List<String> distinct = List.copyOf(names);
                    List<Future<JsonObject>> lookUps = distinct.stream().map(this::author).toList();
                    // every look-up ends with an author or null, never a failure: joined, all are there
                    Future.join(lookUps).onComplete(joined -> {
                        Map<String, JsonObject> byName = new HashMap<>();
                        for (int i = 0; i < distinct.size(); i++) {
                            byName.put(distinct.get(i), lookUps.get(i).result());
                        }
                        request.response().putHeader("Content-Type", "application/json;charset=UTF-8")
                                .end(merge(newest, byName).toBuffer());
                    });
                });
    }

    private Future<JsonObject> author(String name) {
        return client.getAbs(authors).addQueryParam("name", name).timeout(DownstreamPolicy.AUTHORS_TIMEOUT_MS).send()
                .map(answer -> answer.statusCode() == 200 ? answer.bodyAsJsonObject() : null)
                .otherwise((JsonObject) null)
                .map(found -> {
                    if (found == null) {
                        fallbacks.increment();
                    }
                    return found;
                });
    }

    /** Each article with its author's details, in the order of the record every other build serialises (ArticleView). */
    private static JsonArray merge(JsonArray newest, Map<String, JsonObject> authorsByName) {
        JsonArray views = new JsonArray();
        for (Object each : newest) {
            JsonObject article = (JsonObject) each;
            JsonObject author = authorsByName.get(article.getString("author"));
            views.add(new JsonObject().put("id", article.getValue("id")).put("title", article.getString("title"))
                    .put("url", article.getString("url")).put("authorName", article.getString("author"))
                    .put("authorBlog", author == null ? null : author.getString("blog"))
                    .put("authorTwitter", author == null ? null : author.getString("twitter")));
        }
        return views;
    }
}
