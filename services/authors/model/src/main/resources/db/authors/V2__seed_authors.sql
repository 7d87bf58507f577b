-- Five authors: the seed articles have two each, so one web-api request makes exactly five look-ups.
INSERT INTO authors (name, twitter, blog) VALUES
    ('Niklas Heidloff',     '@nheidloff',    'http://heidloff.net'),
    ('Harald Uebele',       '@harald_u',     'https://haralduebele.github.io'),
    ('Thomas Suedbroecker', '@tsuedbroecker','https://suedbroecker.net'),
    ('Grace Hopper',        '@gracehopper',  'https://example.org/grace'),
    ('Ada Lovelace',        '@adalovelace',  'https://example.org/ada');
