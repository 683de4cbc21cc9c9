"""Reading an uploaded spreadsheet (CSV) for an import: its encoding and
separator guessed from its first bytes, then one parsed row at a time with
the file's line number and the byte offset where the next row starts, so a
job step resumes by seeking there instead of parsing the file again, and
100,000 rows take the memory of one (tests/objects/test_import_memory.py).
What the rows mean for an object is objects/imports.py's concern."""

from __future__ import annotations

import codecs
import csv
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

from django.conf import settings

MAX_LINE_BYTES = 1024 * 1024  # one physical line; a longer one is refused, never read whole
MAX_COLUMNS = 200
SAMPLE_ROWS = 3  # rows shown under each column on the mapping page


class ImportFileError(ValueError):
    """The file cannot be read as CSV; the message says why, for the person."""


def max_upload_bytes() -> int:
    return int(settings.OBJECTS_IMPORT_MAX_BYTES)


SNIFF_BYTES = 64 * 1024  # what the encoding and the separator are guessed from
DELIMITERS = (",", ";", "\t", "|")
ENCODING_NAMES = {"utf-8": "UTF-8", "cp1252": "Windows-1252", "iso8859-1": "Latin-1", "cp1251": "Windows-1251"}
DELIMITER_NAMES = {",": "commas", ";": "semicolons", "\t": "tabs", "|": "vertical bars"}


@dataclass(frozen=True)
class FileFormat:
    """How the file is written: its encoding (UTF-8, or what
    charset-normalizer recognised, e.g. a spreadsheet's Windows-1252 or
    Latin-1) and its separator (commas, or the semicolons and tabs of
    spreadsheets set to a European locale). Stored on the job at upload."""

    encoding: str = "utf-8"
    delimiter: str = ","

    @classmethod
    def of(cls, params: dict) -> FileFormat:
        encoding = str(params.get("encoding") or "utf-8")
        delimiter = str(params.get("delimiter") or ",")
        return cls(encoding=encoding, delimiter=delimiter if delimiter in DELIMITERS else ",")

    def as_params(self) -> dict[str, str]:
        return {"encoding": self.encoding, "delimiter": self.delimiter}

    @property
    def described(self) -> str:
        """In the person's words: "UTF-8 text separated by commas"."""
        name = ENCODING_NAMES.get(self.encoding) or self.encoding.replace("_", "-").upper()
        return f"{name} text separated by {DELIMITER_NAMES[self.delimiter]}"


def _ascii_compatible(encoding: str) -> bool:
    """Lines are split on the byte of a newline: only encodings that write
    ASCII as ASCII (not UTF-16 or UTF-32) can be read a line at a time."""
    try:
        return "\n".encode(encoding) == b"\n" and "a,;".encode(encoding) == b"a,;"
    except (LookupError, UnicodeError):
        return False


def sniff_format(handle: IO[bytes]) -> FileFormat:
    """The encoding and separator, guessed from the start of the file."""
    handle.seek(0)
    sample = handle.read(SNIFF_BYTES)
    handle.seek(0)
    if sample.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise ImportFileError("The file is UTF-16 text. Save it as “CSV UTF-8” and upload it again.")
    if sample.startswith(codecs.BOM_UTF8):
        sample = sample[len(codecs.BOM_UTF8) :]
    encoding = "utf-8"
    try:
        # Not final: the sample may end inside a character.
        text = codecs.getincrementaldecoder("utf-8")().decode(sample, final=False)
    except UnicodeDecodeError:
        found = _guess_encoding(sample)
        if not found or not _ascii_compatible(found):
            raise ImportFileError(
                "The file’s text encoding could not be recognised. Save it as “CSV UTF-8” and upload it again."
            ) from None
        encoding = found
        text = sample.decode(encoding, errors="replace")
    return FileFormat(encoding=encoding, delimiter=_delimiter(text))


WESTERN = "cp1252"  # what spreadsheets on Windows and macOS write when not UTF-8
NEAR_CHAOS = 0.1


def _guess_encoding(sample: bytes) -> str:
    """charset-normalizer's best guess, except that Windows-1252 wins when
    it reads the sample about as cleanly (a short French or German sample
    reads as well in Baltic or Central European code pages) or when the
    sample holds too few letters for any language to show."""
    from charset_normalizer import from_bytes

    results = from_bytes(sample)
    best = results.best()
    near = {
        codecs.lookup(name).name
        for m in results
        if best is not None and m.chaos <= best.chaos + NEAR_CHAOS
        for name in [m.encoding, *m.could_be_from_charset]  # the code pages that read the sample the same
    }
    if best is None or WESTERN in near or best.coherence < 0.1:
        try:
            sample.decode(WESTERN)
        except UnicodeDecodeError:
            pass
        else:
            return WESTERN
    return codecs.lookup(best.encoding).name if best is not None else ""


def _delimiter(text: str) -> str:
    """The separator the first line (the column names) uses most, outside
    quotes; commas when it has none (a one-column file)."""
    first = text.split("\n", 1)[0]
    outside = re.sub(r'"[^"]*"', "", first)
    counts = {d: outside.count(d) for d in DELIMITERS}
    best = max(DELIMITERS, key=lambda d: (counts[d], d == ","))
    return best if counts[best] else ","


class _Lines:
    """Decoded lines of a binary file from a byte offset; `offset` is where
    the next line starts once the csv reader has taken what it needs (it
    never reads ahead of the row it returns), `line_number` the physical
    lines read so far (a quoted newline counts, as in a spreadsheet)."""

    def __init__(self, handle: IO[bytes], start: int, *, encoding: str = "utf-8", first_line: int = 1) -> None:
        handle.seek(start)
        self.handle = handle
        self.offset = start
        self.encoding = encoding
        self.line_number = first_line - 1

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        raw = self.handle.readline(MAX_LINE_BYTES + 1)
        if not raw:
            raise StopIteration
        if len(raw) > MAX_LINE_BYTES:
            raise ImportFileError("A line of the file is longer than 1 MB; is it really a CSV file?")
        if self.offset == 0 and raw.startswith(codecs.BOM_UTF8):
            raw = raw[len(codecs.BOM_UTF8) :]
            self.offset += len(codecs.BOM_UTF8)
        self.offset += len(raw)
        self.line_number += 1
        try:
            return raw.decode(self.encoding)
        except UnicodeDecodeError:
            name = FileFormat(encoding=self.encoding).described.split(" text")[0]
            raise ImportFileError(
                f"Line {self.line_number} is not {name} text like the start of the file. "
                "Save the file as “CSV UTF-8” and upload it again."
            ) from None


@dataclass(frozen=True)
class Row:
    number: int  # 1 = the first row after the header (the row's write key derives from it)
    line: int  # the spreadsheet's line where the row starts: the header is line 1, quoted newlines count
    cells: list[str]
    end: int  # byte offset where the next row starts
    end_line: int  # the last line the row took


def read_rows(
    handle: IO[bytes],
    *,
    start: int = 0,
    first_number: int = 1,
    first_line: int = 0,
    file_format: FileFormat = FileFormat(),
) -> Iterator[Row]:
    """Parsed rows from byte offset `start` (which must begin a row, on line
    `first_line`, known from the row before it). From 0 the header is read
    first and not yielded."""
    lines = _Lines(handle, start, encoding=file_format.encoding, first_line=first_line or 1)
    reader = csv.reader(lines, delimiter=file_format.delimiter)
    try:
        if start == 0:
            next(reader, None)
        number = first_number
        while True:
            line = lines.line_number + 1
            cells = next(reader, None)
            if cells is None:
                break
            if not any(cell.strip() for cell in cells):
                number += 1  # a blank line still counts, so row numbers match the file
                continue
            yield Row(number=number, line=line, cells=cells[:MAX_COLUMNS], end=lines.offset, end_line=lines.line_number)
            number += 1
    except csv.Error as exc:
        raise ImportFileError(f"The file could not be read as CSV near line {lines.line_number}: {exc}.") from None


def read_header(handle: IO[bytes], file_format: FileFormat = FileFormat()) -> tuple[list[str], int]:
    """The header's cells and the byte offset of the first data row."""
    lines = _Lines(handle, 0, encoding=file_format.encoding)
    try:
        header = next(csv.reader(lines, delimiter=file_format.delimiter), None)
    except csv.Error as exc:
        raise ImportFileError(f"The first line could not be read as CSV: {exc}.") from None
    if not header or not any(cell.strip() for cell in header):
        raise ImportFileError("The file is empty: its first line should name the columns.")
    if len(header) > MAX_COLUMNS:
        raise ImportFileError(f"The file has {len(header)} columns; at most {MAX_COLUMNS} can be imported.")
    return [cell.strip() for cell in header], lines.offset


def scan(handle: IO[bytes], file_format: FileFormat = FileFormat()) -> tuple[list[str], int, list[list[str]]]:
    """(header, data rows, the first rows as a sample), reading the whole file
    once, a row at a time: a file that is not CSV is refused at upload."""
    header, _start = read_header(handle, file_format)
    count = 0
    sample: list[list[str]] = []
    for row in read_rows(handle, file_format=file_format):
        count += 1
        if len(sample) < SAMPLE_ROWS:
            sample.append(row.cells)
    return header, count, sample


def sample_rows(handle: IO[bytes], file_format: FileFormat = FileFormat()) -> list[list[str]]:
    rows = []
    for row in read_rows(handle, file_format=file_format):
        rows.append(row.cells)
        if len(rows) >= SAMPLE_ROWS:
            break
    return rows
