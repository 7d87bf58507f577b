from benchkit.core import sql


def run(version, requests, statements, target="web-api"):
    return {"version": version, "target": target, "requests_served": {"web-api": requests},
            "sql": [{"database": db, "query": q, "calls": c, "rows": c} for db, q, c in statements]}


V1_READ = "select a1_0.id,a1_0.title from articles a1_0 order by a1_0.published_at desc\n  fetch first $1 rows only"
V2_READ = "SELECT id, title FROM articles ORDER BY published_at DESC LIMIT $1"
POLL = "SELECT id FROM article_events ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED"


def test_each_statement_per_request_with_the_relays_polls_apart():
    runs = [run("v1", 1000, [("articles", V1_READ, 1000), ("authors", "select … where name=$1", 5000),
                             ("articles", POLL, 4), ("articles", "BEGIN", 4)]),
            run("v1", 1000, [("articles", V1_READ, 1000), ("authors", "select … where name=$1", 5000)]),
            run("v2", 2000, [("articles", V2_READ, 2000), ("authors", "SELECT … WHERE name = $1", 10000),
                             ("articles", POLL, 6)]),
            run("v2", 500, [("articles", "SELECT 1", 500)], target="articles")]  # a hop run: not web-api's
    table = sql.rows(sql.as_data(sql.per_request(runs)))
    assert table[0] == ["database", "statement", "v1 calls per request", "v2 calls per request"]
    by_statement = {row[1]: row[2:] for row in table[1:] if row[0] == "articles"}
    assert by_statement["`" + " ".join(V1_READ.split()) + "`"] == ["1.00", "–"]
    assert by_statement[f"`{V2_READ}`"] == ["–", "1.00"]
    assert "`SELECT 1`" not in by_statement
    assert by_statement["**statements that read or write data, per request (the rows above but BEGIN, COMMIT, SET)**"] == ["**1.00**", "**1.00**"]
    assert by_statement["outbox relays' polls, all builds (by the clock, not by request)"] == ["0.002", "0.003"]
    authors = {row[1]: row[2:] for row in table[1:] if row[0] == "authors"}
    assert not any(name.startswith("outbox") for name in authors)
    assert authors["**statements that read or write data, per request (the rows above but BEGIN, COMMIT, SET)**"] == ["**5.00**", "**5.00**"]


def test_a_build_that_sends_more_shows_it():
    runs = [run("v1", 100, [("articles", V1_READ, 100), ("articles", "select count(*) from articles", 100)]),
            run("v2", 100, [("articles", V2_READ, 100)])]
    totals = [row for row in sql.rows(sql.as_data(sql.per_request(runs))) if row[1].startswith("**statements")][0]
    assert totals[2:] == ["**2.00**", "**1.00**"]


def test_no_figures_no_table():
    assert sql.rows(sql.as_data(sql.per_request([{**run("v1", 100, []), "sql": None}]))) is None
    assert sql.shortened("x" * 200).endswith("…") and len(sql.shortened("x" * 200)) == sql.QUERY_WIDTH


def test_a_long_relay_statement_is_told_by_its_whole_text_not_the_shown_part():
    # One JOIN FETCH names the outbox table (article_events) only after the articles' columns.
    relay = "select " + ", ".join(f"a1_0.column_{i}" for i in range(20)) + " from article_events e1_0 join articles a1_0"
    runs = [run("v1", 100, [("articles", V1_READ, 100), ("articles", relay, 40)]),
            run("v2", 100, [("articles", V2_READ, 100)])]
    totals = [row for row in sql.rows(sql.as_data(sql.per_request(runs))) if row[1].startswith("**statements")][0]
    assert totals[2:] == ["**1.00**", "**1.00**"]


def test_transactions_per_request_leave_the_relays_polls_out():
    # a short run: 20 requests, 9 relay polls (each in a transaction of its own) in the shared database
    transactional = run("v1", 20, [("articles", V1_READ, 20), ("articles", "BEGIN", 29), ("articles", POLL, 9),
                                   ("authors", "select … where name=$1", 100), ("authors", "BEGIN", 100)])
    autocommit = run("v3", 20, [("articles", V1_READ, 20), ("articles", "BEGIN", 9), ("articles", POLL, 9),
                                ("authors", "select … where name=$1", 100)])
    data = sql.as_data(sql.per_request([transactional, autocommit]))
    assert data["v1"]["transactions_per_request"] == {"articles": 1.0, "authors": 5.0}
    assert data["v3"]["transactions_per_request"] == {"articles": 0.0, "authors": 0.0}
