package io.reactivebench.articles.repository;

import io.reactivebench.articles.outbox.ArticleCreated;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.stream.StreamSupport;

/** The outbox of article-created events, read by the relay inside its transaction. */
@ApplicationScoped
public class ArticleEventRepository {
    // SKIP LOCKED: another relay (another replica) takes the next events instead of waiting.
    private static final String LOCK_PENDING = "SELECT e.id AS event_id, e.trace_parent, a.id, a.title, a.url, a.author, a.creation_date"
            + " FROM article_events e JOIN articles a ON a.id = e.article_id ORDER BY e.id LIMIT $1 FOR UPDATE OF e SKIP LOCKED";
    private static final String DELETE = "DELETE FROM article_events WHERE id = ANY($1)";

    /** A pending event: its outbox id, and the event as it is published. */
    public record PendingEvent(long id, ArticleCreated event) {
    }

    /** Locks up to {@code limit} pending events, oldest first, until the transaction ends. */
    public Uni<List<PendingEvent>> lockPending(SqlConnection connection, int limit) {
        return connection.preparedQuery(LOCK_PENDING).execute(Tuple.of(limit))
                .map(rows -> StreamSupport.stream(rows.spliterator(), false).map(ArticleEventRepository::toEvent).toList());
    }

    public static List<ArticleCreated> publishedOf(List<PendingEvent> events) {
        return events.stream().map(PendingEvent::event).toList();
    }

    public Uni<Void> delete(SqlConnection connection, List<PendingEvent> events) {
        Long[] ids = events.stream().map(PendingEvent::id).toArray(Long[]::new);
        return connection.preparedQuery(DELETE).execute(Tuple.of(ids)).replaceWithVoid();
    }

    private static PendingEvent toEvent(Row row) {
        return new PendingEvent(row.getLong("event_id"), new ArticleCreated(ArticleRepository.toArticle(row), row.getString("trace_parent")));
    }
}
