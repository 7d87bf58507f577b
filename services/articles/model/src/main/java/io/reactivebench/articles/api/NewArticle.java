package io.reactivebench.articles.api;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.hibernate.validator.constraints.URL;

/**
 * What a client sends to create an article. The same rules hold in articles and in web-api, v1 and v2.
 * No other field is accepted (quarkus.jackson.fail-on-unknown-properties), and the OpenAPI document says so.
 */
@Schema(additionalProperties = Schema.False.class)
public record NewArticle(
        @NotBlank @Size(max = ArticleLimits.TITLE) @Pattern(regexp = NO_CONTROL_CHARACTERS, message = CONTROL_CHARACTERS) String title,
        @NotBlank @Size(max = ArticleLimits.URL) @URL
        @Pattern(regexp = "https?://[^\\x00-\\x20\\x7F]+", message = "must be an http or https URL") String url,
        @NotBlank @Size(max = ArticleLimits.AUTHOR) @Pattern(regexp = NO_CONTROL_CHARACTERS, message = CONTROL_CHARACTERS) String author) {

    // PostgreSQL text cannot hold NUL, and no title or name needs a tab, a line break or another control character.
    // Written with \x escapes (not \p{Cntrl}), so that the OpenAPI document's JSON Schema pattern means the same.
    static final String NO_CONTROL_CHARACTERS = "[^\\x00-\\x1F\\x7F]*";
    static final String CONTROL_CHARACTERS = "must not contain control characters";
}
