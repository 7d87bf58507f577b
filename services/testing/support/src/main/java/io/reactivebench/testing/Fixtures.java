package io.reactivebench.testing;

import java.util.List;
import java.util.Map;

/**
 * The seed data (see the Flyway seed migrations of authors and articles), as tests expect to read it.
 * One place, so that the contracts and the web-api stand-ins agree.
 */
public final class Fixtures {
    public static final List<Map<String, String>> AUTHORS = List.of(
            author("Niklas Heidloff", "@nheidloff", "http://heidloff.net"),
            author("Harald Uebele", "@harald_u", "https://haralduebele.github.io"),
            author("Thomas Suedbroecker", "@tsuedbroecker", "https://suedbroecker.net"),
            author("Grace Hopper", "@gracehopper", "https://example.org/grace"),
            author("Ada Lovelace", "@adalovelace", "https://example.org/ada"));

    private Fixtures() {
    }

    /** The ten seed articles as the articles service lists them: newest first, two per author. */
    public static List<Map<String, Object>> newestArticles() {
        List<Map<String, Object>> articles = new java.util.ArrayList<>();
        for (int n = 0; n < 10; n++) {
            long id = 10 - n;
            articles.add(Map.of("id", id, "title", "Seed article " + id, "url", "https://example.org/articles/" + id,
                    "author", authorOfNewest(n), "creationDate", "2020-01-01T10:0" + (9 - n) + ":00Z"));
        }
        return articles;
    }

    public static Map<String, String> author(String name) {
        return AUTHORS.stream().filter(a -> a.get("name").equals(name)).findFirst().orElseThrow();
    }

    /** The author of the n-th newest seed article: two per author, newest first. */
    public static String authorOfNewest(int n) {
        return AUTHORS.get(AUTHORS.size() - 1 - n / 2).get("name");
    }

    private static Map<String, String> author(String name, String twitter, String blog) {
        return Map.of("name", name, "twitter", twitter, "blog", blog);
    }
}
