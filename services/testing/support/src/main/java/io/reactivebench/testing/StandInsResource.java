package io.reactivebench.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/** Real HTTP stand-ins for the articles and authors services, for web-api's tests. */
public class StandInsResource implements QuarkusTestResourceLifecycleManager {
    private static HttpStandIn articles;
    private static HttpStandIn authors;

    public static synchronized HttpStandIn articles() {
        if (articles == null) {
            articles = new HttpStandIn();
        }
        return articles;
    }

    public static synchronized HttpStandIn authors() {
        if (authors == null) {
            authors = new HttpStandIn();
        }
        return authors;
    }

    @Override
    public Map<String, String> start() {
        return Map.of(
                "quarkus.rest-client.articles.url", articles().url(),
                "quarkus.rest-client.authors.url", authors().url());
    }

    @Override
    public void stop() {
        // Shared by the test classes of one JVM; the JVM's end closes the sockets.
    }
}
