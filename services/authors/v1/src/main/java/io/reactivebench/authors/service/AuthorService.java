package io.reactivebench.authors.service;

import io.reactivebench.authors.api.Author;
import io.reactivebench.authors.repository.AuthorRepository;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;

@ApplicationScoped
public class AuthorService {
    private final AuthorRepository repository;

    public AuthorService(AuthorRepository repository) {
        this.repository = repository;
    }

    public Optional<Author> findByName(String name) {
        return repository.findByName(name.strip());
    }
}
