package io.reactivebench.articles.api;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import org.hibernate.validator.constraints.URL;

/** What a client sends to create an article. The same rules hold in articles and in web-api, v1 and v2. */
public record NewArticle(
        @NotBlank @Size(max = ArticleLimits.TITLE) @Pattern(regexp = NO_CONTROL_CHARACTERS, message = CONTROL_CHARACTERS) String title,
        @NotBlank @Size(max = ArticleLimits.URL) @URL
        @Pattern(regexp = "https?://[^\\p{Cntrl}\\s]+", message = "must be an http or https URL") String url,
        @NotBlank @Size(max = ArticleLimits.AUTHOR) @Pattern(regexp = NO_CONTROL_CHARACTERS, message = CONTROL_CHARACTERS) String author) {

    // PostgreSQL text cannot hold NUL, and no title or name needs a tab, a line break or another control character.
    static final String NO_CONTROL_CHARACTERS = "[^\\p{Cntrl}]*";
    static final String CONTROL_CHARACTERS = "must not contain control characters";
}
