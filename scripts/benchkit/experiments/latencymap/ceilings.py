"""The latency map's ceilings: each build's highest rate at a row by Little's law, from the sizes of the pools a
request holds while it waits (in flight = rate × time held), and what a sweep chose for them. The map keeps its pools
and this rule beside its cells, so that its predictions can be computed again from the map alone."""
import dataclasses

from benchkit import VERSIONS
from benchkit.core import buildsconf
from benchkit.core.tunables import LATENCY_SETTINGS, SETTINGS, Setting, environments
from benchkit.schemas.latencymap import predict
from benchkit.schemas.sweep import runs_of

LOOKUPS = 5  # author look-ups per request with the seed data (the equal-work check proves it every run)


def size(prop, service, default):
    """What a build runs with for one property (size(version, tuned)): tuned's ({version: {property: value}}, a
    sweep's choice), else what it ships with (application.properties, the config modules, else the default: the same
    reader make sweep uses)."""
    return lambda version, tuned: (tuned.get(version, {}).get(prop)
                                   or Setting("", prop, (service,), (), default).current(version))


def tuned(sweep):
    """{version: {service: {variable: value}}, {version: {property: value}}: the values a sweep (its sweep.json) chose
    for each build, as the services' environment and as the properties the bounds read. A build the sweep did not
    cover runs as it ships."""
    environment, properties = {}, {}
    for version, result in sweep["builds"].items():
        settings = [s for group in (SETTINGS, LATENCY_SETTINGS) for s in group.get(version, ()) if s.name in result["chosen"]]
        settings = list({s.name: s for s in settings}.values())
        environment[version] = environments(settings, result["chosen"])
        properties[version] = {prop: result["chosen"][s.name] for s in settings for prop in (s.property, *s.also)}
    return environment, properties


@dataclasses.dataclass(frozen=True)
class Bound:
    """Something that holds one unit per request (or per look-up: LOOKUPS units) for at least the added latency
    once per `holds` latencies: at most size / (units × holds × latency) requests/s."""
    name: str
    hop: str
    versions: tuple
    size: object  # (version, tuned) -> its size
    units: int = 1
    holds: int = 1


BOUNDS = (
    # the authors hop: every request waits once (the look-ups run in parallel), each look-up once
    Bound("web-api's admission (requests in flight)", "authors", VERSIONS, lambda *_: buildsconf.max_in_flight()),
    Bound("web-api's worker threads", "authors", ("v1",), size("quarkus.thread-pool.max-threads", "web-api", 200)),
    Bound("web-api's look-up threads", "authors", ("v1",),
          size("web-api.author-lookups.max-concurrency", "web-api", 100), LOOKUPS),
    Bound("web-api's connections to authors", "authors", VERSIONS,
          size("quarkus.rest-client.authors.connection-pool-size", "web-api", 50), LOOKUPS),
    # the database hop: a request waits for articles' query, then for the look-ups' queries (in parallel)
    Bound("web-api's admission (requests in flight)", "database", VERSIONS, lambda *_: buildsconf.max_in_flight(), 1, 2),
    Bound("authors' admission (look-ups in flight)", "database", VERSIONS, lambda *_: buildsconf.max_in_flight(), LOOKUPS),
    Bound("authors' worker threads", "database", ("v1",), size("quarkus.thread-pool.max-threads", "authors", 200), LOOKUPS),
    Bound("authors' JDBC connections", "database", ("v1", "v3"),
          size("quarkus.datasource.jdbc.max-size", "authors", 20), LOOKUPS),
    Bound("articles' JDBC connections", "database", ("v1", "v3"), size("quarkus.datasource.jdbc.max-size", "articles", 20)),
    # Quarkus' reactive datasource is a Pool, which lends a connection per query: its pipelining limit never comes
    # into play (a map's slow-database row measured v2 at the bound of 5 connections held per query, not above it)
    Bound("authors' reactive connections", "database", ("v2",),
          size("quarkus.datasource.reactive.max-size", "authors", 20), LOOKUPS),
    Bound("articles' reactive connections", "database", ("v2",), size("quarkus.datasource.reactive.max-size", "articles", 20)),
)


def pools(version, tuned=None):
    """{bound's name: its size} of a build (tuned: {version: {property: value}}, a sweep's choice, else as it
    ships)."""
    return {bound.name: bound.size(version, tuned or {}) for bound in BOUNDS if version in bound.versions}


def rule():
    """How each bound holds, as data a map keeps beside its pools: with both, its predictions can be computed again
    from the map alone, by the rule of the code that measured it."""
    return [{"name": bound.name, "hop": bound.hop, "units": bound.units, "holds": bound.holds} for bound in BOUNDS]


def predicted_ceiling(version, row, tuned=None):
    """A build's ceiling at a row (a delays.Setting) by Little's law, from what it runs with (see predict)."""
    return predict(pools(version, tuned), rule(), dataclasses.asdict(row))


def sweep_kept(sweep):
    """What the map keeps of the sweep that chose its settings: each candidate's runs, the choice, what shipped."""
    fields = ("setting", "property", "value", "repeat", "complete_per_s", "p99", "failed_pct", "degraded",
              "latency_observed")
    return {version: {"commit": result.get("commit"), "latency": result.get("latency"), "shipped": result["shipped"],
                      "chosen": result["chosen"],
                      "runs": [{k: run[k] for k in fields if k in run} for run in runs_of(sweep, version)]}
            for version, result in sweep["builds"].items()}


