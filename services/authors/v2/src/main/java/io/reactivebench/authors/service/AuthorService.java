package io.reactivebench.authors.service;

import io.reactivebench.authors.api.Author;
import io.reactivebench.authors.repository.AuthorRepository;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

@ApplicationScoped
public class AuthorService {
    private final AuthorRepository repository;

    public AuthorService(AuthorRepository repository) {
        this.repository = repository;
    }

    /** The author, or a null item when there is none. */
    public Uni<Author> findByName(String name) {
        return repository.findByName(name.strip());
    }
}
