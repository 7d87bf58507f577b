package io.reactivebench.articles.repository;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import io.reactivebench.articles.api.Article;
import io.reactivebench.articles.api.NewArticle;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** The articles table (see V1__create_articles.sql), mapped for Hibernate ORM. */
@Entity
@Table(name = "articles")
public class ArticleEntity extends PanacheEntityBase {
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;
    public String title;
    public String url;
    public String author;
    @Column(name = "creation_date")
    public Instant creationDate;

    static ArticleEntity of(NewArticle article, Instant creationDate) {
        ArticleEntity entity = new ArticleEntity();
        entity.title = article.title();
        entity.url = article.url();
        entity.author = article.author();
        entity.creationDate = creationDate;
        return entity;
    }

    public Article toArticle() {
        return new Article(id, title, url, author, creationDate);
    }
}
