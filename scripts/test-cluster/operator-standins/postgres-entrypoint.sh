#!/bin/sh
# What the Zalando operator and Spilo would provide, for the test node: a PostgreSQL whose databases
# articles and authors are owned by users of the same names, with the passwords of the Secrets the
# operator would have written (ARTICLES_PASSWORD, AUTHORS_PASSWORD), and which, like Spilo, rejects every
# connection from another host that is not TLS (pg_hba: hostnossl … reject).
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  initdb -D "$PGDATA" -U postgres -E UTF8 --auth-local=trust --auth-host=reject >/dev/null
  # Single-user mode: the roles and databases exist before the server accepts its first connection.
  printf "CREATE ROLE articles LOGIN PASSWORD '%s';\nCREATE DATABASE articles OWNER articles;\nCREATE ROLE authors LOGIN PASSWORD '%s';\nCREATE DATABASE authors OWNER authors;\n" \
    "$ARTICLES_PASSWORD" "$AUTHORS_PASSWORD" | postgres --single -D "$PGDATA" postgres >/dev/null
  cat >"$PGDATA/pg_hba.conf" <<'HBA'
local     all all           trust
hostnossl all all all       reject
hostssl   all all all       scram-sha-256
HBA
fi
# The key must be private to this user: copied out of the read-only Secret volume (umask: mode 600; the
# image has sh, cat and sleep, not chmod).
cat /tls/tls.crt >"$PGDATA/server.crt"
(umask 077 && cat /tls/tls.key >"$PGDATA/server.key")
exec postgres -D "$PGDATA" -c listen_addresses='*' -c ssl=on -c max_connections=200 \
  -c password_encryption=scram-sha-256 -c shared_buffers=128MB
