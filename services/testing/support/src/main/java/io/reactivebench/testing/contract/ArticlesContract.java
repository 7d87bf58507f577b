package io.reactivebench.testing.contract;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasItems;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reactivebench.testing.ArticleEvents;
import io.reactivebench.testing.Database;
import io.reactivebench.testing.Json;
import io.reactivebench.testing.KafkaResource;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.ExtractableResponse;
import io.restassured.response.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The articles API, the same for every build. Tests add articles, so none relies on exact seed positions. */
public abstract class ArticlesContract extends ServiceContract {
    private static final Duration OUTAGE = Duration.ofSeconds(5);
    private static final Set<String> ARTICLE_FIELDS = Set.of("id", "title", "url", "author", "creationDate");

    protected ArticlesContract(String version) {
        super(version, "articles");
    }


    @Test
    void theJdbcBuildsDatabaseReadinessCheckBorrowsInTheConnectionQueue() {
        assumeFalse(version.equals("v2"), "v2 has no JDBC pool: the reactive pool queues its own waiters");
        assertDatabaseReadinessBorrowsInTheQueue();
    }
    @Test
    void listsTheTenNewestByDefault() {
        List<Map<String, Object>> articles = newest(given());
        assertEquals(10, articles.size());
        assertEquals(ARTICLE_FIELDS, articles.get(0).keySet());
        assertNewestFirst(articles);
    }

    @ParameterizedTest
    @ValueSource(ints = { 1, 3, 10 })
    void listsAsManyAsAsked(int amount) {
        assertEquals(amount, newest(given().queryParam("amount", amount)).size());
    }

    @Test
    void listsUpToAHundred() {
        List<Map<String, Object>> articles = newest(given().queryParam("amount", 100));
        assertTrue(articles.size() >= 10 && articles.size() <= 100, "size " + articles.size());
        assertNewestFirst(articles);
    }

    @ParameterizedTest
    @ValueSource(strings = { "0", "101", "-1", "abc", "1.5", "99999999999" })
    void rejectsAmountOutsideOneToAHundred(String amount) {
        assertProblem(given().queryParam("amount", amount).get(path()).then(), 400)
                .body("violations[0].field", equalTo("amount"))
                .body("violations[0].in", equalTo("query"));
    }

    /**
     * Both builds ask for ORDER BY creation_date DESC, id DESC LIMIT n (v1 through Hibernate, v2 in SQL):
     * at a million rows PostgreSQL must still read just n index entries, with no sort and no full scan.
     * The bulk rows are older than every seed article, so the newest ten stay the same.
     */
    @Test
    void newestQueryIsServedByTheIndexAtAMillionRows() {
        Database.execute("INSERT INTO articles (title, url, author, creation_date)"
                + " SELECT 'Bulk ' || n, 'https://example.org/bulk/' || n, 'Bulk Author', TIMESTAMPTZ '2000-01-01' + n * INTERVAL '1 second'"
                + " FROM generate_series(1, 1000000 - (SELECT count(*) FROM articles)) AS n");
        Database.execute("ANALYZE articles");
        assertTrue(Database.articleCount() >= 1_000_000);

        String plan = Database.plan("EXPLAIN SELECT id, title, url, author, creation_date FROM articles"
                + " ORDER BY creation_date DESC, id DESC LIMIT 10");
        assertTrue(plan.contains("Index Scan using articles_newest_idx"), plan);
        assertFalse(plan.contains("Sort"), plan);
        assertFalse(plan.contains("Seq Scan"), plan);
        assertEquals(10, newest(given()).size());
    }

    @Test
    void findsAnArticleById() {
        Map<String, Object> newest = newest(given().queryParam("amount", 1)).get(0);
        Map<String, Object> found = given().get(path() + "/" + newest.get("id"))
                .then().statusCode(200).contentType(ContentType.JSON).extract().jsonPath().getMap("$");
        assertEquals(newest, found);
    }

    @Test
    void answersNotFoundForUnknownId() {
        assertProblem(given().get(path() + "/987654321").then(), 404);
    }

    @Test
    void createsAnArticleAndListsItFirst() {
        long before = Database.articleCount();
        String title = "Created by the contract " + UUID.randomUUID();
        ExtractableResponse<Response> created = given().contentType(ContentType.JSON)
                .body(newArticle(title, "https://example.org/contract", "Ada Lovelace")).post(path())
                .then().statusCode(201).contentType(ContentType.JSON)
                .body("title", equalTo(title)).body("url", equalTo("https://example.org/contract"))
                .body("author", equalTo("Ada Lovelace"))
                .extract();
        Map<String, Object> article = created.jsonPath().getMap("$");
        assertEquals(ARTICLE_FIELDS, article.keySet());
        String location = created.header("Location");
        assertTrue(location.endsWith(path() + "/" + article.get("id")), location);

        assertEquals(before + 1, Database.articleCount());
        assertEquals(article, given().get(location).then().statusCode(200).extract().jsonPath().getMap("$"));
        assertEquals(article, newest(given().queryParam("amount", 1)).get(0));
    }

    @Test
    void publishesArticleCreatedEventWithTheStoredArticle() {
        String title = "Event from the contract " + UUID.randomUUID();
        Map<String, Object> article = given().contentType(ContentType.JSON)
                .body(newArticle(title, "https://example.org/event", "Grace Hopper")).post(path())
                .then().statusCode(201).extract().jsonPath().getMap("$");

        String event = ArticleEvents.await(json -> json.contains(title), Duration.ofSeconds(20))
                .orElseThrow(() -> new AssertionError("no article-created event for " + title));
        assertEquals(article, JsonPath.from(event).getMap("$"));
    }

    @Test
    void acceptsArticlesWhileKafkaIsDownAndPublishesThemWhenItIsBack() {
        List<String> titles = List.of("Outage 1 " + UUID.randomUUID(), "Outage 2 " + UUID.randomUUID());
        KafkaResource.stopBroker();
        try {
            for (String title : titles) {
                given().contentType(ContentType.JSON).body(newArticle(title, "https://example.org/outage", "Ada Lovelace"))
                        .post(path()).then().statusCode(201);
            }
            management().get("/q/health/ready").then().statusCode(200);
            assertEquals(title(newest(given().queryParam("amount", 1)).get(0)), titles.get(1));
            // Down for longer than the producer's delivery timeout (3 s in the test profile): the first attempts fail for good.
            Thread.sleep(OUTAGE.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            KafkaResource.startBroker();
        }
        for (String title : titles) {
            ArticleEvents.await(json -> json.contains(title), Duration.ofSeconds(90))
                    .orElseThrow(() -> new AssertionError("the event of '" + title + "' was lost in the outage"));
        }
    }

    /**
     * A fuzz test with a fixed seed: 150 bodies mixing valid values with edge cases (control and zero-width
     * characters, emoji, right-to-left text, SQL and HTML injection, huge and wrong-typed values, missing and
     * unknown fields). Each must be stored (201, read back unchanged) or rejected (400 problem JSON, nothing
     * stored), never a server error.
     */
    @Test
    void storesOrRejectsEveryGeneratedArticleButNeverFails() {
        java.util.Random random = new java.util.Random(20261122L);
        String[] texts = { "Plain title", "", " ", "\u0000nul", "tab\there", "line\nbreak", "zero\u200Bwidth", "emoji \uD83D\uDE80",
            "\u05E2\u05D1\u05E8\u05D9\u05EA right-to-left", "e\u0301 combining", "'; DROP TABLE articles; --", "<script>alert(1)</script>",
            "\\\" quotes", "x".repeat(200), "y".repeat(201), "z".repeat(5000), "Ada Lovelace", "%00%27" };
        String[] urls = { "https://example.org/a", "http://example.org/\u00FCmlaut", "ftp://example.org/a", "javascript:alert(1)",
            "https://", "not a url", "https://example.org/" + "p".repeat(480), "https://example.org/" + "p".repeat(500) };
        long before = Database.articleCount();
        int stored = 0;
        for (int i = 0; i < 150; i++) {
            String body = generatedArticle(random, texts, urls);
            Response response = given().contentType(ContentType.JSON).body(body).post(path());
            int status = response.statusCode();
            assertTrue(status == 201 || status == 400, "status " + status + " for " + body);
            if (status == 201) {
                stored++;
                Map<String, Object> article = response.jsonPath().getMap("$");
                assertEquals(article, given().get(response.header("Location")).then().statusCode(200)
                        .extract().jsonPath().getMap("$"), "read back differs for " + body);
            } else {
                assertTrue(response.contentType().contains(PROBLEM_JSON), "no problem JSON for " + body);
            }
        }
        assertEquals(before + stored, Database.articleCount(), "only the accepted articles are stored");
        assertTrue(stored > 0 && stored < 150, "the generator should produce both kinds, stored " + stored);
    }

    private static String generatedArticle(java.util.Random random, String[] texts, String[] urls) {
        StringBuilder json = new StringBuilder("{");
        String[][] fields = { { "title" }, { "url" }, { "author" } };
        for (String[] field : fields) {
            int shape = random.nextInt(12);
            if (shape == 0) {
                continue; // missing
            }
            json.append(json.length() > 1 ? "," : "").append('"').append(field[0]).append("\":");
            if (shape == 1) {
                json.append("null");
            } else if (shape == 2) {
                json.append(random.nextInt(1000));
            } else if (shape == 3) {
                json.append("{\"nested\":true}");
            } else {
                String value = field[0].equals("url") ? urls[random.nextInt(urls.length)] : texts[random.nextInt(texts.length)];
                json.append(Json.write(value));
            }
        }
        if (random.nextInt(10) == 0) {
            json.append(json.length() > 1 ? "," : "").append("\"extra\":1");
        }
        return json.append('}').toString();
    }

    static Stream<Arguments> invalidArticles() {
        String longTitle = "t".repeat(201);
        return Stream.of(
                Arguments.of(newArticle("", "https://example.org/a", "Ada Lovelace"), List.of("title")),
                Arguments.of(newArticle(" ", "https://example.org/a", "Ada Lovelace"), List.of("title")),
                Arguments.of(newArticle(longTitle, "https://example.org/a", "Ada Lovelace"), List.of("title")),
                Arguments.of(newArticle("Title", "not a url", "Ada Lovelace"), List.of("url")),
                Arguments.of(newArticle("Title", "ftp://example.org/a", "Ada Lovelace"), List.of("url")),
                Arguments.of(newArticle("Title", "https://example.org/a", "a".repeat(101)), List.of("author")),
                Arguments.of("{\"title\":\"Title\",\"url\":\"https://example.org/a\"}", List.of("author")),
                Arguments.of("{}", List.of("title", "url", "author")));
    }

    @ParameterizedTest
    @MethodSource("invalidArticles")
    void rejectsInvalidArticleNamingEachBadFieldAndStoresNothing(String body, List<String> badFields) {
        long before = Database.articleCount();
        assertProblem(given().contentType(ContentType.JSON).body(body).post(path()).then(), 400)
                .body("violations.field", hasItems(badFields.toArray(String[]::new)))
                .body("violations.in", everyItem(equalTo("body")));
        assertEquals(before, Database.articleCount());
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{not json",
            "[]",
            "{\"title\":{\"nested\":1},\"url\":\"https://example.org/a\",\"author\":\"Ada Lovelace\"}",
            "{\"title\":\"Title\",\"url\":\"https://example.org/a\",\"author\":false}",
            "{\"title\":42,\"url\":\"https://example.org/a\",\"author\":\"Ada Lovelace\"}",
            "{\"title\":\"Title\",\"url\":\"https://example.org/a\",\"author\":1.5}",
            "{\"title\":\"Title\",\"url\":\"https://example.org/a\",\"author\":\"Ada Lovelace\",\"admin\":true}" })
    void rejectsMalformedJsonAndStoresNothing(String body) {
        long before = Database.articleCount();
        assertProblem(given().contentType(ContentType.JSON).body(body).post(path()).then(), 400);
        assertEquals(before, Database.articleCount());
    }

    @Test
    void rejectsWrongContentTypeAndStoresNothing() {
        long before = Database.articleCount();
        assertProblem(given().contentType(ContentType.TEXT)
                .body(newArticle("Title", "https://example.org/a", "Ada Lovelace")).post(path()).then(), 400);
        assertEquals(before, Database.articleCount());
    }

    public static String newArticle(String title, String url, String author) {
        return "{\"title\":\"" + title + "\",\"url\":\"" + url + "\",\"author\":\"" + author + "\"}";
    }

    private List<Map<String, Object>> newest(io.restassured.specification.RequestSpecification request) {
        return request.get(path()).then().statusCode(200).contentType(ContentType.JSON).extract().jsonPath().getList("$");
    }

    private static String title(Map<String, Object> article) {
        return (String) article.get("title");
    }

    private static void assertNewestFirst(List<Map<String, Object>> articles) {
        for (int i = 1; i < articles.size(); i++) {
            Instant previous = Instant.parse((String) articles.get(i - 1).get("creationDate"));
            Instant current = Instant.parse((String) articles.get(i).get("creationDate"));
            assertTrue(!current.isAfter(previous), "not newest first at " + i + ": " + articles);
        }
    }
}
