"""Cognito stand-in: development JWTs (RS256) signed with a key kept in ``.ltm/dev-signing-key.pem``.

Tokens look like Cognito ID tokens (sub, cognito:username, email, token_use=id, aud, iss, exp, iat,
auth_time). The front verifies them like a Cognito authorizer does (signature, expiry, issuer,
audience) and hands the claims to the handler in the shape API Gateway REST uses: every value a
string, ``exp``/``iat`` as "Mon Jul 15 05:58:22 UTC 2019".
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from .config import REGION

ISSUER = f"https://cognito-idp.{REGION}.amazonaws.com/{REGION}_ltmlocal"
AUDIENCE = "ltm-local-app-client"
DEFAULT_TTL_S = 24 * 3600  # Cognito's default is 1 h; a day is friendlier on a dev machine


def _create_key(path: Path) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(pem)
            handle.flush()
            os.fsync(handle.fileno())
        # link() fails if the key exists: two processes racing keep the first key, not the last.
        with contextlib.suppress(FileExistsError):
            os.link(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


class DevSigner:
    """Signs and verifies development tokens with one RSA key, created on first use."""

    def __init__(self, key_path: Path) -> None:
        key_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not key_path.exists():
            _create_key(key_path)
        os.chmod(key_path, 0o600)
        pem = key_path.read_bytes()
        self._private = serialization.load_pem_private_key(pem, password=None)
        self._public = self._private.public_key()
        public_der = self._public.public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        self.kid = hashlib.sha256(public_der).hexdigest()[:16]

    def mint(self, user: str, ttl_s: int = DEFAULT_TTL_S, now: float | None = None, **extra) -> str:
        issued = int(time.time() if now is None else now)
        claims = {
            "sub": user,
            "cognito:username": user,
            "email": user if "@" in user else f"{user}@example.invalid",
            "email_verified": True,
            "token_use": "id",
            "aud": AUDIENCE,
            "iss": ISSUER,
            "event_id": str(uuid.uuid4()),
            "auth_time": issued,
            "iat": issued,
            "exp": issued + int(ttl_s),
        }
        claims.update(extra)
        return jwt.encode(claims, self._private, algorithm="RS256", headers={"kid": self.kid})

    def verify(self, authorization: str | None) -> dict | None:
        """Claims of a valid token in an Authorization value ("Bearer x" or the raw token), else None."""
        if not authorization:
            return None
        token = authorization.strip()
        scheme, _, rest = token.partition(" ")
        if scheme.lower() == "bearer":
            token = rest.strip()
        if not token:
            return None
        try:
            return jwt.decode(
                token,
                self._public,
                algorithms=["RS256"],  # never "none", never HS256 with the public key as secret
                audience=AUDIENCE,
                issuer=ISSUER,
                options={"require": ["exp", "iat", "sub", "iss", "aud"]},
            )
        except jwt.PyJWTError:
            return None


def _http_date(epoch: object) -> str:
    return datetime.fromtimestamp(int(epoch), tz=UTC).strftime("%a %b %d %H:%M:%S UTC %Y")  # type: ignore[arg-type]


def apigw_claims(claims: dict) -> dict[str, str]:
    """Claims as API Gateway REST passes them from a Cognito authorizer (all strings)."""
    shaped: dict[str, str] = {}
    for name, value in claims.items():
        if name in ("exp", "iat") and isinstance(value, int | float):
            shaped[name] = _http_date(value)
        elif isinstance(value, bool):
            shaped[name] = "true" if value else "false"
        elif isinstance(value, list):
            shaped[name] = "[" + ", ".join(str(item) for item in value) + "]"
        else:
            shaped[name] = str(value)
    return shaped
