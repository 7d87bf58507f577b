package io.reactivebench.articles.api;

import static io.reactivebench.authors.api.AuthorNames.NOT_VISIBLE_TEXT;
import static io.reactivebench.authors.api.AuthorNames.VISIBLE_TEXT;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * What a client sends to create an article. The same rules hold in articles and in web-api, in every build.
 * No other field is accepted (quarkus.jackson.fail-on-unknown-properties), and the OpenAPI document says so.
 */
@Schema(additionalProperties = Schema.False.class)
public record NewArticle(
        @NotNull @Size(max = ArticleLimits.TITLE) @Pattern(regexp = VISIBLE_TEXT, message = NOT_VISIBLE_TEXT) String title,
        @NotNull @Size(max = ArticleLimits.URL) @Pattern(regexp = HTTP_URL, message = NOT_HTTP_URL) String url,
        @NotNull @Size(max = ArticleLimits.AUTHOR) @Pattern(regexp = VISIBLE_TEXT, message = NOT_VISIBLE_TEXT) String author) {

    /**
     * An http(s) URL in ASCII (anything else percent-encoded, as RFC 3986 has it): a host name or address,
     * an optional port, then any printable characters. One pattern instead of Hibernate's @URL, whose
     * java.net.URL parsing no JSON Schema can describe, so that the document allows exactly what is accepted.
     */
    static final String HTTP_URL = "https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?([/?#][\\x21-\\x7E]*)?";
    static final String NOT_HTTP_URL = "must be an http or https URL";
}
