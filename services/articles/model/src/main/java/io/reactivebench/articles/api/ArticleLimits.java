package io.reactivebench.articles.api;

/** Bounds shared by the API validation and the database columns (V1__create_articles.sql). */
public final class ArticleLimits {
    public static final int TITLE = 200;
    public static final int URL = 500;
    public static final int AUTHOR = io.reactivebench.authors.api.AuthorNames.MAX_LENGTH;
    public static final int DEFAULT_AMOUNT = 10;
    public static final int MAX_AMOUNT = 100;

    private ArticleLimits() {
    }
}
