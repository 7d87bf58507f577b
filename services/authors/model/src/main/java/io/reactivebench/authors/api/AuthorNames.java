package io.reactivebench.authors.api;

/** What a name to look up may be, in every build: as long as the column allows, and no control characters. */
public final class AuthorNames {
    public static final int MAX_LENGTH = 100;
    /**
     * Visible text, for names and titles alike: not blank (at least one character that Java's
     * Character.isWhitespace does not count as space) and no control character (PostgreSQL text cannot hold
     * NUL, and no title or name needs a tab or a line break). One pattern in hexadecimal escapes, which Java
     * and the OpenAPI document's JSON Schema read alike.
     */
    public static final String VISIBLE_TEXT = "[^\\x00-\\x1F\\x7F]*[^\\x00-\\x20\\x7F\\u1680\\u2000-\\u200A\\u2028\\u2029\\u205F\\u3000][^\\x00-\\x1F\\x7F]*";
    public static final String NOT_VISIBLE_TEXT = "must contain a visible character and no control characters";

    private AuthorNames() {
    }
}
