"""A backup archive encrypted with a passphrase: AES-256-GCM in 1 MiB
chunks under a key derived with scrypt (n=2**15, r=8, p=1; a 16-byte random
salt per archive). Each chunk's nonce is a random 7-byte prefix, the chunk's
number (4 bytes) and a last-chunk flag (1 byte), and the header is every
chunk's associated data: chunks cannot be reordered, dropped, cut short or
moved between archives without the decryption saying so. Streamed both ways,
so a large database dump never sits in memory.

    header  = MAGIC | salt (16) | nonce prefix (7)
    chunk   = length of ciphertext (4, big-endian) | ciphertext (plaintext + 16-byte tag)
"""

from __future__ import annotations

import os
import struct
from typing import BinaryIO

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

MAGIC = b"WSCONSOLE-BACKUP-AES256GCM-SCRYPT-1\n"
CHUNK = 1024 * 1024
SALT_BYTES = 16
PREFIX_BYTES = 7
TAG_BYTES = 16


class BadPassphrase(ValueError):
    """The passphrase does not open the archive, or the archive was changed or cut short."""


def _key(passphrase: str, salt: bytes) -> bytes:
    return Scrypt(salt=salt, length=32, n=2**15, r=8, p=1).derive(passphrase.encode())


def _nonce(prefix: bytes, number: int, last: bool) -> bytes:
    return prefix + struct.pack(">I?", number, last)


def is_encrypted(path: str | os.PathLike[str]) -> bool:
    with open(path, "rb") as archive:
        return archive.read(len(MAGIC)) == MAGIC


def encrypt_stream(source: BinaryIO, target: BinaryIO, *, passphrase: str) -> None:
    salt, prefix = os.urandom(SALT_BYTES), os.urandom(PREFIX_BYTES)
    header = MAGIC + salt + prefix
    cipher = AESGCM(_key(passphrase, salt))
    target.write(header)
    number, chunk = 0, source.read(CHUNK)
    while True:
        following = source.read(CHUNK) if chunk else b""
        last = not following
        sealed = cipher.encrypt(_nonce(prefix, number, last), chunk, header)
        target.write(struct.pack(">I", len(sealed)) + sealed)
        if last:
            return
        number, chunk = number + 1, following


def decrypt_stream(source: BinaryIO, target: BinaryIO, *, passphrase: str) -> None:
    header = source.read(len(MAGIC) + SALT_BYTES + PREFIX_BYTES)
    if not header.startswith(MAGIC) or len(header) < len(MAGIC) + SALT_BYTES + PREFIX_BYTES:
        raise BadPassphrase("not an encrypted backup")
    salt = header[len(MAGIC) : len(MAGIC) + SALT_BYTES]
    prefix = header[len(MAGIC) + SALT_BYTES :]
    cipher = AESGCM(_key(passphrase, salt))
    number = 0
    while True:
        length_bytes = source.read(4)
        if len(length_bytes) < 4:
            raise BadPassphrase("the archive ends before its last part: it was cut short")
        (length,) = struct.unpack(">I", length_bytes)
        if length < TAG_BYTES or length > CHUNK + TAG_BYTES:
            raise BadPassphrase("the archive is damaged")
        sealed = source.read(length)
        opened = None
        for last in (False, True):
            try:
                opened = cipher.decrypt(_nonce(prefix, number, last), sealed, header)
            except InvalidTag:
                continue
            target.write(opened)
            if last:
                if source.read(1):
                    raise BadPassphrase("the archive has data after its last part")
                return
            break
        if opened is None:
            raise BadPassphrase("the passphrase does not open this archive, or the archive was changed")
        number += 1
