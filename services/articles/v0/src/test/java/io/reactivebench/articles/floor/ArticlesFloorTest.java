package io.reactivebench.articles.floor;

import static io.reactivebench.testing.contract.ServiceContract.assertProblem;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reactivebench.floor.FloorSettings;
import io.reactivebench.testing.Fixtures;
import io.reactivebench.testing.FloorService;
import io.restassured.http.ContentType;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** v0's contract: the read every build answers, the same way (ArticlesContract's, for what the floor serves). */
class ArticlesFloorTest {
    private static final List<String> EVERY_BUILDS_FIELDS = List.of("id", "title", "url", "author", "creationDate");
    private static Vertx vertx;
    private static FloorService articles;

    @BeforeAll
    static void start() {
        vertx = Vertx.vertx();
        articles = FloorService.start(FloorService.database("articles"),
                variables -> ArticlesFloor.start(vertx, new FloorSettings(variables)).toCompletionStage());
    }

    @AfterAll
    static void stop() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    private static JsonArray newest(String amount) {
        return new JsonArray(articles.api().queryParam("amount", amount).get("/v0/articles")
                .then().statusCode(200).contentType(ContentType.JSON).extract().asString());
    }

    @Test
    void listsTheTenNewestFirstTwoPerAuthorWithEveryBuildsFieldsInTheirOrder() {
        JsonArray found = new JsonArray(articles.api().get("/v0/articles").then().statusCode(200).extract().asString());
        assertEquals(10, found.size());
        for (int n = 0; n < found.size(); n++) {
            JsonObject article = found.getJsonObject(n);
            assertEquals(EVERY_BUILDS_FIELDS, List.copyOf(article.fieldNames()), "the fields in the order of the bytes");
            assertEquals(Fixtures.authorOfNewest(n), article.getString("author"));
            if (n > 0) {
                Instant before = Instant.parse(found.getJsonObject(n - 1).getString("creationDate"));
                assertTrue(!Instant.parse(article.getString("creationDate")).isAfter(before), "newest first");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = { 1, 3, 10, 100 })
    void listsAsManyAsAskedUpToAHundred(int amount) {
        assertEquals(Math.min(amount, 10), newest(String.valueOf(amount)).size());
    }

    @Test
    void readsAnEmptyAmountAsTen() {
        assertEquals(10, newest("").size());
    }

    @ParameterizedTest
    @ValueSource(strings = { "0", "101", "-1", "abc", "1.5", "99999999999" })
    void rejectsAmountOutsideOneToAHundred(String amount) {
        assertProblem(articles.api().queryParam("amount", amount).get("/v0/articles").then(), 400)
                .body("violations[0].field", equalTo("amount"))
                .body("violations[0].in", equalTo("query"));
    }

    @Test
    void answersNotFoundOutsideItsRoutes() {
        assertProblem(articles.api().get("/v1/articles").then(), 404);
        assertProblem(articles.api().get("/v0/articles/1").then(), 404);
    }

    @Test
    void servesHealthOnTheManagementPortAlone() {
        articles.management().get("/q/health/started").then().statusCode(200).body("status", equalTo("UP"));
        articles.management().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"));
        articles.management().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"));
        articles.api().get("/q/health/ready").then().statusCode(404);
    }

    @Test
    void asksForTlsWhereTheVariableTheChartSetsSaysSo() throws Exception {
        // The chart sets verify-ca against PostgreSQL's CA (the operator's PostgreSQL refuses anything but TLS); the
        // suite's PostgreSQL offers no TLS, so a service told to verify it cannot read, and says so, where one not
        // told to reads. (The CA file is read, and never met: a certificate no server here has.)
        Map<String, String> variables = new HashMap<>(FloorService.database("articles"));
        variables.put("QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE", "verify-ca");
        variables.put("QUARKUS_DATASOURCE_REACTIVE_TRUST_CERTIFICATE_PEM", "true");
        variables.put("QUARKUS_DATASOURCE_REACTIVE_TRUST_CERTIFICATE_PEM_CERTS",
                Path.of(getClass().getResource("/unused-ca.crt").toURI()).toString());
        FloorService requiring = FloorService.start(variables,
                all -> ArticlesFloor.start(vertx, new FloorSettings(all)).toCompletionStage());
        requiring.management().get("/q/health/ready").then().statusCode(503).body("status", equalTo("DOWN"));
        articles.management().get("/q/health/ready").then().statusCode(200);
    }

    @Test
    void countsEachAnswerByRouteAndStatusAsTheHarnessReadsEveryBuild() {
        String answered = "http_server_requests_seconds_count{method=\"GET\",status=\"200\",uri=\"/articles\"}";
        double before = articles.metric(answered);
        newest("3");
        assertEquals(before + 1, articles.metric(answered));
    }

    @Test
    void showsItsJvmsStartAndUptimeAsTheHarnessReadsEveryBuild() {
        // the harness tells one start of a service from the next by these (every round of make cpu-map is a fork)
        double started = articles.metric("process_start_time_seconds");
        double now = System.currentTimeMillis() / 1e3;
        assertTrue(started > now - 3600 && started <= now, "started at " + started + ", now " + now);
        assertTrue(articles.metric("process_uptime_seconds") > 0);
    }
}
