"""Chunked, line-exact reading of several parallel files in lockstep (for corpora larger than memory).

The same rules as :mod:`mtscore.io.text` for segment files (UTF-8 with file:line errors, CRLF, a
leading BOM kept in segment 1 with a warning unless ``strip_bom``, ``-``, ``.gz``), but the files are read block by block and yielded as chunks of ``chunk_size`` aligned lines.
Files that end at different line counts raise :class:`InputError` naming every file and its count.
"""
from __future__ import annotations

import gzip
import os
import sys
import zlib
from dataclasses import dataclass
from typing import Iterator, Sequence

from .._testhooks import fault_point
from ..errors import InputError
from .text import count_detail, read_error, too_long, warn_bom

BLOCK = 1 << 20


class LineReader:
    """Iterate the decoded lines of one file, line-exact, reading ``BLOCK`` bytes at a time."""

    def __init__(self, path: str, strip_bom: bool = False):
        self.path = os.fspath(path)
        self.strip_bom = strip_bom
        self.line_no = 0  # lines yielded so far

    def _open(self):
        if self.path == "-":
            return sys.stdin.buffer
        try:
            fh = open(self.path, "rb")
            if self.path.endswith(".gz"):
                return gzip.GzipFile(fileobj=fh)
            return fh
        except FileNotFoundError:
            raise InputError("no such file", self.path) from None
        except IsADirectoryError:
            raise InputError("is a directory, not a file", self.path) from None
        except PermissionError:
            raise InputError("permission denied", self.path) from None
        except OSError as exc:
            raise InputError(f"cannot read: {exc}", self.path) from None

    def __iter__(self) -> Iterator[str]:
        for lines in self.blocks():
            yield from lines

    def blocks(self) -> Iterator[list[str]]:
        """The lines block by block (a list per ``BLOCK`` bytes read): what :func:`iter_parallel_chunks`
        slices into chunks without a Python step per line."""
        fh = self._open()
        first = True
        pending: list[bytes] = []  # blocks of a line longer than BLOCK (joined once, not copied per block)
        pending_len = 0
        self.offset = 0  # byte offset (of the decompressed data) of the next line
        try:
            while True:
                try:
                    fault_point("read")
                    block = fh.read(BLOCK)
                except (OSError, EOFError, zlib.error) as exc:
                    raise read_error(exc, self.path, self.line_no) from None
                if not block:
                    break
                cut = block.rfind(b"\n")
                if cut < 0:
                    pending.append(block)
                    pending_len += len(block)
                    continue
                try:
                    data = b"".join(pending + [block[:cut]])
                    lines = self._decode(data, first)
                except MemoryError:
                    raise too_long(self.path, self.line_no + 1, pending_len + cut) from None
                pending, pending_len = [block[cut + 1:]], len(block) - cut - 1
                self.offset += len(data) + 1
                yield lines
                first = False
            if pending_len:
                try:
                    lines = self._decode(b"".join(pending), first)
                except MemoryError:
                    raise too_long(self.path, self.line_no + 1, pending_len) from None
                yield lines
        except MemoryError:
            raise too_long(self.path, self.line_no + 1, pending_len) from None
        finally:
            if fh is not sys.stdin.buffer:
                fh.close()

    def _decode(self, data: bytes, first: bool) -> list[str]:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = self.line_no + data.count(b"\n", 0, exc.start) + 1
            raise InputError(
                f"invalid UTF-8 (byte 0x{data[exc.start]:02x} at byte offset {self.offset + exc.start}); "
                "files must be UTF-8", self.path, line) from None
        if first and text.startswith("\ufeff"):
            if self.strip_bom:
                text = text[1:]
            else:
                warn_bom(self.path)
        lines = text.split("\n")
        if "\r" in text:
            lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
        self.line_no += len(lines)
        return lines


@dataclass
class Chunk:
    index: int  # chunk number, 0-based
    start: int  # 0-based index of the first segment
    columns: list[list[str]]  # one list of lines per file, all of the same length


def iter_parallel_chunks(paths: Sequence[str], chunk_size: int, strip_bom: bool = False) -> Iterator[Chunk]:
    """Yield aligned chunks of ``chunk_size`` lines from all ``paths`` (read in lockstep)."""
    if chunk_size < 1:
        from ..errors import InvalidParameterError
        raise InvalidParameterError(f"chunk_size: must be >= 1, got {chunk_size}")
    readers = [LineReader(p, strip_bom) for p in paths]
    sources = [_Lines(r.blocks()) for r in readers]
    index = start = 0
    while True:
        cols = [src.take(chunk_size) for src in sources]
        lens = {len(c) for c in cols}
        if len(lens) > 1:
            # Count the rest of every file so that the message can give the full line counts.
            totals = []
            for src, c in zip(sources, cols):
                totals.append(start + len(c) + src.count_rest())
            raise InputError(f"files differ in line count: {count_detail((r.path, t) for r, t in zip(readers, totals))}")
        n = lens.pop() if lens else 0
        if n == 0:
            return
        yield Chunk(index, start, cols)
        index += 1
        start += n
        if n < chunk_size:
            # all files ended together; make sure none has more (they all returned short chunks)
            return


class _Lines:
    """The lines of a :meth:`LineReader.blocks` iterator, handed out ``n`` at a time by list slicing."""

    def __init__(self, blocks: Iterator[list[str]]):
        self.blocks = blocks
        self.buf: list[str] = []
        self.pos = 0

    def take(self, n: int) -> list[str]:
        out: list[str] = []
        while len(out) < n:
            if self.pos >= len(self.buf):
                self.buf, self.pos = next(self.blocks, None), 0
                if self.buf is None:
                    self.buf = []
                    break
                continue
            got = self.buf[self.pos:self.pos + n - len(out)]
            self.pos += len(got)
            if out:
                out.extend(got)
            else:
                out = got
        if self.pos >= len(self.buf):  # drop a used-up block now (memory: one block at a time)
            self.buf, self.pos = [], 0
        return out

    def count_rest(self) -> int:
        return len(self.buf) - self.pos + sum(len(b) for b in self.blocks)
