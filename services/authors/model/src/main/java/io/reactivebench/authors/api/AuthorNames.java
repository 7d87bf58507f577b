package io.reactivebench.authors.api;

/** What a name to look up may be, in v1 and v2: as long as the column allows, and no control characters. */
public final class AuthorNames {
    public static final int MAX_LENGTH = 100;
    /**
     * Not blank and no control character (PostgreSQL text cannot hold NUL): the same rule as an article's
     * author, in escapes that Java and the OpenAPI document's JSON Schema read alike.
     */
    public static final String VISIBLE_TEXT = "[^\\x00-\\x1F\\x7F]*[^\\x00-\\x20\\x7F\\u1680\\u2000-\\u200A\\u2028\\u2029\\u205F\\u3000][^\\x00-\\x1F\\x7F]*";
    public static final String NOT_VISIBLE_TEXT = "must contain a visible character and no control characters";

    private AuthorNames() {
    }
}
