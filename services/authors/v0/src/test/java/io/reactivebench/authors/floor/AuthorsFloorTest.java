package io.reactivebench.authors.floor;

import static io.reactivebench.testing.contract.ServiceContract.assertProblem;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.reactivebench.floor.FloorSettings;
import io.reactivebench.testing.Fixtures;
import io.reactivebench.testing.FloorService;
import io.restassured.http.ContentType;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** v0's contract: the look-up every build answers, the same way (AuthorsContract's, for what the floor serves). */
class AuthorsFloorTest {
    private static Vertx vertx;
    private static FloorService authors;

    @BeforeAll
    static void start() {
        vertx = Vertx.vertx();
        authors = FloorService.start(FloorService.database("authors"),
                variables -> AuthorsFloor.start(vertx, new FloorSettings(variables)).toCompletionStage());
    }

    @AfterAll
    static void stop() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void findsEverySeedAuthorWithEveryBuildsFieldsInTheirOrder() {
        for (Map<String, String> author : Fixtures.AUTHORS) {
            JsonObject found = new JsonObject(authors.api().queryParam("name", author.get("name")).get("/v0/authors")
                    .then().statusCode(200).contentType(ContentType.JSON).extract().asString());
            assertEquals(List.of("name", "twitter", "blog"), List.copyOf(found.fieldNames()));
            assertEquals(author, found.getMap());
        }
    }

    @Test
    void answersNotFoundForAnUnknownAuthor() {
        assertProblem(authors.api().queryParam("name", "Nobody Known").get("/v0/authors").then(), 404);
    }

    @ParameterizedTest
    @ValueSource(strings = { "", " ", "\t", "Ada\u0000Lovelace", "Ada\nLovelace", "Ada\u007fLovelace" })
    void rejectsANameWithoutVisibleTextOrWithControlCharacters(String name) {
        assertProblem(authors.api().queryParam("name", name).get("/v0/authors").then(), 400)
                .body("violations[0].field", equalTo("name"));
    }

    @Test
    void rejectsANameLongerThanTheColumnAndAMissingOne() {
        assertProblem(authors.api().queryParam("name", "a".repeat(101)).get("/v0/authors").then(), 400);
        assertProblem(authors.api().get("/v0/authors").then(), 400);
    }

    @Test
    void servesHealthOnTheManagementPortAndCountsItsAnswers() {
        authors.management().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"));
        String notFound = "http_server_requests_seconds_count{method=\"GET\",status=\"404\",uri=\"/authors\"}";
        double before = authors.metric(notFound);
        answersNotFoundForAnUnknownAuthor();
        assertEquals(before + 1, authors.metric(notFound));
    }
}
