-- The trace an article-created event belongs to (a W3C traceparent; NULL when tracing is off): the relay publishes
-- the event as a child of the POST that stored it, so the POST's trace goes on through Kafka (StoredTraceContext).
ALTER TABLE article_events ADD COLUMN trace_parent TEXT;
