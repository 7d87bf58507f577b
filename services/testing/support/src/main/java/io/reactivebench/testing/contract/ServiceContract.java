package io.reactivebench.testing.contract;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.emptyOrNullString;

import io.reactivebench.testing.EventLoopGuard;
import io.reactivebench.testing.Metrics;
import io.reactivebench.testing.PinnedThreadGuard;
import io.quarkus.test.common.http.TestHTTPResourceManager;
import io.restassured.RestAssured;
import io.restassured.response.ValidatableResponse;
import io.restassured.specification.RequestSpecification;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What every build of every service promises, whatever its paradigm: health and metrics on the management port,
 * OpenAPI, and problem JSON for errors. A subclass names the build's version prefix (v1, v2 or v3); the assertions are
 * the same for all. No Vert.x thread may be blocked and no virtual thread may pin its carrier while a
 * contract runs.
 */
@ExtendWith({EventLoopGuard.class, PinnedThreadGuard.class})
public abstract class ServiceContract {
    public static final String PROBLEM_JSON = "application/problem+json";

    protected final String version;
    private final String resource;

    protected ServiceContract(String version, String resource) {
        this.version = version;
        this.resource = resource;
    }

    /** {@code /v1/articles}, {@code /v2/authors}, … */
    protected String path() {
        return "/" + version + "/" + resource;
    }

    /** Health and metrics: on Quarkus' management interface, a port of its own (a random one in the tests). */
    protected static RequestSpecification management() {
        URI uri = URI.create(TestHTTPResourceManager.getManagementUri());
        return given().baseUri(uri.getScheme() + "://" + uri.getHost()).port(uri.getPort());
    }

    /** The JDBC builds: their database's readiness check borrows in the connection queue, and Quarkus' own is off. */
    protected static void assertDatabaseReadinessBorrowsInTheQueue() {
        management().get("/q/health/ready").then().statusCode(200)
                .body("checks.name", hasItem("Database connections health check (in the connection queue)"))
                .body("checks.name", not(hasItem("Database connections health check")));
    }

    @Test
    void isLiveAndReady() {
        management().get("/q/health/live").then().statusCode(200).body("status", is("UP"));
        management().get("/q/health/ready").then().statusCode(200).body("status", is("UP"));
    }

    @Test
    void servesHealthAndMetricsOnTheManagementPortAlone() {
        given().get("/q/health/ready").then().statusCode(404);
        given().get("/q/metrics").then().statusCode(404);
    }

    @Test
    void exposesPrometheusMetricsOfServedRequests() {
        given().get(path() + "-that-does-not-exist");
        management().get("/q/metrics").then().statusCode(200).body(containsString("http_server_requests_seconds_count"));
    }

    @Test
    void showsItsJvmsStartAndUptime() {
        // the harness tells one start of a service from the next by these (every round of make cpu-map is a fork)
        management().get("/q/metrics").then().statusCode(200)
                .body(containsString("\nprocess_start_time_seconds "), containsString("\nprocess_uptime_seconds "));
    }

    @Test
    void publishesOpenApiForItsVersionedPaths() {
        given().queryParam("format", "json").get("/q/openapi")
                .then().statusCode(200).body(containsString("\"" + path() + "\""));
    }

    @Test
    void rejectsABodyOverTheLimitBeforeReadingIt() {
        String huge = "{\"title\":\"" + "x".repeat(20 * 1024) + "\"}"; // the limit is 16 KiB (edge.max-body-size)
        assertProblem(given().contentType("application/json").body(huge).post(path()).then(), 413)
                .body("detail", containsString("16384 bytes"));
    }

    /** Sends {@code count} GET requests for {@code pathAndQuery} at once, each on a connection of its own; none may take over 15 s. */
    protected static List<HttpResponse<String>> sendTogether(String pathAndQuery, int count) {
        return startTogether(pathAndQuery, count).stream().map(CompletableFuture::join).toList();
    }

    /** {@link #sendTogether} without waiting: the answers as they come. */
    protected static List<CompletableFuture<HttpResponse<String>>> startTogether(String pathAndQuery, int count) {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create(RestAssured.baseURI + ":" + RestAssured.port + pathAndQuery))
                .timeout(Duration.ofSeconds(15)).build();
        return IntStream.range(0, count)
                .mapToObj(i -> client.sendAsync(request, HttpResponse.BodyHandlers.ofString()))
                .toList();
    }

    /** How many answers had each status. */
    protected static Map<Integer, Long> statuses(List<HttpResponse<String>> answers) {
        return answers.stream().collect(Collectors.groupingBy(HttpResponse::statusCode, TreeMap::new, Collectors.counting()));
    }

    /** The sum of the Prometheus samples whose line starts with {@code prefix}. */
    protected static double metric(String prefix) {
        return Metrics.sum(management(), prefix);
    }

    /** The metric as soon as it reads {@code expected}, or as it reads after {@code atMost}. */
    protected static double awaitMetric(String prefix, double expected, Duration atMost) {
        long deadline = System.nanoTime() + atMost.toNanos();
        double value = metric(prefix);
        while (value != expected && System.nanoTime() < deadline) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            value = metric(prefix);
        }
        return value;
    }

    /** Asserts an RFC 9457 problem answer with that status. */
    public static ValidatableResponse assertProblem(ValidatableResponse response, int status) {
        return response.statusCode(status)
                .contentType(containsString(PROBLEM_JSON))
                .body("status", equalTo(status))
                .body("title", not(emptyOrNullString()));
    }
}
