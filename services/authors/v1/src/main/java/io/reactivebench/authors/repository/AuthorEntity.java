package io.reactivebench.authors.repository;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import io.reactivebench.authors.api.Author;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The authors table (see V1__create_authors.sql), mapped for Hibernate ORM. */
@Entity
@Table(name = "authors")
public class AuthorEntity extends PanacheEntityBase {
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;
    public String name;
    public String twitter;
    public String blog;

    public Author toAuthor() {
        return new Author(name, twitter, blog);
    }
}
