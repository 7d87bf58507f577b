"""Latency added to a hop between the services, as data: which hop, how many milliseconds, how much jitter. What
sets it on the proxy and checks it there is core.latency's; a document keeps a setting as this data, and a report
reads it without reaching the proxy.

    authors    web-api to authors: each author look-up waits the setting once
    database   articles and authors to PostgreSQL: each query waits it once"""
import dataclasses

HOPS = ("authors", "database")


@dataclasses.dataclass(frozen=True)
class Setting:
    """Latency added to one hop: milliseconds, ± jitter milliseconds (uniform, as Toxiproxy draws it)."""
    hop: str
    ms: float
    jitter_ms: float = 0.0

    @property
    def label(self):
        return f"{self.hop} +{self.ms:g} ms" + (f" ±{self.jitter_ms:g}" if self.jitter_ms else "")
