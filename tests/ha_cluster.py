"""A replicated PostgreSQL for the failover test: one etcd and two Patroni nodes on loopback, in a temporary folder.

Both nodes run the embedded server's binaries (pgserver's PostgreSQL 16 with pgvector); Patroni (Debian's package)
bootstraps the first, clones the second from it with pg_basebackup, and keeps the second a synchronous standby
(``synchronous_mode``), so a commit is acknowledged only once it is flushed on both. ``master_start_timeout: 0``:
when the primary's PostgreSQL dies, Patroni fails over to the standby at once instead of first trying to restart it
in place. The superuser and replication passwords are generated for each cluster. As root (CI), Patroni and
PostgreSQL run as pgserver's unprivileged system user, as the embedded server does.
"""

from __future__ import annotations

import json
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.fakes.service import free_port

SCOPE = "anamnesis-ha"
SYSTEM_USER = "pgserver"  # pgserver's own choice when run as root


def pg_bin_dir() -> Path:
    import pgserver

    return Path(pgserver.__file__).parent / "pginstall" / "bin"


def _wait(what: str, condition, timeout: float, logs) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: not within {timeout:.0f}s\n{logs()}")
        time.sleep(0.2)


class Node:
    def __init__(self, cluster: PatroniCluster, name: str) -> None:
        self.name = name
        self.dir = cluster.dir / name
        self.data_dir = self.dir / "data"
        self.pg_port = free_port()
        self.api_port = free_port()
        self.log = self.dir / "patroni.log"
        self.proc: subprocess.Popen | None = None
        self.dir.mkdir(mode=0o700)
        cluster.give(self.dir)
        config = {
            "scope": SCOPE,
            "name": name,
            "log": {"level": "INFO"},
            "restapi": {"listen": f"127.0.0.1:{self.api_port}", "connect_address": f"127.0.0.1:{self.api_port}"},
            "etcd3": {"hosts": [f"127.0.0.1:{cluster.etcd_port}"]},
            "bootstrap": {
                "dcs": {
                    # Patroni's defaults are 30, 10, 10; loop_wait + 2 x retry_timeout must stay under ttl. A
                    # one-second loop notices a dead PostgreSQL within about a second.
                    "ttl": 20, "loop_wait": 1, "retry_timeout": 5,
                    "maximum_lag_on_failover": 1048576,
                    "master_start_timeout": 0,
                    "synchronous_mode": True,
                    "postgresql": {
                        "use_pg_rewind": True,
                        "parameters": {"wal_log_hints": "on", "max_connections": 100, "max_wal_senders": 10,
                                       "max_replication_slots": 10, "wal_keep_size": "128MB"},
                    },
                },
                "initdb": [{"encoding": "UTF8"}, {"auth-local": "trust"}, {"auth-host": "scram-sha-256"}],
            },
            "postgresql": {
                "listen": f"127.0.0.1:{self.pg_port}",
                "connect_address": f"127.0.0.1:{self.pg_port}",
                "data_dir": str(self.data_dir),
                "bin_dir": str(pg_bin_dir()),
                "pgpass": str(self.dir / "pgpass"),
                "authentication": {
                    "superuser": {"username": "postgres", "password": cluster.superuser_password},
                    "replication": {"username": "replicator", "password": cluster.replication_password},
                    "rewind": {"username": "postgres", "password": cluster.superuser_password},
                },
                "parameters": {"unix_socket_directories": str(self.dir)},
                "pg_hba": [
                    "local all all trust",
                    "host replication replicator 127.0.0.1/32 scram-sha-256",
                    "host all all 127.0.0.1/32 scram-sha-256",
                ],
            },
            "tags": {"nofailover": False, "noloadbalance": False, "clonefrom": False, "nosync": False},
        }
        # JSON is YAML: no YAML writer needed
        self.config = self.dir / "patroni.yml"
        self.config.write_text(json.dumps(config, indent=2))
        cluster.give(self.config)
        self.cluster = cluster

    def start(self) -> None:
        log = open(self.log, "ab")  # noqa: SIM115 - the child keeps it
        self.proc = subprocess.Popen(["patroni", str(self.config)], stdout=log, stderr=subprocess.STDOUT,
                                     cwd=self.dir, env=self.cluster.child_env(), **self.cluster.as_user())
        log.close()

    def api(self, path: str) -> tuple[int, dict]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.api_port}{path}", timeout=2) as response:
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")
        except OSError:
            return 0, {}

    def role(self) -> str:
        """``primary``, ``sync_standby`` (a standby whose flush a commit waits for), ``replica``, or ``down``."""
        if self.api("/primary")[0] == 200:
            return "primary"
        if self.api("/sync")[0] == 200:
            return "sync_standby"
        if self.api("/replica")[0] == 200:
            return "replica"
        return "down"

    def postmaster_pid(self) -> int:
        return int((self.data_dir / "postmaster.pid").read_text().split()[0])

    def kill_postmaster(self) -> int:
        """SIGKILL the node's postmaster (its backends find it gone and exit): a crash, not a shutdown."""
        pid = self.postmaster_pid()
        os.kill(pid, signal.SIGKILL)
        return pid

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()  # Patroni stops its PostgreSQL (fast) before it exits
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        pid_file = self.data_dir / "postmaster.pid"
        if pid_file.exists():  # a PostgreSQL that outlived its Patroni (and only that: pids are reused)
            import psutil

            try:
                process = psutil.Process(int(pid_file.read_text().split()[0]))
                if process.name() == "postgres":
                    process.send_signal(signal.SIGQUIT)
            except (psutil.Error, ValueError, IndexError):
                pass


class PatroniCluster:
    def __init__(self) -> None:
        for tool in ("patroni", "etcd"):
            if shutil.which(tool) is None:
                raise RuntimeError(f"{tool} is not installed: `make ha-test` installs Debian's patroni and etcd-server")
        self.dir = Path(tempfile.mkdtemp(prefix="anamnesis-ha-"))
        self.dir.chmod(0o755)
        self.root = os.geteuid() == 0
        if self.root:
            import stat

            from pgserver.utils import ensure_folder_permissions, ensure_prefix_permissions, ensure_user_exists

            ensure_user_exists(SYSTEM_USER)
            # what pgserver does before it runs its binaries as that user (a checkout under /root, say)
            ensure_prefix_permissions(pg_bin_dir())
            ensure_folder_permissions(pg_bin_dir(), stat.S_IRGRP | stat.S_IROTH | stat.S_IXGRP | stat.S_IXOTH)
            ensure_folder_permissions(pg_bin_dir().parent / "lib", stat.S_IRGRP | stat.S_IROTH)
        self.superuser_password = secrets.token_urlsafe(24)
        self.replication_password = secrets.token_urlsafe(24)
        self.etcd_port = free_port()
        self.etcd_peer_port = free_port()
        self.etcd: subprocess.Popen | None = None
        self.nodes = [Node(self, "node1"), Node(self, "node2")]

    # -- processes ------------------------------------------------------------------------------------------------
    def give(self, path: Path) -> None:
        """As root, hand a path to the system user PostgreSQL runs as (it refuses to run as root)."""
        if self.root:
            entry = pwd.getpwnam(SYSTEM_USER)
            os.chown(path, entry.pw_uid, entry.pw_gid)

    def as_user(self) -> dict:
        if not self.root:
            return {}
        entry = pwd.getpwnam(SYSTEM_USER)
        return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}

    def child_env(self) -> dict[str, str]:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
        env["HOME"] = str(self.dir)
        return env

    def start(self) -> None:
        """etcd, then the first node until it is the primary, then the second until it is its synchronous
        standby."""
        etcd_log = open(self.dir / "etcd.log", "ab")  # noqa: SIM115 - the child keeps it
        client = f"http://127.0.0.1:{self.etcd_port}"
        peer = f"http://127.0.0.1:{self.etcd_peer_port}"
        self.etcd = subprocess.Popen(
            ["etcd", "--name", "ha", "--data-dir", str(self.dir / "etcd"), "--listen-client-urls", client,
             "--advertise-client-urls", client, "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
             "--initial-cluster", f"ha={peer}", "--log-level", "warn"],
            stdout=etcd_log, stderr=subprocess.STDOUT, env=self.child_env())
        etcd_log.close()

        def etcd_healthy() -> bool:
            try:
                with urllib.request.urlopen(f"{client}/health", timeout=1) as response:
                    return json.loads(response.read()).get("health") == "true"
            except OSError:
                return False

        _wait("etcd answers", etcd_healthy, 30, self.logs)
        first, second = self.nodes
        first.start()
        _wait(f"{first.name} is the primary", lambda: first.role() == "primary", 120, self.logs)
        second.start()
        _wait(f"{second.name} is the synchronous standby", lambda: second.role() == "sync_standby", 180, self.logs)

    def primary(self) -> Node | None:
        for node in self.nodes:
            if node.role() == "primary":
                return node
        return None

    def url(self, user: str, password: str, dbname: str) -> str:
        """A libpq URL naming both nodes: a client connects to whichever is the primary now."""
        from urllib.parse import quote

        hosts = ",".join(f"127.0.0.1:{node.pg_port}" for node in self.nodes)
        return f"postgresql://{quote(user)}:{quote(password)}@{hosts}/{dbname}?target_session_attrs=read-write"

    def admin_url(self, dbname: str) -> str:
        return self.url("postgres", self.superuser_password, dbname)

    def logs(self) -> str:
        parts = []
        for name in ("etcd.log", "node1/patroni.log", "node2/patroni.log"):
            path = self.dir / name
            if path.exists():
                parts.append(f"--- {name}\n{path.read_text(errors='replace')[-3000:]}")
        return "\n".join(parts)

    def close(self) -> None:
        for node in self.nodes:
            node.stop()
        if self.etcd is not None and self.etcd.poll() is None:
            self.etcd.terminate()
            try:
                self.etcd.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.etcd.kill()
                self.etcd.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)
