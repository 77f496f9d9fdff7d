"""Keep FalkorDB's Bolt listener on the loopback interface.

FalkorDB 4.16 opens its Bolt port with ``bind([::]:PORT)`` (``socket_bind`` in
its ``src/bolt/socket.c``): an IPv6 socket on the *any* address, which also
accepts IPv4, so every interface of the machine reaches it.  The module has
no option for the address (its only Bolt option is ``BOLT_PORT``), and its
Bolt port does not enforce a password: a client that sends no credentials is
let in even when Redis has ``requirepass`` (``is_authenticated`` in
``src/bolt/bolt_api.c`` then only checks that the module may call ``PING``).

The address ``socket_bind`` uses is glibc's ``in6addr_any``, a 16-byte
*variable* that ``falkordb.so`` reads through the dynamic linker.  A shared
library preloaded into ``redis-server`` (``LD_PRELOAD``) that defines
``in6addr_any`` wins that lookup, so defining it as ``::ffff:127.0.0.1``
(IPv4 loopback, as an IPv6 address) makes the Bolt socket listen on
127.0.0.1 only.  Nothing else in ``redis-server`` reads that variable (Redis
itself binds the addresses given to ``--bind``).  The library holds no code,
only that symbol; :func:`write_preload_library` writes it as a minimal ELF
file for the machine's architecture (x86-64 or AArch64, Linux).

Whatever the mechanism, :func:`public_listeners` reads the listening
sockets of the server process from ``/proc`` afterwards, and
:mod:`graphprum.store.bolt.server` stops a server that listens anywhere
but loopback.

Examples
--------
>>> is_loopback("127.0.0.1"), is_loopback("::ffff:127.0.0.1"), is_loopback("::")
(True, True, False)
"""

from __future__ import annotations

import ipaddress
import os
import platform
import struct
from pathlib import Path

from graphprum.store.bolt.datadir import write_file

#: ``::ffff:127.0.0.1``: where FalkorDB's Bolt socket is bound instead of ``::``.
LOOPBACK_V4_MAPPED = ipaddress.IPv6Address("::ffff:127.0.0.1").packed
#: ELF machine numbers of the architectures the preload library is written for.
_MACHINES = {"x86_64": 62, "amd64": 62, "aarch64": 183, "arm64": 183}
_SONAME = b"libgraphprum-loopback.so"


class LoopbackUnsupportedError(RuntimeError):
    """This platform cannot have FalkorDB's Bolt port kept on loopback."""


def preload_supported() -> str | None:
    """Why the preload library cannot be used here, or None when it can.

    >>> preload_supported() is None or isinstance(preload_supported(), str)
    True
    """
    if platform.system() != "Linux":
        return f"{platform.system()} has no LD_PRELOAD of ELF libraries"
    if platform.machine().lower() not in _MACHINES:
        return f"the {platform.machine()} architecture is not supported"
    return None


def elf_library(machine: int, symbol: bytes, value: bytes) -> bytes:
    """A 64-bit little-endian ELF shared object that defines one data
    symbol ``symbol`` holding ``value`` and nothing else (no code).

    Layout: the ELF header, three program headers (one read-write
    ``PT_LOAD`` of the whole file, ``PT_DYNAMIC``, ``PT_GNU_STACK`` so that
    the stack stays non-executable), a SysV hash table of one bucket, the
    symbol and string tables, the value, and the dynamic section.

    >>> lib = elf_library(62, b"x", b"\\x01\\x02")
    >>> lib[:4], lib[16:18], len(lib) % 8
    (b'\\x7fELF', b'\\x03\\x00', 0)
    """
    ehdr_size, phdr_size, n_phdr = 64, 56, 3
    offset = ehdr_size + n_phdr * phdr_size
    hash_off = offset
    hash_tab = struct.pack("<5I", 1, 2, 1, 0, 0)  # nbucket, nchain, bucket[0], chain[0..1]
    offset += len(hash_tab)
    offset = (offset + 7) & ~7
    sym_off = offset
    strtab = b"\0" + symbol + b"\0" + _SONAME + b"\0"
    offset += 2 * 24
    str_off = offset
    offset += len(strtab)
    offset = (offset + 15) & ~15
    data_off = offset
    offset += len(value)
    offset = (offset + 7) & ~7
    dyn_off = offset
    dynamic = [(4, hash_off), (5, str_off), (6, sym_off), (10, len(strtab)), (11, 24),
               (14, 2 + len(symbol)), (0, 0)]  # HASH STRTAB SYMTAB STRSZ SYMENT SONAME NULL
    total = dyn_off + 16 * len(dynamic)

    out = bytearray(total)
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)  # 64-bit, little endian, SysV
    out[0:ehdr_size] = ident + struct.pack(
        "<HHIQQQIHHHHHH", 3, machine, 1, 0, ehdr_size, 0, 0, ehdr_size, phdr_size, n_phdr,
        64, 0, 0)  # ET_DYN, no entry, no section headers
    pf_r, pf_w = 4, 2
    phdrs = [(1, pf_r | pf_w, 0, 0, 0, total, total, 0x10000),          # PT_LOAD
             (2, pf_r | pf_w, dyn_off, dyn_off, dyn_off, 16 * len(dynamic),
              16 * len(dynamic), 8),                                      # PT_DYNAMIC
             (0x6474E551, pf_r | pf_w, 0, 0, 0, 0, 0, 16)]                # PT_GNU_STACK
    for i, ph in enumerate(phdrs):
        at = ehdr_size + i * phdr_size
        out[at:at + phdr_size] = struct.pack("<IIQQQQQQ", *ph)
    out[hash_off:hash_off + len(hash_tab)] = hash_tab
    stb_global_object = (1 << 4) | 1
    out[sym_off + 24:sym_off + 48] = struct.pack("<IBBHQQ", 1, stb_global_object, 0, 1,
                                                 data_off, len(value))
    out[str_off:str_off + len(strtab)] = strtab
    out[data_off:data_off + len(value)] = value
    for i, (tag, val) in enumerate(dynamic):
        out[dyn_off + 16 * i:dyn_off + 16 * (i + 1)] = struct.pack("<qQ", tag, val)
    return bytes(out)


def preload_library() -> bytes:
    """The bytes of the library that redefines ``in6addr_any`` as
    ``::ffff:127.0.0.1`` for this machine.

    Raises :class:`LoopbackUnsupportedError` where :func:`preload_supported` says so.
    """
    why = preload_supported()
    if why is not None:
        raise LoopbackUnsupportedError(why)
    machine = _MACHINES[platform.machine().lower()]
    return elf_library(machine, b"in6addr_any", LOOPBACK_V4_MAPPED)


def write_preload_library(directory: str | os.PathLike[str]) -> Path:
    """Write :func:`preload_library` into ``directory`` without following a
    symbolic link there (a new file renamed over the old one); its path
    (for ``LD_PRELOAD``).

    Raises :class:`LoopbackUnsupportedError` where :func:`preload_supported` says so.
    """
    data = preload_library()
    path = Path(directory) / _SONAME.decode()
    write_file(path, data, mode=0o644)
    return path


def unmapped(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """``address`` as an IP address, an IPv4-mapped IPv6 one as its IPv4
    address (ValueError when it is none).

    >>> str(unmapped("::ffff:127.0.0.1")), str(unmapped("::1"))
    ('127.0.0.1', '::1')
    """
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def is_loopback(address: str) -> bool:
    """Whether ``address`` (IPv4, IPv6 or IPv4-mapped IPv6) is a loopback address."""
    return unmapped(address).is_loopback


def _proc_address(hex_address: str) -> str:
    """An address of ``/proc/net/tcp{,6}`` (host byte order words) as text.

    >>> _proc_address("0100007F")
    '127.0.0.1'
    >>> mapped = _proc_address("0000000000000000FFFF00000100007F")
    >>> ipaddress.IPv6Address(mapped).ipv4_mapped
    IPv4Address('127.0.0.1')
    """
    raw = bytes.fromhex(hex_address)
    if len(raw) == 4:
        return str(ipaddress.IPv4Address(raw[::-1]))
    words = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
    return str(ipaddress.IPv6Address(words))


def listening_sockets(pid: int | None = None) -> list[tuple[str, int]]:
    """``(address, port)`` of the listening TCP sockets of process ``pid``
    (every process when None), from ``/proc/net/tcp`` and ``/proc/net/tcp6``.

    Returns an empty list where ``/proc`` is not there.
    """
    inodes: set[str] | None = None
    if pid is not None:
        inodes = set()
        fd_dir = Path(f"/proc/{pid}/fd")
        try:
            for fd in fd_dir.iterdir():
                try:
                    target = os.readlink(fd)
                except OSError:
                    continue
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        except OSError:
            return []
    return [(address, port) for address, port, inode in listening_table()
            if inodes is None or inode in inodes]


def listening_table() -> list[tuple[str, int, str]]:
    """``(address, port, socket inode)`` of every listening TCP socket of
    this machine's network namespace, from ``/proc/net/tcp`` and
    ``/proc/net/tcp6`` (empty where ``/proc`` is not there)."""
    out = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) < 10 or fields[3] != "0A":  # 0A: LISTEN
                continue
            address, port = fields[1].split(":")
            out.append((_proc_address(address), int(port, 16), fields[9]))
    return out


def public_listeners(pid: int) -> list[tuple[str, int]]:
    """Listening sockets of ``pid`` reachable from beyond this machine."""
    return [(a, p) for a, p in listening_sockets(pid) if not is_loopback(a)]
