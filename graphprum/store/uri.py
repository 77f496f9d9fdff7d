"""Store locations: Bolt URIs, local directories, and passwords kept out of print.

A store location with a scheme (``NAME://...``) is a server URI; anything
else is a directory of the embedded store.  Scheme names are matched without
regard to case, and only the Bolt schemes of the neo4j driver are known
(:data:`BOLT_SCHEMES`): an unknown one is an error, never a directory name.

User information in a URI (``bolt://USER:PASSWORD@HOST:PORT``,
percent-encoded as usual) is taken out of it and handed to the driver as
credentials, so the driver never sees, and never echoes, the password.
:func:`redact` scrubs user information out of any text (error messages,
command lines) before it is printed; passwords seen by :func:`parse_store_uri`
are scrubbed wherever they appear.  Printed, the user information keeps a
user name only when it is one for certain (:func:`shown_user`): followed by
a password (``USER:PASSWORD@``), or the name ``$NEO4J_USERNAME`` gives.  A
user part alone (``bolt://TOKEN@HOST``) can be a token, and is printed
``***@``.

Examples
--------
>>> uri = parse_store_uri("BOLT://neo4j:p%40ss@db.example:7688")
>>> uri.driver_uri, uri.auth, uri.safe
('bolt://db.example:7688', ('neo4j', 'p@ss'), 'bolt://neo4j@db.example:7688')
>>> redact("Given URI: 'bolt://neo4j:p%40ss@db.example:7688'")
"Given URI: 'bolt://neo4j@db.example:7688'"
>>> parse_store_uri("bolt://Zq9SecretPw@db:7687").safe
'bolt://***@db:7687'
>>> is_uri("graphprum-store"), is_uri("Neo4j+S://host")
(False, True)
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from graphprum.errors import UsageError

#: The schemes of the neo4j driver (``+s``: TLS, ``+ssc``: TLS with a
#: self-signed certificate).
BOLT_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*)://")
#: ``scheme://userinfo@``; the user information runs to the last ``@`` of
#: the token (a password may hold an unescaped ``@``).
_USERINFO = re.compile(r"\b([A-Za-z][A-Za-z0-9+.\-]*://)([^\s'\"<>`]*)@")
_BARE_SCHEME = re.compile(r"(?:bolt|neo4j)(?:\+ssc|\+s)?:(?!//)", re.IGNORECASE)
#: User information after a Bolt scheme written without ``//`` (a typo).
_BARE_USERINFO = re.compile(r"\b((?:bolt|neo4j)(?:\+ssc|\+s)?:/?)(?!/)([^\s/]*)@",
                            re.IGNORECASE)
#: Passwords seen in URIs this process parsed, scrubbed by :func:`redact`.
_SECRETS: set[str] = set()
#: User names seen followed by a password, shown by :func:`shown_user`.
_USERS: set[str] = set()
_MIN_SECRET = 3


@dataclass(frozen=True)
class BoltURI:
    """A parsed Bolt URI.

    Attributes
    ----------
    scheme : str
        Lower case, one of :data:`BOLT_SCHEMES`.
    host : str
        Host name or address (IPv6 without brackets).
    port : int or None
        Port, when given.
    user, password : str or None
        User information, percent-decoded.
    rest : str
        Path, query and fragment as given (``/db?policy=x``), usually empty.
    """

    scheme: str
    host: str
    port: int | None
    user: str | None
    password: str | None
    rest: str = ""

    def _netloc(self, user: str | None) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        port = f":{self.port}" if self.port is not None else ""
        return (f"{user}@" if user else "") + host + port

    @property
    def driver_uri(self) -> str:
        """The URI for the driver: no user information."""
        return f"{self.scheme}://{self._netloc(None)}{self.rest}"

    @property
    def shown_user(self) -> str | None:
        """The user to print (:func:`shown_user`), None when none is given."""
        return shown_user(self.user, self.password is not None) if self.user else None

    @property
    def safe(self) -> str:
        """The URI to print: the password left out, the user name kept when
        it is one for certain (:func:`shown_user`)."""
        return f"{self.scheme}://{self._netloc(self.shown_user)}{redact(self.rest)}"

    @property
    def auth(self) -> tuple[str, str] | None:
        """``(user, password)`` from the URI, or None when it names no user."""
        return (self.user, self.password or "") if self.user else None


def is_uri(location: str) -> bool:
    """Whether ``location`` has a ``scheme://`` (any scheme, any case)."""
    return _SCHEME.match(location) is not None


def looks_like_bolt(location: str) -> bool:
    """Whether ``location`` is a Bolt URI missing its ``//`` (``bolt:h:7687``),
    which would otherwise name a directory.

    >>> looks_like_bolt("bolt:neo4j:pw@h"), looks_like_bolt("bolt://h"), looks_like_bolt("b/x")
    (True, False, False)
    """
    return _BARE_SCHEME.match(location) is not None


def scheme_of(location: str) -> str | None:
    """The lower-case scheme of a URI, None for a path.

    >>> scheme_of("Bolt+SSC://h"), scheme_of("dir/x")
    ('bolt+ssc', None)
    """
    m = _SCHEME.match(location)
    return m.group(1).lower() if m else None


def parse_store_uri(location: str) -> BoltURI:
    """Parse a Bolt URI; UsageError (one line, no password) when it is not one.

    >>> parse_store_uri("bolt://[::1]:7687").driver_uri
    'bolt://[::1]:7687'
    >>> try:
    ...     parse_store_uri("xxx://u:pw@h")
    ... except UsageError as exc:
    ...     print(str(exc)[:44])
    xxx://u@h: unknown store scheme 'xxx://' (us
    """
    scheme = scheme_of(location)
    shown = redact(location)
    if scheme is None:
        raise UsageError(f"{shown}: not a URI (expected bolt://HOST:PORT)")
    try:
        parts = urlsplit(location)
        password = parts.password
        if password is not None:
            remember_secret(unquote(password))
            shown = redact(location)
        host, port, user = parts.hostname, parts.port, parts.username
    except ValueError as exc:
        raise UsageError(f"{shown}: not a valid URI ({_reason(exc)})") from None
    if scheme not in BOLT_SCHEMES:
        raise UsageError(f"{shown}: unknown store scheme '{scheme}://' (use bolt://, "
                         f"neo4j://, with +s or +ssc for TLS; or a directory path "
                         f"without '://')")
    if not host:
        raise UsageError(f"{shown}: no host in the URI (expected {scheme}://HOST:PORT)")
    if port == 0:
        raise UsageError(f"{shown}: port 0 is not a port")
    rest = location[len(parts.scheme) + 3 + len(parts.netloc):]
    if parts.path not in ("", "/"):
        raise UsageError(f"{shown}: a Bolt URI has no path ({parts.path!r}); the database "
                         f"is chosen with $NEO4J_DATABASE")
    return BoltURI(scheme, host, port, unquote(user) if user else None,
                   unquote(password) if password is not None else None, rest)


def _reason(exc: ValueError) -> str:
    text = str(exc)
    if "Port" in text or "port" in text:
        return "the port must be a number in 0..65535"
    if "IPv6" in text:
        return "an IPv6 address needs its closing ']'"
    return " ".join(redact(text).split())[:120]


def shown_user(user: str, with_password: bool) -> str:
    """How user information is printed: the user name when a password came
    with it (``USER:PASSWORD@``), or came with it in a text redacted before
    (so that redacting twice changes nothing), or ``$NEO4J_USERNAME`` names
    it; else ``***`` (a user part alone can be a token).  The one rule of
    :func:`redact` and :attr:`BoltURI.safe`.

    >>> shown_user("neo4j", True), shown_user("neo4j", False), shown_user("Zq9SecretPw", False)
    ('neo4j', 'neo4j', '***')
    """
    if with_password:
        _USERS.add(user)
        return user
    if not user or user in _USERS or user == os.environ.get("NEO4J_USERNAME"):
        return user
    return "***"


def remember_secret(secret: str) -> None:
    """Scrub ``secret`` from everything :func:`redact` sees from now on."""
    if len(secret) >= _MIN_SECRET:
        _SECRETS.add(secret)


def redact(text: str) -> str:
    """``text`` with the user information of every URI in it reduced to the
    user name (:func:`shown_user`: ``***`` for a user part without a
    password), and every password seen in a parsed URI
    (:func:`remember_secret`) replaced by ``***``.

    >>> redact("failed: neo4j://u:s3cr@t/x@h:1/db and http://h/p@x")
    'failed: neo4j://u@h:1/db and http://h/p@x'
    >>> redact("store bolt://Zq9SecretPw@127.0.0.1:7687, https://ghp_tok@github.com/x")
    'store bolt://***@127.0.0.1:7687, https://***@github.com/x'
    >>> redact("no URI here")
    'no URI here'
    >>> redact("bolt:///neo4j:pw1@h:7687 and bolt:neo4j:pw2@h and neo4j+s:/u:pw3@h")
    'bolt:///neo4j@h:7687 and bolt:neo4j@h and neo4j+s:/u@h'
    >>> redact("bolt:///neo4j:Se/cr3t@h http://h/p:q@r /data/bolt:1/u:x@y/f.xml")
    'bolt:///neo4j@h http://h/p:q@r /data/bolt:1/u:x@y/f.xml'
    """
    def scrub(m: re.Match[str]) -> str:
        scheme, userinfo = m.group(1), m.group(2)
        if scheme.lower().startswith(("bolt", "neo4j")):
            # a store URI: everything from the first ':' of the user
            # information is a password, whatever it holds ('/' too)
            slashes = userinfo[:len(userinfo) - len(userinfo.lstrip("/"))]
            user, colon, _ = userinfo[len(slashes):].partition(":")
            return scheme + slashes + shown_user(user, bool(colon)) + "@"
        user, colon, _ = userinfo.partition(":")
        if "/" in user:  # an '@' in a path, not user information
            return m.group(0)
        return scheme + shown_user(user, bool(colon)) + "@"

    # greedy on purpose: the match runs to the last '@' of the token, so a
    # password holding '@' or '/' is cut out whole (at worst a host is too)
    out = _USERINFO.sub(scrub, text) if "://" in text else text
    if ":" in text:  # bolt:user:pw@host, a Bolt URI without its '//'
        out = _BARE_USERINFO.sub(scrub, out)
    for secret in sorted(_SECRETS, key=len, reverse=True):
        out = out.replace(secret, "***")
    return out
