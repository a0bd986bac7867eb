"""A webhook receiver over real HTTPS, for tests: a certificate authority and a server certificate for 127.0.0.1
made here with ``cryptography``, a threaded server that records every request, and controls to answer 500 or to
hang past the sender's timeout, or to send the answer a byte at a time, a given number of times.

Signatures are checked with the ``standardwebhooks`` package (the reference implementation of the format, another
author's code than ours), so a test proves what a real receiver would accept."""

from __future__ import annotations

import datetime
import ipaddress
import json
import ssl
import tempfile
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

HOST = "127.0.0.1"


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    verified: bool
    answered: int | None

    @property
    def payload(self) -> dict:
        return json.loads(self.body)

# Names under it are valid for the receiver's certificate too (tests resolve them through a table of their own).
TEST_ZONE = "hooks.example"


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def make_certificates(directory: Path) -> tuple[Path, Path, Path]:
    """(CA bundle, server certificate, server key) as PEM files in ``directory``."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (x509.CertificateBuilder().subject_name(_name("anamnesis test CA")).issuer_name(_name("anamnesis test CA"))
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                       data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                       crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (x509.CertificateBuilder().subject_name(_name(HOST)).issuer_name(ca.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(HOST)),
                                                        x509.DNSName(f"*.{TEST_ZONE}")]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    paths = directory / "ca.pem", directory / "server.pem", directory / "server.key"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return paths


class WebhookReceiver:
    """``url`` is https://127.0.0.1:<port>/hook; ``ca_bundle`` the PEM file that trusts it. Set ``secret`` to the
    subscription's before events arrive."""

    def __init__(self) -> None:
        self._dir = tempfile.TemporaryDirectory()
        self.ca_bundle, cert, key = make_certificates(Path(self._dir.name))
        self.secret: str | None = None
        self.received: list[Received] = []
        self._lock = threading.Lock()
        self._fail = 0
        self._hang = 0.0
        self._hang_times = 0
        self._dribble = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}
                verified = receiver.verify(body, headers)
                with receiver._lock:
                    # the 500s first, then the hangs
                    fail = receiver._fail > 0
                    receiver._fail -= fail
                    hang = receiver._hang if receiver._hang_times > 0 and not fail else 0.0
                    receiver._hang_times -= hang > 0
                    dribble = receiver._dribble > 0 and not (fail or hang)
                    receiver._dribble -= dribble
                    status = 500 if fail else (200 if verified else 400)
                    record = Received(headers, body, verified, None if hang or dribble else status)
                    receiver.received.append(record)
                if dribble:  # the answer a byte every 0.1 s: each within the sender's timeout, the whole far beyond
                    answer = b"HTTP/1.1 200 OK\r\nX-Slowly: " + b"z" * 100 + b"\r\nContent-Length: 2\r\n\r\nok"
                    try:
                        for i in range(len(answer)):
                            self.wfile.write(answer[i:i + 1])
                            self.wfile.flush()
                            time.sleep(0.1)
                    except OSError:
                        pass
                    self.close_connection = True
                    return
                if hang:
                    time.sleep(hang)
                    return  # the sender gave up; close without an answer
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

        self.server = ThreadingHTTPServer((HOST, 0), Handler)
        self.server.daemon_threads = True
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.url = f"https://{HOST}:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def verify(self, body: bytes, headers: dict[str, str]) -> bool:
        if self.secret is None:
            return False
        try:
            Webhook(self.secret).verify(body, headers)
        except WebhookVerificationError:
            return False
        return True

    def fail(self, times: int) -> None:
        with self._lock:
            self._fail = times

    def hang(self, times: int, seconds: float) -> None:
        with self._lock:
            self._hang_times, self._hang = times, seconds

    def dribble(self, times: int) -> None:
        with self._lock:
            self._dribble = times

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._dir.cleanup()
