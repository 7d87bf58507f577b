package io.reactivebench.webapi.stream;

import io.quarkus.runtime.ShutdownEvent;
import io.reactivebench.articles.api.Article;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseBroadcaster;
import jakarta.ws.rs.sse.SseEventSink;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/** Every article-created event from Kafka, broadcast to every connected SSE client (JAX-RS SseBroadcaster). */
@ApplicationScoped
public class ArticleStream {
    static final String CONNECTED = "connected";
    private static final int REMEMBERED_IDS = 10_000;

    private final SeenArticles seen = new SeenArticles(REMEMBERED_IDS);

    private Sse sse;
    private SseBroadcaster broadcaster;

    public synchronized void subscribe(SseEventSink sink, Sse sse) {
        if (broadcaster == null) {
            this.sse = sse;
            this.broadcaster = sse.newBroadcaster();
        }
        // A comment first: it sends the response headers now, so the client knows it is connected.
        sink.send(sse.newEventBuilder().comment(CONNECTED).build());
        broadcaster.register(sink);
    }

    /** At shutdown every stream ends, so that its client reconnects at once, to a pod that stays. */
    synchronized void endStreams(@Observes ShutdownEvent event) {
        if (broadcaster != null) {
            broadcaster.close();
        }
    }

    @Incoming("articles-created")
    public synchronized void onArticleCreated(Article article) {
        if (broadcaster != null && seen.firstTime(article.id())) {
            broadcaster.broadcast(sse.newEventBuilder()
                    .id(String.valueOf(article.id())).name("article-created")
                    .mediaType(MediaType.APPLICATION_JSON_TYPE).data(Article.class, article).build());
        }
    }
}
