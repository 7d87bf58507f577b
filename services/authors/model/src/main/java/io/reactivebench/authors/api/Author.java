package io.reactivebench.authors.api;

/** An author as the authors service answers it, in every build alike. */
public record Author(String name, String twitter, String blog) {
}
