package io.reactivebench.articles.repository;

import io.reactivebench.articles.api.Article;
import io.reactivebench.articles.api.NewArticle;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import io.reactivebench.tracing.StoredTraceContext;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.StreamSupport;

/** The Vert.x reactive Postgres client with prepared statements: no thread waits for the database. */
@ApplicationScoped
public class ArticleRepository {
    private static final String COLUMNS = "id, title, url, author, creation_date";
    // Matches the index articles_newest_idx: PostgreSQL reads it backwards and stops after amount rows.
    private static final String FIND_NEWEST = "SELECT " + COLUMNS + " FROM articles ORDER BY creation_date DESC, id DESC LIMIT $1";
    private static final String FIND_BY_ID = "SELECT " + COLUMNS + " FROM articles WHERE id = $1";
    private static final String INSERT = "INSERT INTO articles (title, url, author, creation_date) VALUES ($1, $2, $3, $4) RETURNING " + COLUMNS;
    private static final String INSERT_EVENT = "INSERT INTO article_events (article_id, trace_parent) VALUES ($1, $2)";

    private final Pool client;

    public ArticleRepository(Pool client) {
        this.client = client;
    }

    public Uni<List<Article>> findNewest(int amount) {
        return client.preparedQuery(FIND_NEWEST).execute(Tuple.of(amount)).map(ArticleRepository::toArticles);
    }

    public Uni<Article> findById(long id) {
        return client.preparedQuery(FIND_BY_ID).execute(Tuple.of(id)).map(rows -> first(toArticles(rows)));
    }

    /** Stores the article and its pending article-created event in one transaction. */
    public Uni<Article> persist(NewArticle newArticle, Instant creationDate) {
        String traceParent = StoredTraceContext.current(); // the request's, taken before the first statement's callbacks
        Tuple values = Tuple.of(newArticle.title(), newArticle.url(), newArticle.author(), creationDate.atOffset(ZoneOffset.UTC));
        return client.withTransaction(connection -> connection.preparedQuery(INSERT).execute(values)
                .map(rows -> first(toArticles(rows)))
                .call(article -> connection.preparedQuery(INSERT_EVENT).execute(Tuple.of(article.id(), traceParent))));
    }

    static List<Article> toArticles(RowSet<Row> rows) {
        return StreamSupport.stream(rows.spliterator(), false).map(ArticleRepository::toArticle).toList();
    }

    static Article toArticle(Row row) {
        return new Article(row.getLong("id"), row.getString("title"), row.getString("url"), row.getString("author"),
                row.getOffsetDateTime("creation_date").toInstant());
    }

    private static Article first(List<Article> articles) {
        return articles.isEmpty() ? null : articles.get(0);
    }
}
