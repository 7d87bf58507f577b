package io.reactivebench.authors.repository;

import io.quarkus.hibernate.orm.panache.PanacheRepository;
import io.reactivebench.authors.api.Author;
import io.reactivebench.jdbc.Read;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;

/** Hibernate ORM Panache over JDBC: the calling thread waits for the database. */
@ApplicationScoped
public class AuthorRepository implements PanacheRepository<AuthorEntity> {

    // A read (jdbc.reads: without a transaction, as shipped)
    @Read
    public Optional<Author> findByName(String name) {
        return find("name", name).firstResultOptional().map(AuthorEntity::toAuthor);
    }
}
