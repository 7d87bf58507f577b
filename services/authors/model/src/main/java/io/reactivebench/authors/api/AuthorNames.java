package io.reactivebench.authors.api;

/** What a name to look up may be, in v1 and v2: as long as the column allows, and no control characters. */
public final class AuthorNames {
    public static final int MAX_LENGTH = 100;
    /** PostgreSQL text cannot hold NUL; no name needs another control character. Valid in Java and JSON Schema alike. */
    public static final String PRINTABLE = "[^\\x00-\\x1F\\x7F]*";
    public static final String NOT_PRINTABLE = "must not contain control characters";

    private AuthorNames() {
    }
}
