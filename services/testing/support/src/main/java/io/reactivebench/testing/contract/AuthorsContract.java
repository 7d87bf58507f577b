package io.reactivebench.testing.contract;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;

import io.reactivebench.testing.Fixtures;
import io.restassured.http.ContentType;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The authors API, the same for every build. */
public abstract class AuthorsContract extends ServiceContract {

    protected AuthorsContract(String version) {
        super(version, "authors");
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
