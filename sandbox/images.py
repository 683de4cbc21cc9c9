"""Generated pictures for the sandbox: real PNG and SVG files, no dependencies.

Every image asset the sandbox makes (image turns, image Content Apps, seed data)
is a real picture served at `/files/{id}.png` or `/files/{id}.svg`, sized as the
requested aspect asks. The picture is derived from the asset's prompt, so the
same prompt always draws the same picture and different prompts look different
(tests and screenshots can tell assets apart).

The PNG encoder builds each scanline with byte slicing instead of per-pixel
Python loops, so a 1344x576 picture encodes in a few milliseconds.
"""

from __future__ import annotations

import hashlib
import struct
import zlib
from html import escape

# Width x height per aspect; the long side is about 1024-1344 px like the real
# service's standard outputs.
ASPECT_SIZES: dict[str, tuple[int, int]] = {
    "4:5": (1024, 1280),
    "1:1": (1024, 1024),
    "16:9": (1280, 720),
    "9:16": (720, 1280),
    "4:3": (1024, 768),
    "3:4": (768, 1024),
    "21:9": (1344, 576),
}
DEFAULT_ASPECT = "4:5"

PNG_MIME = "image/png"
SVG_MIME = "image/svg+xml"


def size_for_aspect(aspect: str | None) -> tuple[int, int]:
    return ASPECT_SIZES.get(aspect or DEFAULT_ASPECT, ASPECT_SIZES[DEFAULT_ASPECT])


def palette_for(prompt: str) -> tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int]]:
    """Three colours (top, bottom, shape) chosen by the prompt's hash."""
    digest = hashlib.sha256((prompt or "").encode("utf-8")).digest()
    top = (digest[0], digest[1], digest[2])
    bottom = (digest[3] // 2, digest[4] // 2, digest[5] // 2)
    shape = (255 - digest[0] // 2, 255 - digest[6] // 2, 160 + digest[7] % 96)
    return top, bottom, shape


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def encode_png(width: int, height: int, rows: list[bytes]) -> bytes:
    """Encode RGB scanlines (each `width * 3` bytes) as a PNG file."""
    raw = b"".join(b"\x00" + row for row in rows)  # filter type 0 (None) per line
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", zlib.compress(raw, 6))
        + _png_chunk(b"IEND", b"")
    )


def render_png(*, prompt: str, width: int, height: int) -> bytes:
    """A vertical gradient with a disc and a band, coloured by the prompt."""
    top, bottom, shape = palette_for(prompt)
    shape_px = bytes(shape)
    band_px = bytes(255 - c for c in shape)
    cx, cy = width // 2, height * 2 // 5
    radius = min(width, height) // 4
    band_top, band_bottom = height * 3 // 4, height * 3 // 4 + max(height // 20, 4)
    band_left, band_right = width // 8, width * 7 // 8
    rows = []
    last_gradient_key = None
    gradient_row = b""
    for y in range(height):
        t = y / max(height - 1, 1)
        colour = bytes(int(top[i] + (bottom[i] - top[i]) * t) for i in range(3))
        if colour != last_gradient_key:
            gradient_row = colour * width
            last_gradient_key = colour
        row = gradient_row
        dy = y - cy
        if abs(dy) < radius:
            half = int((radius * radius - dy * dy) ** 0.5)
            x0, x1 = max(cx - half, 0), min(cx + half, width)
            row = row[: x0 * 3] + shape_px * (x1 - x0) + row[x1 * 3 :]
        if band_top <= y < band_bottom:
            row = row[: band_left * 3] + band_px * (band_right - band_left) + row[band_right * 3 :]
        rows.append(row)
    return encode_png(width, height, rows)


def render_svg(*, prompt: str, width: int, height: int, caption: str = "") -> bytes:
    """The same picture as `render_png`, as SVG (used for video posters)."""
    top, bottom, shape = palette_for(prompt)

    def hex_colour(rgb: tuple[int, int, int]) -> str:
        return "#{:02x}{:02x}{:02x}".format(*rgb)

    radius = min(width, height) // 4
    text = escape((caption or prompt or "")[:80])
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">'
        '<defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1">'
        f'<stop offset="0" stop-color="{hex_colour(top)}"/>'
        f'<stop offset="1" stop-color="{hex_colour(bottom)}"/>'
        "</linearGradient></defs>"
        f'<rect width="{width}" height="{height}" fill="url(#g)"/>'
        f'<circle cx="{width // 2}" cy="{height * 2 // 5}" r="{radius}" fill="{hex_colour(shape)}"/>'
        f'<text x="{width // 2}" y="{height * 17 // 20}" font-family="sans-serif" '
        f'font-size="{max(height // 24, 12)}" fill="#ffffff" text-anchor="middle">{text}</text>'
        "</svg>"
    ).encode()


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height read back from a PNG header (used by tests)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError("not a PNG file")
    return struct.unpack(">II", data[16:24])
