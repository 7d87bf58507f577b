package io.reactivebench.authors.repository;

import io.quarkus.hibernate.orm.panache.PanacheRepository;
import io.reactivebench.authors.api.Author;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import java.util.Optional;

/** Hibernate ORM Panache over JDBC: the calling thread waits for the database. */
@ApplicationScoped
public class AuthorRepository implements PanacheRepository<AuthorEntity> {

    // A transaction of its own: the session lives as long as it does (request-scoped sessions are off).
    @Transactional
    public Optional<Author> findByName(String name) {
        return find("name", name).firstResultOptional().map(AuthorEntity::toAuthor);
    }
}
