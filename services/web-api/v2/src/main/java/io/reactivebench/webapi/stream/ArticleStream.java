package io.reactivebench.webapi.stream;

import io.quarkus.runtime.ShutdownEvent;
import io.reactivebench.articles.api.Article;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.operators.multi.processors.BroadcastProcessor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/** Every article-created event from Kafka, as a hot Multi that every connected SSE client subscribes to. */
@ApplicationScoped
public class ArticleStream {
    static final String CONNECTED = "connected";
    private static final int REMEMBERED_IDS = 10_000;
    /**
     * Events queued for one client that has not asked for more yet (its previous write is still going
     * out). Without a buffer, BroadcastProcessor fails such a subscriber at the next event and the client
     * loses the stream; the chaos suite caught that. A client 1,000 events behind is dropped: memory stays bounded.
     */
    private static final int CLIENT_BUFFER = 1_000;

    private final SeenArticles seen = new SeenArticles(REMEMBERED_IDS);

    private final BroadcastProcessor<Article> articles = BroadcastProcessor.create();

    public Multi<OutboundSseEvent> subscribe(Sse sse) {
        // A comment first: it sends the response headers now, so the client knows it is connected.
        Multi<OutboundSseEvent> connected = Multi.createFrom().item(sse.newEventBuilder().comment(CONNECTED).build());
        return Multi.createBy().concatenating().streams(connected, articles.onOverflow().buffer(CLIENT_BUFFER).map(article -> sse.newEventBuilder()
                .id(String.valueOf(article.id())).name("article-created")
                .mediaType(MediaType.APPLICATION_JSON_TYPE).data(Article.class, article).build()));
    }

    /** At shutdown every stream ends, so that its client reconnects at once, to a pod that stays. */
    void endStreams(@Observes ShutdownEvent event) {
        articles.onComplete();
    }

    @Incoming("articles-created")
    public void onArticleCreated(Article article) {
        if (seen.firstTime(article.id())) {
            articles.onNext(article);
        }
    }
}
