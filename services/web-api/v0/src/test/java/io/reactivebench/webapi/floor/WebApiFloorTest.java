package io.reactivebench.webapi.floor;

import static io.reactivebench.testing.contract.ServiceContract.assertProblem;
import static io.reactivebench.testing.contract.WebApiContract.authorReply;
import static io.reactivebench.testing.contract.WebApiContract.expectedViews;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reactivebench.floor.FloorSettings;
import io.reactivebench.testing.Fixtures;
import io.reactivebench.testing.FloorService;
import io.reactivebench.testing.HttpStandIn;
import io.reactivebench.testing.HttpStandIn.Reply;
import io.reactivebench.testing.Json;
import io.restassured.http.ContentType;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * v0's contract: the answer every build gives, the same way, against real HTTP stand-ins for articles and authors
 * (WebApiContract's, for what the floor serves: no retry, no circuit breaker, no stream).
 */
class WebApiFloorTest {
    private static final Duration AUTHOR_DELAY = Duration.ofMillis(300);
    private static final HttpStandIn articles = new HttpStandIn();
    private static final HttpStandIn authors = new HttpStandIn();
    private static Vertx vertx;
    private static FloorService webApi;

    @BeforeAll
    static void start() {
        vertx = Vertx.vertx();
        webApi = FloorService.start(Map.of("QUARKUS_REST_CLIENT_ARTICLES_URL", articles.url() + "/v0",
                        "QUARKUS_REST_CLIENT_AUTHORS_URL", authors.url() + "/v0"),
                variables -> WebApiFloor.start(vertx, new FloorSettings(variables)).toCompletionStage());
    }

    @AfterAll
    static void stop() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @BeforeEach
    void standInsAnswerWithSeedData() {
        authors.awaitIdle(); // a slow look-up of an earlier test would count as in flight
        articles.reset();
        authors.reset();
        articles.on("GET", "/v0/articles", request -> Reply.json(200, Json.write(Fixtures.newestArticles())));
        authors.on("GET", "/v0/authors", request -> authorReply(request.query("name")));
    }

    private static List<Map<String, Object>> newestViews() {
        return webApi.api().get("/v0/articles").then().statusCode(200).contentType(ContentType.JSON)
                .extract().jsonPath().getList("$");
    }

    @Test
    void mergesEachArticleWithItsAuthor() {
        assertEquals(expectedViews(List.of()), newestViews());
        assertEquals("10", articles.requests("GET", "/v0/articles").get(0).query("amount"));
    }

    @Test
    void looksUpEachDistinctAuthorOnceAllInParallel() {
        authors.on("GET", "/v0/authors", request -> authorReply(request.query("name")).after(AUTHOR_DELAY));
        newestViews(); // connections open, so that the count below is of the fan-out only
        articles.resetCounts();
        authors.resetCounts();

        assertEquals(expectedViews(List.of()), newestViews());
        assertEquals(1, articles.requests("GET", "/v0/articles").size());
        List<String> looked = authors.requests("GET", "/v0/authors").stream().map(r -> r.query("name")).sorted().toList();
        assertEquals(Fixtures.AUTHORS.stream().map(a -> a.get("name")).sorted().toList(), looked);
        assertEquals(5, authors.maxInFlight(), "author look-ups in flight together");
    }

    @Test
    void leavesAuthorFieldsNullWhenALookupFailsOrFindsNoneAndCountsTheFallbacks() {
        authors.on("GET", "/v0/authors", request -> switch (request.query("name")) {
            case "Grace Hopper" -> Reply.problem(500, "Boom");
            case "Ada Lovelace" -> Reply.problem(404, "Not Found");
            default -> authorReply(request.query("name"));
        });
        double before = webApi.metric(WebApiFloor.FALLBACKS);
        assertEquals(expectedViews(List.of("Grace Hopper", "Ada Lovelace")), newestViews());
        assertEquals(before + 2, webApi.metric(WebApiFloor.FALLBACKS));
    }

    @Test
    void leavesAuthorFieldsNullWhenALookupOutlastsItsTimeOut() {
        newestViews(); // the test's client and the connections warm, so that the time below is the look-ups'
        authors.on("GET", "/v0/authors", request -> request.query("name").equals("Harald Uebele")
                ? authorReply("Harald Uebele").after(Duration.ofSeconds(10)) : authorReply(request.query("name")));
        long started = System.nanoTime();
        assertEquals(expectedViews(List.of("Harald Uebele")), newestViews());
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        assertTrue(took.compareTo(Duration.ofSeconds(5)) < 0, "took " + took + ": the look-up's time-out did not apply");
    }

    @Test
    void answersServiceUnavailableWhenArticlesFail() {
        articles.on("GET", "/v0/articles", request -> Reply.problem(500, "Boom"));
        assertProblem(webApi.api().get("/v0/articles").then(), 503).header("Retry-After", "1");
        assertEquals(0, authors.requests("GET", "/v0/authors").size());
    }

    @Test
    void servesHealthOnTheManagementPortAndCountsItsAnswers() {
        webApi.management().get("/q/health/ready").then().statusCode(200);
        String answered = "http_server_requests_seconds_count{method=\"GET\",status=\"200\",uri=\"/articles\"}";
        double before = webApi.metric(answered);
        newestViews();
        assertEquals(before + 1, webApi.metric(answered));
    }
}
