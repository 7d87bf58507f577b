package io.reactivebench.webapi.stream;

import io.quarkus.runtime.ShutdownEvent;
import io.reactivebench.articles.api.Article;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseBroadcaster;
import jakarta.ws.rs.sse.SseEventSink;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/** Every article-created event from Kafka, broadcast to every connected SSE client (JAX-RS SseBroadcaster). */
@ApplicationScoped
public class ArticleStream {
    static final String CONNECTED = "connected";
    private static final int REMEMBERED = 10_000;

    private final RecentArticles recent = new RecentArticles(REMEMBERED);

    private Sse sse;
    private SseBroadcaster broadcaster;

    /** Connects a client; one that reconnects ({@code lastEventId} not null) is first sent what it missed. */
    public synchronized void subscribe(SseEventSink sink, Sse sse, Long lastEventId) {
        if (broadcaster == null) {
            this.sse = sse;
            this.broadcaster = sse.newBroadcaster();
        }
        // A comment first: it sends the response headers now, so the client knows it is connected.
        sink.send(sse.newEventBuilder().comment(CONNECTED).build());
        // Under the same lock as onArticleCreated: no article comes between the missed ones and the live ones.
        if (lastEventId != null) {
            recent.after(lastEventId).forEach(article -> sink.send(event(article)));
        }
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
        if (recent.add(article) && broadcaster != null) {
            broadcaster.broadcast(event(article));
        }
    }

    private OutboundSseEvent event(Article article) {
        return sse.newEventBuilder().id(String.valueOf(article.id())).name("article-created")
                .mediaType(MediaType.APPLICATION_JSON_TYPE).data(Article.class, article).build();
    }
}
