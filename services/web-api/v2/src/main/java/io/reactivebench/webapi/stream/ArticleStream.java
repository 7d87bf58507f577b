package io.reactivebench.webapi.stream;

import io.quarkus.runtime.ShutdownEvent;
import io.reactivebench.articles.api.Article;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.MultiEmitter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/** Every article-created event from Kafka, emitted to a Multi per connected SSE client. */
@ApplicationScoped
public class ArticleStream {
    static final String CONNECTED = "connected";
    private static final int REMEMBERED = 10_000;
    /**
     * Events queued for one client that has not asked for more yet (its previous write is still going out).
     * A client 1,000 events behind is dropped: memory stays bounded. Without a buffer, a slow client would
     * lose the stream at the next event; the chaos suite caught that.
     */
    private static final int CLIENT_BUFFER = 1_000;

    private final RecentArticles recent = new RecentArticles(REMEMBERED);
    private final Set<MultiEmitter<? super Article>> clients = ConcurrentHashMap.newKeySet();
    private boolean ended;

    /** A client's stream; one that reconnects ({@code lastEventId} not null) is first sent what it missed. */
    public Multi<OutboundSseEvent> subscribe(Sse sse, Long lastEventId) {
        // A comment first: it sends the response headers now, so the client knows it is connected.
        Multi<OutboundSseEvent> connected = Multi.createFrom().item(sse.newEventBuilder().comment(CONNECTED).build());
        Multi<Article> articles = Multi.createFrom().emitter(client -> join(client, lastEventId), CLIENT_BUFFER);
        return Multi.createBy().concatenating().streams(connected, articles.map(article -> sse.newEventBuilder()
                .id(String.valueOf(article.id())).name("article-created")
                .mediaType(MediaType.APPLICATION_JSON_TYPE).data(Article.class, article).build()));
    }

    // Under the same lock as onArticleCreated: no article comes between the missed ones and the live ones.
    private synchronized void join(MultiEmitter<? super Article> client, Long lastEventId) {
        if (ended) {
            client.complete();
            return;
        }
        if (lastEventId != null) {
            recent.after(lastEventId).forEach(client::emit);
        }
        clients.add(client);
        client.onTermination(() -> clients.remove(client));
    }

    /** At shutdown every stream ends, so that its client reconnects at once, to a pod that stays. */
    synchronized void endStreams(@Observes ShutdownEvent event) {
        ended = true;
        clients.forEach(MultiEmitter::complete);
    }

    @Incoming("articles-created")
    public synchronized void onArticleCreated(Article article) {
        if (recent.add(article)) {
            clients.forEach(client -> client.emit(article));
        }
    }
}
