#!/usr/bin/python3
"""The entrypoint of the test node's Spilo-compatible image (not Spilo): Patroni 4 and PostgreSQL 17 from Debian,
configured from the environment the Zalando postgres-operator gives the pods of a postgresql, the way Spilo's
own configuration script reads it: Kubernetes as Patroni's DCS (the leader labelled spilo-role=master, the master
Service's Endpoints kept by Patroni), the operator's SPILO_CONFIGURATION merged over the defaults, the superuser
and replication users from the operator's Secrets, TLS required of every connection from another host, with the
postgresql's certificate where it gives one."""
import json
import os
import pathlib
import pwd
import socket
import subprocess

import yaml

ENV = os.environ
PGROOT = pathlib.Path(ENV.get("PGROOT", "/home/postgres/pgdata/pgroot"))
TLS = pathlib.Path("/run/postgresql-tls")
RUN = pathlib.Path("/run/postgresql")


def merged(base, extra):
    """extra over base, dictionaries merged key by key (Spilo's rule for SPILO_CONFIGURATION)."""
    result = dict(base)
    for key, value in extra.items():
        result[key] = merged(result[key], value) if isinstance(value, dict) and isinstance(result.get(key), dict) else value
    return result


def cluster_labels():
    """KUBERNETES_LABELS: JSON, or key=value pairs separated by commas (the operator's fallback)."""
    text = ENV.get("KUBERNETES_LABELS", "") or "{}"
    if text.lstrip().startswith("{"):
        return json.loads(text)
    return dict(pair.split("=", 1) for pair in text.split(",") if pair)


def configuration():
    pod_ip, version = ENV["POD_IP"], ENV.get("PGVERSION", "17")
    defaults = {
        "scope": ENV["SCOPE"],
        "name": ENV.get("POD_NAME") or socket.gethostname(),  # a pod's host name is its name (what Spilo takes)
        "namespace": ENV["POD_NAMESPACE"],
        "restapi": {"listen": "0.0.0.0:8008", "connect_address": f"{pod_ip}:8008"},
        "kubernetes": {
            "namespace": ENV["POD_NAMESPACE"], "labels": cluster_labels(),
            "scope_label": ENV.get("KUBERNETES_SCOPE_LABEL", "cluster-name"),
            "role_label": ENV.get("KUBERNETES_ROLE_LABEL", "spilo-role"),
            # Patroni 4 says primary; the operator waits for master, as Spilo sets it
            "leader_label_value": "master", "follower_label_value": "replica",
            # the master Service has no selector: Patroni writes its Endpoints (the leader's address)
            "use_endpoints": True, "pod_ip": pod_ip, "ports": [{"name": "postgresql", "port": 5432}],
        },
        "bootstrap": {
            "dcs": {"ttl": 30, "loop_wait": 10, "retry_timeout": 10, "maximum_lag_on_failover": 33554432,
                    "postgresql": {"use_pg_rewind": True, "use_slots": True}},
            "initdb": [{"auth-host": "md5"}, {"auth-local": "trust"}, {"encoding": "UTF8"}],
            # Spilo's post-initialisation makes the role "admin" (NOLOGIN), which the operator grants every role it
            # creates (CREATE ROLE … ADMIN "admin"). Patroni appends the connection string: psql's database.
            "post_bootstrap": "psql -v ON_ERROR_STOP=1 -c 'CREATE ROLE admin CREATEDB NOLOGIN'",
        },
        "postgresql": {
            "listen": "0.0.0.0:5432", "connect_address": f"{pod_ip}:5432",
            "data_dir": str(PGROOT / "data"), "bin_dir": f"/usr/lib/postgresql/{version}/bin",
            "pgpass": "/tmp/pgpass",
            "authentication": {
                "superuser": {"username": ENV.get("PGUSER_SUPERUSER", "postgres"),
                              "password": ENV["PGPASSWORD_SUPERUSER"]},
                "replication": {"username": ENV.get("PGUSER_STANDBY", "standby"),
                                "password": ENV.get("PGPASSWORD_STANDBY", "")},
            },
            "parameters": {"ssl": "on", "ssl_cert_file": str(TLS / "tls.crt"), "ssl_key_file": str(TLS / "tls.key"),
                           "unix_socket_directories": str(RUN),
                           # spec.tls.caFile: the CA client certificates would be checked against (Spilo sets it)
                           **({"ssl_ca_file": str(TLS / "ca.crt")} if ENV.get("SSL_CA_FILE") else {})},
            # Spilo's rule, without its team roles: from another host, TLS or nothing
            "pg_hba": ["local all all trust",
                       "host all all 127.0.0.1/32 md5",
                       "local replication all trust",
                       "hostssl replication all all md5",
                       "hostnossl all all all reject",
                       "hostssl all all all md5"],
        },
    }
    return merged(defaults, json.loads(ENV.get("SPILO_CONFIGURATION") or "{}"))


def server_certificate():
    """The certificate PostgreSQL serves, as Spilo chooses it: the postgresql's spec.tls, which the operator mounts
    and names in SSL_CERTIFICATE_FILE, SSL_PRIVATE_KEY_FILE and SSL_CA_FILE (copied: the Secret's files are the
    pod's fsGroup's, and PostgreSQL wants its key its own, 0600); given none, a self-signed one, which a client can
    require but trust only by being given it."""
    given, key = ENV.get("SSL_CERTIFICATE_FILE"), ENV.get("SSL_PRIVATE_KEY_FILE")
    if given and key:
        (TLS / "tls.crt").write_bytes(pathlib.Path(given).read_bytes())
        (TLS / "tls.key").write_bytes(pathlib.Path(key).read_bytes())
        if ENV.get("SSL_CA_FILE"):
            (TLS / "ca.crt").write_bytes(pathlib.Path(ENV["SSL_CA_FILE"]).read_bytes())
        return
    subprocess.run(["openssl", "req", "-nodes", "-new", "-x509", "-days", "3650", "-subj", "/CN=spilo-compatible",
                    "-keyout", str(TLS / "tls.key"), "-out", str(TLS / "tls.crt")], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    postgres = pwd.getpwnam("postgres")
    for directory in (PGROOT, TLS, RUN):
        directory.mkdir(parents=True, exist_ok=True)
    server_certificate()
    config = PGROOT.parent / "patroni.yml"
    config.write_text(yaml.safe_dump(configuration(), default_flow_style=False))
    # The volume arrives owned by root (a hostPath volume ignores fsGroup): PostgreSQL runs as postgres.
    subprocess.run(["chown", "-R", f"{postgres.pw_uid}:{postgres.pw_gid}", str(PGROOT.parent), str(TLS), str(RUN)],
                   check=True)
    (TLS / "tls.key").chmod(0o600)
    config.chmod(0o600)
    os.setgid(postgres.pw_gid)
    os.setuid(postgres.pw_uid)
    os.environ["HOME"] = postgres.pw_dir
    os.execvp("patroni", ["patroni", str(config)])


if __name__ == "__main__":
    main()
