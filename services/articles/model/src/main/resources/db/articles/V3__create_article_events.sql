-- The transactional outbox: an article and its article-created event are stored in one transaction,
-- so a 201 always has its event, even when Kafka is down. The relay of each build publishes pending
-- events and deletes them once Kafka acknowledged them (at least once: consumers drop duplicates by id).
CREATE TABLE article_events (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    article_id BIGINT NOT NULL REFERENCES articles (id)
);
