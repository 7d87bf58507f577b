CREATE TABLE articles (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    title         VARCHAR(200) NOT NULL,
    url           VARCHAR(500) NOT NULL,
    author        VARCHAR(100) NOT NULL,
    creation_date TIMESTAMPTZ  NOT NULL
);

-- "The newest N" reads this index backwards and stops after N rows: no sort, no full scan,
-- however many articles there are. id breaks ties between articles created in the same microsecond.
CREATE INDEX articles_newest_idx ON articles (creation_date DESC, id DESC);
