-- Authors are looked up by name only, so the unique constraint doubles as the look-up index.
CREATE TABLE authors (
    id      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name    VARCHAR(100) NOT NULL UNIQUE,
    twitter VARCHAR(200),
    blog    VARCHAR(500)
);
