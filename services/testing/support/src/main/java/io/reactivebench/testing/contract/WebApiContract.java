package io.reactivebench.testing.contract;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reactivebench.testing.ArticleEvents;
import io.reactivebench.testing.Fixtures;
import io.reactivebench.testing.HttpStandIn;
import io.reactivebench.testing.Json;
import io.reactivebench.testing.HttpStandIn.Reply;
import io.reactivebench.testing.SseClient;
import io.reactivebench.testing.StandInsResource;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * web-api's API, the same for every build, against real HTTP stand-ins for articles and authors (so that
 * delays and failures can be set per test) and a real Kafka broker for the stream.
 */
public abstract class WebApiContract extends ServiceContract {
    private static final Duration AUTHOR_DELAY = Duration.ofMillis(300);
    /** The author look-up's label in SmallRye Fault Tolerance's metrics (the start of it: more labels follow). */
    private static final String LOOKUP = "{method=\"io.reactivebench.webapi.client.AuthorsClient.findByName\"";

    private final HttpStandIn articles = StandInsResource.articles();
    private final HttpStandIn authors = StandInsResource.authors();

    protected WebApiContract(String version) {
        super(version, "articles");
    }

    @BeforeEach
    void standInsAnswerWithSeedData() {
        CircuitBreakerMaintenance.get().resetAll();
        articles.reset();
        authors.reset();
        articles.on("GET", articlesPath(), request -> Reply.json(200, Json.write(Fixtures.newestArticles())));
        authors.on("GET", authorsPath(), request -> authorReply(request.query("name")));
    }

    @Test
    void mergesEachArticleWithItsAuthor() {
        assertEquals(expectedViews(List.of()), newestViews());
        assertEquals("10", articles.requests("GET", articlesPath()).get(0).query("amount"));
    }

    @Test
    void looksUpEachDistinctAuthorOnceAllInParallel() {
        authors.on("GET", authorsPath(), request -> authorReply(request.query("name")).after(AUTHOR_DELAY));
        newestViews(); // connections and JIT warm, so that the timing below measures the fan-out only
        articles.resetCounts();
        authors.resetCounts();

        long started = System.nanoTime();
        assertEquals(expectedViews(List.of()), newestViews());
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertEquals(1, articles.requests("GET", articlesPath()).size());
        List<String> looked = authors.requests("GET", authorsPath()).stream().map(r -> r.query("name")).sorted().toList();
        assertEquals(Fixtures.AUTHORS.stream().map(a -> a.get("name")).sorted().toList(), looked);
        assertEquals(5, authors.maxInFlight(), "author look-ups in flight together");
        // In flight together is the proof; the time only has to be under what one after the other takes at least.
        assertTrue(took.compareTo(AUTHOR_DELAY.multipliedBy(5)) < 0, "took " + took + ", sequential look-ups?");
    }

    @Test
    void leavesAuthorFieldsNullWhenALookupFailsAndCountsTheFallback() {
        authors.on("GET", authorsPath(), request -> request.query("name").equals("Grace Hopper")
                ? Reply.problem(500, "Boom") : authorReply(request.query("name")));
        double before = fallbacks();
        assertEquals(expectedViews(List.of("Grace Hopper")), newestViews());
        assertEquals(before + 1, fallbacks(), "webapi_author_lookup_fallbacks_total");
    }

    /**
     * A look-up whose connection closes before any answer (a pooled keep-alive connection to an authors pod that is
     * stopping) is sent once more, on another connection; it is idempotent, and the retry is counted.
     */
    @Test
    void triesALookupAgainWhenItsConnectionClosesBeforeAnAnswer() {
        AtomicInteger hangUps = new AtomicInteger();
        authors.on("GET", authorsPath(), request -> request.query("name").equals("Grace Hopper") && hangUps.getAndIncrement() == 0
                ? Reply.hangUp() : authorReply(request.query("name")));
        double before = lookupRetries();
        assertEquals(expectedViews(List.of()), newestViews());
        assertEquals(2, authors.requests("GET", authorsPath()).stream().filter(r -> r.query("name").equals("Grace Hopper")).count());
        assertEquals(before + 1, lookupRetries(), "ft_retry_retries_total of the look-up");
    }

    @Test
    void leavesAuthorFieldsNullForAnUnknownAuthor() {
        authors.on("GET", authorsPath(), request -> request.query("name").equals("Ada Lovelace")
                ? Reply.problem(404, "Not Found") : authorReply(request.query("name")));
        assertEquals(expectedViews(List.of("Ada Lovelace")), newestViews());
    }

    @Test
    void leavesAuthorFieldsNullWhenALookupIsTooSlow() {
        authors.on("GET", authorsPath(), request -> request.query("name").equals("Harald Uebele")
                ? authorReply("Harald Uebele").after(Duration.ofSeconds(10)) : authorReply(request.query("name")));
        long started = System.nanoTime();
        assertEquals(expectedViews(List.of("Harald Uebele")), newestViews());
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        assertTrue(took.compareTo(Duration.ofSeconds(5)) < 0, "took " + took + ": the look-up timeout did not apply");
    }

    /**
     * Look-ups failing one after another open the circuit: the next ones fall back at once, without reaching
     * authors. Once authors answers again, a trial after the breaker's delay closes it, and answers are complete
     * again. Each build's breaker is proven here; make chaos stops authors' process under load for every build,
     * make test-e2e for one.
     */
    @Test
    void opensTheCircuitOnFailingLookUpsAndClosesItOnceAuthorsAnswers() throws InterruptedException {
        List<String> everyone = Fixtures.AUTHORS.stream().map(author -> author.get("name")).toList();
        double openedBefore = circuitOpenings();
        authors.on("GET", authorsPath(), request -> Reply.problem(500, "Down"));
        for (int request = 0; request < 20 && circuitOpenings() == openedBefore; request++) {
            assertEquals(expectedViews(everyone), newestViews());
        }
        assertEquals(openedBefore + 1, circuitOpenings(), "the circuit opened once");

        authors.on("GET", authorsPath(), request -> authorReply(request.query("name")));
        authors.resetCounts();
        assertEquals(expectedViews(everyone), newestViews(), "while the circuit is open every look-up falls back");
        assertEquals(0, authors.requests("GET", authorsPath()).size(), "look-ups that reached authors through the open circuit");

        // The breaker's delay is 5 s; a trial then closes it (the look-ups beside the trial may still fall back).
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        List<Map<String, Object>> views = newestViews();
        while (!views.equals(expectedViews(List.of())) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            views = newestViews();
        }
        assertEquals(expectedViews(List.of()), views, "the answer once authors answers again and the breaker's delay is over");
        assertEquals(openedBefore + 1, circuitOpenings(), "the circuit opened once, and not again");
    }

    @Test
    void answersServiceUnavailableWhenArticlesFail() {
        articles.on("GET", articlesPath(), request -> Reply.problem(500, "Boom"));
        assertProblem(given().get(path()).then(), 503).header("Retry-After", "1");
        assertEquals(0, authors.requests("GET", authorsPath()).size());
    }

    @Test
    void answersServiceUnavailableWhenArticlesAreTooSlow() {
        articles.on("GET", articlesPath(), request -> Reply.json(200, "[]").after(Duration.ofSeconds(30)));
        long started = System.nanoTime();
        assertProblem(given().get(path()).then(), 503);
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        assertTrue(took.compareTo(Duration.ofSeconds(8)) < 0, "took " + took + ": the articles timeout did not apply");
    }

    /**
     * As many requests as the in-flight limit admits (20 in the test profile), each waiting for its five
     * author look-ups, all complete: the look-ups never wait for the threads that wait for them (v1's test
     * profile has fewer worker threads than the limit). Were they to wait, every look-up would time out. A first
     * such burst, whose views are not checked, warms the path and opens all hundred connections to authors: on the
     * cold JVM of a busy machine one of a hundred first look-ups at once outlasted the 1 s time-out. Look-ups that
     * time out in it may open the circuit, which is closed again before the checked burst.
     */
    @Test
    void answersEveryAdmittedRequestWhileAllWaitForTheirLookUps() {
        authors.on("GET", authorsPath(), request -> authorReply(request.query("name")).after(AUTHOR_DELAY));
        assertEquals(Map.of(200, 20L), statuses(sendTogether(path(), 20)), "the warm-up burst");
        CircuitBreakerMaintenance.get().resetAll();
        authors.resetCounts();
        List<HttpResponse<String>> answers = sendTogether(path(), 20);
        assertEquals(Map.of(200, 20L), statuses(answers));
        List<Map<String, Object>> expected = expectedViews(List.of());
        List<String> incomplete = answers.stream().map(answer -> JsonPath.from(answer.body()).<Map<String, Object>>getList("$"))
                .filter(views -> !expected.equals(views)).map(Object::toString).toList();
        assertEquals(List.of(), incomplete, "answers unlike the expected views (" + authors.requests("GET", authorsPath()).size()
                + " look-ups reached authors, at most " + authors.maxInFlight() + " at once)");
    }

    /** Requests beyond the in-flight limit (20 in the test profile) are turned away at once, not queued. */
    @Test
    void turnsAwayRequestsBeyondTheInFlightLimitWithRetryAfter() {
        int limit = 20;
        int extra = 10;
        // Every admitted request stays in flight while the others arrive: articles answers once the turned-away
        // ones have their answers, or after 1 s (under the 1.5 s time-out of web-api's call), whichever is first.
        CountDownLatch turnedAway = new CountDownLatch(extra);
        articles.on("GET", articlesPath(), request -> {
            awaitQuietly(turnedAway, Duration.ofSeconds(1));
            return Reply.json(200, Json.write(Fixtures.newestArticles()));
        });
        double shedBefore = metric("edge_requests_rejected_total{reason=\"overload\"");

        List<CompletableFuture<HttpResponse<String>>> sent = startTogether(path(), limit + extra);
        sent.forEach(answer -> answer.thenAccept(response -> {
            if (response.statusCode() == 503) {
                turnedAway.countDown();
            }
        }));
        List<HttpResponse<String>> answers = sent.stream().map(CompletableFuture::join).toList();

        assertEquals(Map.of(200, (long) limit, 503, (long) extra), statuses(answers));
        for (HttpResponse<String> shed : answers.stream().filter(a -> a.statusCode() == 503).toList()) {
            assertEquals(Optional.of("1"), shed.headers().firstValue("Retry-After"));
            assertEquals(Optional.of(PROBLEM_JSON), shed.headers().firstValue("Content-Type"));
            assertEquals(503, JsonPath.from(shed.body()).getInt("status"));
        }
        assertEquals(shedBefore + extra, metric("edge_requests_rejected_total{reason=\"overload\""));
        // The count drops once an answer has been written, which the client may read an instant before.
        assertEquals(0, awaitMetric("edge_requests_in_flight", 0, Duration.ofSeconds(5)),
                "admitted requests still counted after their answers");
    }

    @Test
    void forwardsANewArticleToArticles() {
        String stored = "{\"id\":77,\"title\":\"Forwarded\",\"url\":\"https://example.org/f\",\"author\":\"Ada Lovelace\","
                + "\"creationDate\":\"2026-01-01T00:00:00.123456Z\"}";
        articles.on("POST", articlesPath(), request -> Reply.json(201, stored));

        String answered = given().contentType(ContentType.JSON)
                .body(ArticlesContract.newArticle("Forwarded", "https://example.org/f", "Ada Lovelace")).post(path())
                .then().statusCode(201).contentType(ContentType.JSON).extract().asString();

        assertEquals(JsonPath.from(stored).getMap("$"), JsonPath.from(answered).getMap("$"));
        JsonPath sent = JsonPath.from(articles.requests("POST", articlesPath()).get(0).body());
        assertEquals("Forwarded", sent.getString("title"));
    }

    @Test
    void rejectsAnInvalidNewArticleWithoutCallingArticles() {
        assertProblem(given().contentType(ContentType.JSON).body(ArticlesContract.newArticle("", "not a url", "Ada Lovelace"))
                .post(path()).then(), 400)
                .body("violations.field", hasItems("title", "url"));
        assertEquals(0, articles.requests("POST", articlesPath()).size());
    }

    @Test
    void passesARejectionByArticlesThrough() {
        articles.on("POST", articlesPath(), request -> Reply.problem(400, "Rejected by articles"));
        assertProblem(given().contentType(ContentType.JSON)
                .body(ArticlesContract.newArticle("Title", "https://example.org/a", "Ada Lovelace")).post(path()).then(), 400)
                .body("title", equalTo("Rejected by articles"));
    }

    @Test
    void streamsCreatedArticlesToConnectedClients() throws InterruptedException {
        String title = "Streamed " + UUID.randomUUID();
        try (SseClient client = new SseClient(streamUrl())) {
            String data = awaitStreamed(client, title);
            long id = JsonPath.from(data).getLong("id");
            assertEquals(JsonPath.from(event(id, title)).getMap("$"), JsonPath.from(data).getMap("$"));
        }
    }

    @Test
    void streamsAnArticleOnceWhenKafkaDeliversItTwice() throws InterruptedException {
        String twice = "Twice " + UUID.randomUUID();
        String marker = "After " + UUID.randomUUID();
        try (SseClient client = new SseClient(streamUrl())) {
            long id = JsonPath.from(awaitStreamed(client, twice)).getLong("id");
            ArticleEvents.publish(id, event(id, twice)); // the duplicate an outbox may send after a failure
            ArticleEvents.publish(id + 1_000_000, event(id + 1_000_000, marker));
            String next = client.await(line -> line.contains(twice) || line.contains(marker), Duration.ofSeconds(10))
                    .orElseThrow(() -> new AssertionError("nothing streamed after the duplicate"));
            assertTrue(next.contains(marker), "the duplicate was streamed again: " + next);
        }
    }

    /**
     * A client that reconnects with Last-Event-ID (its stream ended: the instance stopped, the network broke) is
     * sent what it missed first, oldest first, and nothing it had already received.
     */
    @Test
    void replaysWhatAReconnectingClientMissed() throws InterruptedException {
        String title = "Replayed " + UUID.randomUUID();
        long received;
        Map<Long, String> missed = new LinkedHashMap<>();
        try (SseClient client = new SseClient(streamUrl())) {
            received = JsonPath.from(awaitStreamed(client, title + " received")).getLong("id");
            for (long id = received + 1; id <= received + 3; id++) {
                missed.put(id, event(id, title + " missed"));
            }
            ArticleEvents.publishAll(missed);
            for (long id : missed.keySet()) { // streamed live: the instance has them all
                client.await(line -> line.contains("\"id\":" + id + ","), Duration.ofSeconds(10))
                        .orElseThrow(() -> new AssertionError("article " + id + " was not streamed"));
            }
        }
        try (SseClient reconnected = new SseClient(streamUrl(), received)) {
            List<Long> replayed = new ArrayList<>();
            while (replayed.size() < 3) {
                String data = reconnected.await(line -> line.contains(title), Duration.ofSeconds(10))
                        .orElseThrow(() -> new AssertionError("replayed " + replayed + " of " + missed.keySet()));
                replayed.add(JsonPath.from(data).getLong("id"));
            }
            assertEquals(List.copyOf(missed.keySet()), replayed);
        }
    }

    @Test
    void rejectsALastEventIdThatIsNoArticleId() {
        assertProblem(given().header("Accept", "text/event-stream").header("Last-Event-ID", "yesterday")
                .get(path() + "/stream").then(), 400);
    }

    /** Events that arrive faster than a client reads them are queued for it, not dropped (nor the client). */
    @Test
    void streamsABurstOfEventsWithoutDroppingAny() throws InterruptedException {
        int burst = 300;
        String title = "Burst " + UUID.randomUUID();
        try (SseClient client = new SseClient(streamUrl())) {
            long first = JsonPath.from(awaitStreamed(client, title + " ready")).getLong("id") + 1;
            Map<Long, String> events = new LinkedHashMap<>();
            for (long id = first; id < first + burst; id++) {
                events.put(id, event(id, title));
            }
            ArticleEvents.publishAll(events);
            Set<Long> received = new HashSet<>();
            while (received.size() < burst) {
                String data = client.await(line -> line.contains(title), Duration.ofSeconds(10))
                        .orElseThrow(() -> new AssertionError("streamed " + received.size() + " of " + burst));
                received.add(JsonPath.from(data).getLong("id"));
            }
            assertEquals(LongStream.range(first, first + burst).boxed().collect(Collectors.toSet()), received);
        }
    }

    /**
     * Publishes an article-created event until the client receives it, and returns its data line. The
     * stream's consumer reads from the topic's end once assigned, and the client may still be connecting:
     * each attempt has an id of its own, so that no attempt is dropped as a duplicate of one nobody saw.
     */
    private static String awaitStreamed(SseClient client, String title) throws InterruptedException {
        long firstId = 1 + Math.floorMod(UUID.randomUUID().getMostSignificantBits(), 1_000_000_000L);
        for (int attempt = 0; attempt < 20; attempt++) {
            ArticleEvents.publish(firstId + attempt, event(firstId + attempt, title));
            Optional<String> received = client.await(line -> line.contains(title), Duration.ofMillis(500));
            if (received.isPresent()) {
                return received.get();
            }
        }
        throw new AssertionError("no server-sent event for " + title);
    }

    private String streamUrl() {
        return RestAssured.baseURI + ":" + RestAssured.port + path() + "/stream";
    }

    private static String event(long id, String title) {
        return "{\"id\":" + id + ",\"title\":\"" + title + "\",\"url\":\"https://example.org/s\",\"author\":\"Ada Lovelace\","
                + "\"creationDate\":\"2026-01-01T00:00:00Z\"}";
    }


    /** Waits up to {@code atMost} for the latch, as a stand-in's route (which cannot throw) must. */
    private static void awaitQuietly(CountDownLatch latch, Duration atMost) {
        try {
            latch.await(atMost.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static double fallbacks() {
        return metric("webapi_author_lookup_fallbacks_total");
    }

    private static double lookupRetries() {
        return metric("ft_retry_retries_total" + LOOKUP);
    }

    private static double circuitOpenings() {
        return metric("ft_circuitbreaker_opened_total" + LOOKUP);
    }

    // The stand-ins are the downstream APIs' bases (quarkus.rest-client.*.url), which carry the version in production.
    private static String articlesPath() {
        return "/articles";
    }

    private static String authorsPath() {
        return "/authors";
    }

    private List<Map<String, Object>> newestViews() {
        return given().get(path()).then().statusCode(200).contentType(ContentType.JSON).extract().jsonPath().getList("$");
    }

    /** An author as the stand-in for authors answers it: the seed's, or 404. */
    public static Reply authorReply(String name) {
        return Fixtures.AUTHORS.stream().filter(a -> a.get("name").equals(name)).findFirst()
                .map(author -> Reply.json(200, Json.write(author)))
                .orElse(Reply.problem(404, "Not Found"));
    }

    /** The seed articles merged with their authors; authors in {@code missing} have null details. */
    public static List<Map<String, Object>> expectedViews(List<String> missing) {
        List<Map<String, Object>> views = new ArrayList<>();
        for (Map<String, Object> article : Fixtures.newestArticles()) {
            String name = (String) article.get("author");
            Map<String, String> author = Fixtures.author(name);
            Map<String, Object> view = new LinkedHashMap<>();
            view.put("id", ((Long) article.get("id")).intValue());
            view.put("title", article.get("title"));
            view.put("url", article.get("url"));
            view.put("authorName", name);
            view.put("authorBlog", missing.contains(name) ? null : author.get("blog"));
            view.put("authorTwitter", missing.contains(name) ? null : author.get("twitter"));
            views.add(view);
        }
        return views;
    }
}
