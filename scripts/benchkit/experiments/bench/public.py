"""What public measurements say this request's floor is: facts gathered from public runs on other hardware (rough,
never measured here), for the floor measured here (v0) to be set against. The request's work: seven HTTP exchanges
(one in, one to articles, five to authors), six statements, about 2 KB of JSON. The docs render these with setting
markers; the table that sets them against the floor renders from a bench's summary (tables.public_table)."""

# HttpArena (April 2026): a plain GET's server-side CPU, microseconds per exchange.
HTTPARENA_QUARKUS_JVM_US = (36, 38)
HTTPARENA_FASTEST_NATIVE_US = (15, 23)
# TechEmpower's continuous run (2026-02-20), vertx-postgres, one query per request: microseconds per exchange at most,
# the application's side.
TECHEMPOWER_VERTX_POSTGRES_US = 46
# pgbench, select-only: microseconds of the server's CPU per statement.
PGBENCH_SELECT_US = 17
# What those make of this request's work: CPU milliseconds per answer, low and high.
ESTIMATE_BEST_JVM_MS = (0.5, 0.8)
ESTIMATE_NATIVE_MS = (0.3, 0.4)
