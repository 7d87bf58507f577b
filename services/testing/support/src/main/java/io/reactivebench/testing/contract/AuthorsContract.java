package io.reactivebench.testing.contract;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;

import io.reactivebench.testing.Fixtures;
import io.restassured.http.ContentType;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** The authors API, the same for every build. */
public abstract class AuthorsContract extends ServiceContract {

    protected AuthorsContract(String version) {
        super(version, "authors");
    }


    @Test
    void theJdbcBuildsDatabaseReadinessCheckBorrowsInTheConnectionQueue() {
        assumeFalse(version.equals("v2"), "v2 has no JDBC pool: the reactive pool queues its own waiters");
        assertDatabaseReadinessBorrowsInTheQueue();
    }
    @Test
    void findsAnAuthorByName() {
        Map<String, Object> author = given().queryParam("name", "Niklas Heidloff").get(path())
                .then().statusCode(200).contentType(ContentType.JSON)
                .extract().jsonPath().getMap("$");
        assertEquals(Set.of("name", "twitter", "blog"), author.keySet());
        assertEquals(Fixtures.author("Niklas Heidloff"), author);
    }

    @Test
    void theJdbcBuildsQueueEveryReadForAConnectionAndGiveEveryPlaceBack() {
        assumeFalse(version.equals("v2"), "v2 has no JDBC pool: the reactive pool queues its own waiters");
        double before = metric("jdbc_connection_queue_turns_total");
        int lookUps = 60; // more at once than the pool has connections (20 in v1, 10 in v3)
        var answers = sendTogether(path() + "?name=" + URLEncoder.encode("Niklas Heidloff", StandardCharsets.UTF_8), lookUps);
        assertEquals(Map.of(200, (long) lookUps), statuses(answers));
        assertEquals(before + lookUps, metric("jdbc_connection_queue_turns_total"), "each look-up waited its turn");
        assertEquals(0, metric("jdbc_connection_queue_taken"), "every place was given back");
        assertEquals(0, metric("jdbc_connection_queue_waiting"));
    }

    @Test
    void findsEverySeedAuthor() {
        for (Map<String, String> author : Fixtures.AUTHORS) {
            given().queryParam("name", author.get("name")).get(path())
                    .then().statusCode(200).body("blog", equalTo(author.get("blog")));
        }
    }

    @Test
    void answersNotFoundForUnknownAuthor() {
        assertProblem(given().queryParam("name", "Nobody Known").get(path()).then(), 404);
    }

    @ParameterizedTest
    @ValueSource(strings = { "", " ", "\t" })
    void rejectsBlankName(String name) {
        assertProblem(given().queryParam("name", name).get(path()).then(), 400);
    }

    /** Found by schemathesis: a NUL in the name reached PostgreSQL ("invalid byte sequence") and answered 500. */
    @ParameterizedTest
    @ValueSource(strings = { "Ada\u0000Lovelace", "Ada\nLovelace", "Ada\u007fLovelace" })
    void rejectsControlCharactersInTheName(String name) {
        assertProblem(given().queryParam("name", name).get(path()).then(), 400)
                .body("violations[0].field", equalTo("name"));
    }

    @Test
    void rejectsANameLongerThanTheColumn() {
        assertProblem(given().queryParam("name", "a".repeat(101)).get(path()).then(), 400);
    }

    @Test
    void rejectsMissingName() {
        assertProblem(given().get(path()).then(), 400);
    }
}
