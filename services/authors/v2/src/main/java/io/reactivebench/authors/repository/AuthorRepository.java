package io.reactivebench.authors.repository;

import io.reactivebench.authors.api.Author;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

/** The Vert.x reactive Postgres client with a prepared statement: no thread waits for the database. */
@ApplicationScoped
public class AuthorRepository {
    private static final String FIND_BY_NAME = "SELECT name, twitter, blog FROM authors WHERE name = $1";

    private final Pool client;

    public AuthorRepository(Pool client) {
        this.client = client;
    }

    public Uni<Author> findByName(String name) {
        return client.preparedQuery(FIND_BY_NAME).execute(Tuple.of(name))
                .map(rows -> rows.rowCount() == 0 ? null : toAuthor(rows.iterator().next()));
    }

    private static Author toAuthor(Row row) {
        return new Author(row.getString("name"), row.getString("twitter"), row.getString("blog"));
    }
}
