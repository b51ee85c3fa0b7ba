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
from .output import note_input
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
            note_input(self.path, fh.fileno())  # no output of this run may replace it (io.output)
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
        slices into chunks without a Python step per line.

        The bytes are read into one reused buffer (``readinto``): the unfinished last line of a block moves to
        its front and the next read fills the rest; a line longer than the buffer doubles it. No new
        ``BLOCK``-sized bytes object per read, and no copies of it: memory the C library would otherwise map
        and unmap again for every block (page faults: ~0.1 s of system time per million lines)."""
        fh = self._open()
        _adapt_malloc()
        first = True
        buf = bytearray(BLOCK)
        filled = 0  # bytes at the front of buf: the start of a line whose end is not read yet
        self.offset = 0  # byte offset (of the decompressed data) of the next line
        try:
            while True:
                if filled == len(buf):  # one line fills the buffer: double it
                    buf.extend(bytes(len(buf)))
                try:
                    fault_point("read")
                    with memoryview(buf) as view:
                        got = fh.readinto(view[filled:])
                except (OSError, EOFError, zlib.error) as exc:
                    raise read_error(exc, self.path, self.line_no) from None
                if not got:
                    break
                end = filled + got
                cut = buf.rfind(b"\n", filled, end)  # the bytes before `filled` hold no line break
                if cut < 0:
                    filled = end
                    continue
                lines = self._decode(buf, cut, first)
                self.offset += cut + 1
                filled = end - cut - 1
                buf[:filled] = buf[cut + 1:end]
                if filled < BLOCK < len(buf):  # back to BLOCK after a long line
                    del buf[BLOCK:]
                yield lines
                first = False
            if filled:
                yield self._decode(buf, filled, first)
        except MemoryError:
            raise too_long(self.path, self.line_no + 1, filled) from None
        finally:
            if fh is not sys.stdin.buffer:
                fh.close()

    def _decode(self, data: bytearray, n: int, first: bool) -> list[str]:
        """The lines of ``data[:n]`` (decoded in place, no copy of the bytes)."""
        try:
            with memoryview(data) as view, view[:n] as part:
                text = str(part, "utf-8")
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


_adapted = False


def _adapt_malloc() -> None:
    """Once per process: allocate and free a 4 MiB buffer (never written: its pages are never touched).

    Every block decodes to a new str of up to ~2 MiB (UCS-2 as soon as a line holds a character above
    U+00FF), which CPython's UTF-8 decoder allocates large and then shrinks. glibc's malloc serves requests
    above its mmap threshold (128 KiB at first) with a fresh mapping, and only raises that threshold when it
    frees a mapped chunk larger than it: the shrunken str never is, so every block was mapped, faulted in
    page by page and unmapped again (~150,000 page faults and ~0.15 s of system time per million lines).
    Freeing one mapped 4 MiB chunk raises the threshold above the decoded blocks (and the heap's trim
    threshold to twice that), as glibc documents for M_MMAP_THRESHOLD; other C libraries just free it."""
    global _adapted
    if not _adapted:
        _adapted = True
        bytes(4 << 20)  # calloc: allocated (a fresh zero mapping, not written) and freed at once


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
