"""SQL parity: the statements each build sent to PostgreSQL per web-api request, from pg_stat_statements
(reset before each measured run, read after it). The builds' SQL differs in text (Hibernate ORM writes its
own, the reactive client sends the project's), so the table shows each statement with its calls per request
in every build instead of claiming that they match; what should match is the number of statements per
request in each database.

Every build's outbox relay, measured or idle, polls its outbox a few times a second: those statements
follow the clock, not the requests, and are summed into one row of their own."""
import re

EXPLANATION = ("What each build sent to PostgreSQL, from pg_stat_statements (reset before each measured web-api "
               "run, read after it), in calls per web-api request over all those runs. Statement texts differ "
               "between builds (Hibernate ORM writes its own SQL; the reactive client sends the project's), so "
               "each is listed with its own counts; a dash means that build never sent it. The outbox relays' "
               "polls (every build's, measured or idle, a few times a second) follow the clock, not the "
               "requests: they are summed into a row of their own; their transactions send most of the BEGIN and "
               "COMMIT above.")
QUERY_WIDTH = 110


def normalized(query):
    """A statement's text on one line (pg_stat_statements already replaced the constants with $1, $2, …):
    what statements are told apart and classified by."""
    return re.sub(r"\s+", " ", query).strip()


def shortened(text):
    """A statement as a table shows it: cut at QUERY_WIDTH."""
    return text if len(text) <= QUERY_WIDTH else text[:QUERY_WIDTH - 1] + "…"


def per_request(runs):
    """{version: {(database, statement): calls per web-api request}} over the runs that read web-api and
    have pg_stat_statements figures; versions without such runs are left out."""
    found = {}
    for version in sorted({run["version"] for run in runs}):
        mine = [run for run in runs if run["version"] == version and run.get("sql") is not None
                and run.get("target", "web-api") == "web-api"]
        requests = sum(run["requests_served"].get("web-api") or 0 for run in mine)
        if not requests:
            continue
        calls = {}
        for run in mine:
            for entry in run["sql"]:
                key = (entry["database"], normalized(entry["query"]))
                calls[key] = calls.get(key, 0) + entry["calls"]
        found[version] = {key: count / requests for key, count in calls.items()}
    return found


def background(key):
    """The outbox relays' statements: the only ones that touch the outbox table (article_events) on a
    read-only load."""
    return "article_events" in key[1].lower()


def control(key):
    """Transaction control and session settings: listed, but not statements that read or write data (on a
    read-only load the relays' transactions send most of them)."""
    return re.match(r"(begin|commit|rollback|set|show)\b", key[1], re.IGNORECASE) is not None


TOTAL = "statements that read or write data, per request (the rows above but BEGIN, COMMIT, SET)"
EVERY = ("every statement sent, per request (BEGIN, COMMIT and SET included: transactions cost round trips too; the "
         "relays' own BEGIN and COMMIT among them, as many as their polls below)")


TRANSACTIONS = "transactions the requests opened, per request (their BEGINs: the relays' polls left out)"


def statements(calls, database, with_control=False):
    """Statements per request a build's requests sent to one database: those that read or write data, and with
    with_control transaction control too (BEGIN, COMMIT, SET); never the relays' polls (they run by the clock)."""
    return sum(count for key, count in calls.items()
               if key[0] == database and not background(key) and (with_control or not control(key)))


def transactions(calls, database):
    """Transactions per request the requests opened in one database: its BEGINs less the outbox relays' polls (each
    poll locks the pending events in a transaction of its own; a poll's count is its SELECT's); every build's relays
    poll the shared database whichever build is loaded, so a short run sees several polls per request."""
    begins = sum(count for key, count in calls.items() if key[0] == database and re.match(r"begin\b", key[1], re.I))
    polls = sum(count for key, count in calls.items()
                if key[0] == database and background(key) and re.match(r"select\b", key[1], re.I))
    return max(0.0, begins - polls)


def as_data(found):
    """per_request's figures as a bench's document keeps them: {version: {"statements": [{database, statement,
    calls_per_request}], "data_statements_per_request": {database: the total}}}."""
    return {version: {"statements": [{"database": database, "statement": statement, "calls_per_request": count}
                                     for (database, statement), count in calls.items()],
                      "data_statements_per_request": {database: statements(calls, database)
                                                      for database in sorted({key[0] for key in calls})},
                      "every_statement_per_request": {database: statements(calls, database, with_control=True)
                                                      for database in sorted({key[0] for key in calls})},
                      "transactions_per_request": {database: transactions(calls, database)
                                                   for database in sorted({key[0] for key in calls})}}
            for version, calls in found.items()}


def from_data(data):
    return {version: {(e["database"], e["statement"]): e["calls_per_request"] for e in entries["statements"]}
            for version, entries in (data or {}).items()}


def rows(data):
    """The SQL parity table (a header and rows) of a bench's document's figures, or None without pg_stat_statements
    figures."""
    found = from_data(data)
    if not found:
        return None
    versions = list(found)
    table = [["database", "statement"] + [f"{v} calls per request" for v in versions]]
    keys = sorted({key for calls in found.values() for key in calls},
                  key=lambda key: (key[0], -max(found[v].get(key, 0) for v in versions), key[1]))
    for database in sorted({key[0] for key in keys}):
        listed = [key for key in keys if key[0] == database and not background(key)]
        for key in listed:
            table.append([database, f"`{shortened(key[1])}`"] + [cell(found[v].get(key)) for v in versions])
        table.append([database, f"**{TOTAL}**"] + [f"**{statements(found[v], database):.2f}**" for v in versions])
        table.append([database, f"**{EVERY}**"] + [f"**{statements(found[v], database, True):.2f}**" for v in versions])
        table.append([database, TRANSACTIONS] + [f"{transactions(found[v], database):.2f}" for v in versions])
        if any(background(key) for key in keys if key[0] == database):
            table.append([database, "outbox relays' polls, all builds (by the clock, not by request)"] +
                         [f"{sum(c for key, c in found[v].items() if key[0] == database and background(key)):.3f}"
                          for v in versions])
    return table


def cell(value):
    return "–" if value is None else f"{value:.2f}"
