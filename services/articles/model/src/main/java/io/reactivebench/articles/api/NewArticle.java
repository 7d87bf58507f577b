package io.reactivebench.articles.api;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import org.hibernate.validator.constraints.URL;

/** What a client sends to create an article. The same rules hold in articles and in web-api, v1 and v2. */
public record NewArticle(
        @NotBlank @Size(max = ArticleLimits.TITLE) String title,
        @NotBlank @Size(max = ArticleLimits.URL) @URL @Pattern(regexp = "https?://.+", message = "must be an http or https URL") String url,
        @NotBlank @Size(max = ArticleLimits.AUTHOR) String author) {
}
