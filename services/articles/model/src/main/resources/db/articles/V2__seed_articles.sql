-- Ten articles, two per seed author (see the authors service), one minute apart.
INSERT INTO articles (title, url, author, creation_date) VALUES
    ('Blue Cloud Mirror',                        'http://heidloff.net/article/blue-cloud-mirror',          'Niklas Heidloff',     TIMESTAMPTZ '2020-01-01 10:00:00+00'),
    ('Reactive Endpoints with Quarkus',          'http://heidloff.net/article/reactive-endpoints-quarkus', 'Niklas Heidloff',     TIMESTAMPTZ '2020-01-01 10:01:00+00'),
    ('Istio and Kubernetes on a Laptop',         'https://haralduebele.github.io/istio-minikube',          'Harald Uebele',       TIMESTAMPTZ '2020-01-01 10:02:00+00'),
    ('Knative Serving Explained',                'https://haralduebele.github.io/knative-serving',         'Harald Uebele',       TIMESTAMPTZ '2020-01-01 10:03:00+00'),
    ('Operators for Beginners',                  'https://suedbroecker.net/operators-for-beginners',       'Thomas Suedbroecker', TIMESTAMPTZ '2020-01-01 10:04:00+00'),
    ('Debugging Microservices on Kubernetes',    'https://suedbroecker.net/debugging-microservices',       'Thomas Suedbroecker', TIMESTAMPTZ '2020-01-01 10:05:00+00'),
    ('The First Compiler',                       'https://example.org/grace/first-compiler',               'Grace Hopper',        TIMESTAMPTZ '2020-01-01 10:06:00+00'),
    ('Nanoseconds Made Visible',                 'https://example.org/grace/nanoseconds',                  'Grace Hopper',        TIMESTAMPTZ '2020-01-01 10:07:00+00'),
    ('Notes on the Analytical Engine',           'https://example.org/ada/analytical-engine',              'Ada Lovelace',        TIMESTAMPTZ '2020-01-01 10:08:00+00'),
    ('Poetical Science',                         'https://example.org/ada/poetical-science',               'Ada Lovelace',        TIMESTAMPTZ '2020-01-01 10:09:00+00');
