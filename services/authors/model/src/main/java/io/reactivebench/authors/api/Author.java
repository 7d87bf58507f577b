package io.reactivebench.authors.api;

/** An author as the authors service answers it, in v1 and v2 alike. */
public record Author(String name, String twitter, String blog) {
}
