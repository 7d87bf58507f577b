"""What public measurements say this request's floor is: facts gathered from public runs on other hardware (rough,
never measured here), for the floor measured here (v0) to be set against, and the estimate derived from them. The
request's work: seven HTTP exchanges (one in, one to articles, five to authors), six statements, about 2 KB of JSON.
The docs render these with setting markers; the table that sets them against the floor renders from a bench's summary
(tables.public_table)."""

# HttpArena (April 2026): a plain GET's server-side CPU, microseconds per exchange.
HTTPARENA_QUARKUS_JVM_US = (36, 38)
HTTPARENA_FASTEST_NATIVE_US = (15, 23)
# TechEmpower's continuous run (2026-02-20), vertx-postgres, one query per request: microseconds per exchange at most,
# the application's side.
TECHEMPOWER_VERTX_POSTGRES_US = 46
# pgbench, select-only: microseconds of the server's CPU per statement.
PGBENCH_SELECT_US = 17

# The request's work by what costs CPU. Each exchange has two sides, a client and a server, but the one coming in from
# the load generator, whose client side is the generator's (kept apart): 1 + 2 x 6 = 13 sides in the services.
EXCHANGES = 1 + 1 + 5
SIDES = 1 + 2 * (EXCHANGES - 1)
STATEMENTS = 6


def query_client_us():
    """What a statement costs its client, the application: TechEmpower's exchange with one query less HttpArena's plain
    GET of a JVM stack (its slower end), as no public run measures a client alone."""
    return TECHEMPOWER_VERTX_POSTGRES_US - max(HTTPARENA_QUARKUS_JVM_US)


def estimate(side_us):
    """CPU milliseconds per answer, (low, high), from a stack's microseconds per HTTP side (HttpArena's server side; a
    client side taken to cost as much: the same codec, the same system calls), SIDES of them, and STATEMENTS
    statements, each PostgreSQL's (pgbench) and its client's (query_client_us). JSON beyond a plain GET's is left out:
    no public run prices 2 KB of it, so the estimate is a floor of its own."""
    return tuple(round((SIDES * us + STATEMENTS * (PGBENCH_SELECT_US + query_client_us())) / 1000, 2)
                 for us in side_us)


# What those make of this request's work: CPU milliseconds per answer, low and high.
ESTIMATE_BEST_JVM_MS = estimate(HTTPARENA_QUARKUS_JVM_US)
ESTIMATE_NATIVE_MS = estimate(HTTPARENA_FASTEST_NATIVE_US)
