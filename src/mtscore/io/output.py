"""The one writer for every output file of mtscore (rules in docs/input.md, "Outputs").

* ``-`` is standard output.
* A regular file (or a name that does not exist yet) is written **atomically**: the text goes to a hidden
  temporary file in the same folder (``.NAME.XXXX.mtscore-tmp``), which is renamed over ``NAME`` only when
  everything was written. On any failure, including KeyboardInterrupt and SIGTERM (which the CLI turns
  into an exception), the temporary file is removed and ``NAME`` is left as it was. An existing file
  keeps its permission bits.
* Anything else that exists is **written through**, never replaced: a FIFO, a device node (``/dev/null``,
  ``/dev/full``, a terminal), or a symbolic link (the rules apply to its target; the link stays).
* A directory, a missing parent folder, a read-only folder, a full device: :class:`OutputError`, one line
  with the path and the reason.

Directories of outputs (``score --save-stats DIR``, ``nbest --write-selections DIR``) are written as a
set with :class:`OutputSet`: every file goes to a temporary name first and all are renamed at the end,
so a failure leaves none of the new files behind.
"""
from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import tempfile
from typing import IO, Iterator

from .._testhooks import fault_point
from ..errors import OutputError

TMP_SUFFIX = ".mtscore-tmp"


def _reason(exc: OSError) -> str:
    if exc.errno == errno.ENOSPC:
        return "no space left on the device"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.EROFS:
        return "read-only file system"
    if exc.errno == errno.EISDIR:
        return "is a directory"
    if exc.errno == errno.ENOENT:
        return "the folder does not exist"
    if exc.errno == errno.ENOTDIR:
        return "a parent in the path is not a folder"
    if exc.errno == errno.EPIPE:
        return "broken pipe"
    return exc.strerror or type(exc).__name__


def output_error(path, exc: OSError) -> OutputError:
    return OutputError(f"cannot write: {_reason(exc)}", os.fspath(path))


def _umask_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _target(path: str) -> tuple[str, os.stat_result | None]:
    """(the path the data goes to, its stat or None). Symbolic links are followed to their target."""
    real = os.path.realpath(path) if os.path.islink(path) else path
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return real, None
    except OSError as exc:
        raise output_error(path, exc) from None
    return real, st


def check_writable(path) -> None:
    """Fail early (before any work) when ``path`` cannot be an output: a directory or a missing folder."""
    path = os.fspath(path)
    if path == "-":
        return
    real, st = _target(path)
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise OutputError("cannot write: is a directory", path)
        return
    folder = os.path.dirname(real) or "."
    if not os.path.isdir(folder):
        raise OutputError("cannot write: the folder does not exist", path)


def check_folder(path) -> None:
    """Fail early when ``path`` cannot be an output folder: an existing non-folder, or a missing parent."""
    path = os.fspath(path)
    real = os.path.realpath(path)
    if os.path.exists(real):
        if not os.path.isdir(real):
            raise OutputError("cannot write: exists and is not a folder", path)
    elif not os.path.isdir(os.path.dirname(os.path.abspath(real))):
        raise OutputError("cannot write: the parent folder does not exist", path)


@contextlib.contextmanager
def open_output(path, binary: bool = False) -> Iterator[IO]:
    """A file object for ``path`` following the module rules; the file appears only if the block succeeds."""
    path = os.fspath(path)
    if path == "-":
        fh = sys.stdout.buffer if binary else sys.stdout
        if fh is None:
            raise OutputError("cannot write: standard output is closed", "-")
        try:
            yield fh
            fh.flush()
        except OSError as exc:
            raise output_error("<stdout>", exc) from None
        return
    real, st = _target(path)
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise OutputError("cannot write: is a directory", path)
    if st is not None and not stat.S_ISREG(st.st_mode):
        # FIFO, device, socket ...: written through, never replaced
        try:
            fh = open(real, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8", "newline": ""}))
        except OSError as exc:
            raise output_error(path, exc) from None
        try:
            with fh:
                yield fh
        except OSError as exc:
            raise output_error(path, exc) from None
        return
    tmp = _temp_for(real, path)
    try:
        try:
            fh = open(tmp, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8", "newline": ""}))
            with fh:
                yield fh
            os.chmod(tmp, stat.S_IMODE(st.st_mode) if st is not None else _umask_mode())
            fault_point("write")
            os.replace(tmp, real)
            tmp = None
        except OSError as exc:
            raise output_error(path, exc) from None
    finally:
        if tmp is not None:
            _remove(tmp)


def _temp_for(real: str, shown: str) -> str:
    folder, name = os.path.split(real)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=TMP_SUFFIX, dir=folder or ".")
    except OSError as exc:
        raise output_error(shown, exc) from None
    os.close(fd)
    return tmp


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def write_text(path, text: str) -> None:
    """Write ``text`` to ``path`` (``-`` = standard output) following the module rules."""
    with open_output(path) as fh:
        fh.write(text)


def write_stdout(text: str) -> None:
    """Write a complete result to stdout at once (nothing is printed before the work succeeded)."""
    if not text.endswith("\n"):
        text += "\n"
    out = sys.stdout
    if out is None:
        raise OutputError("cannot write: standard output is closed", "<stdout>")
    try:
        out.write(text)
        out.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as exc:  # ValueError: I/O operation on closed file
        _drop_stdout()
        if isinstance(exc, OSError):
            raise output_error("<stdout>", exc) from None
        raise OutputError("cannot write: standard output is closed", "<stdout>") from None


def _drop_stdout() -> None:
    """Point fd 1 at /dev/null so that the interpreter's final flush cannot fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:
        pass


class OutputSet:
    """Several files in one output folder, written as a set: nothing of it appears unless all succeed.

    ``add(name, text_or_bytes)`` stages a file (to a temporary name in the folder); ``commit()`` renames all
    staged files into place; leaving the ``with`` block without ``commit()`` (an error, an interrupt)
    removes every staged file, and the folder too if this set created it.
    """

    def __init__(self, folder, create: bool = True):
        self.folder = os.fspath(folder)
        self._staged: list[tuple[str, str]] = []  # (temp, final)
        self._created = False
        real = os.path.realpath(self.folder)
        if os.path.exists(real):
            if not os.path.isdir(real):
                raise OutputError("cannot write: exists and is not a folder", self.folder)
        else:
            if not create:
                raise OutputError("cannot write: the folder does not exist", self.folder)
            parent = os.path.dirname(os.path.abspath(real))
            if not os.path.isdir(parent):
                raise OutputError("cannot write: the parent folder does not exist", self.folder)
            try:
                os.mkdir(real)
            except OSError as exc:
                raise output_error(self.folder, exc) from None
            self._created = True
        self.real = real

    def __enter__(self) -> "OutputSet":
        return self

    def __exit__(self, *exc) -> None:
        self.discard()

    def path(self, name: str) -> str:
        return os.path.join(self.folder, name)

    def add(self, name: str, data) -> None:
        final = os.path.join(self.real, name)
        if os.path.isdir(final):
            raise OutputError("cannot write: is a directory", self.path(name))
        tmp = _temp_for(final, self.path(name))
        self._staged.append((tmp, final))
        try:
            if isinstance(data, (bytes, bytearray)):
                with open(tmp, "wb") as fh:
                    fh.write(data)
            elif isinstance(data, str):
                with open(tmp, "w", encoding="utf-8", newline="") as fh:
                    fh.write(data)
            else:  # a callable that writes to a path (e.g. pyarrow.parquet.write_table)
                data(tmp)
            os.chmod(tmp, _umask_mode())
        except OSError as exc:
            raise output_error(self.path(name), exc) from None

    def commit(self) -> list[str]:
        done = []
        try:
            fault_point("write")
            for tmp, final in self._staged:
                os.replace(tmp, final)
                done.append(final)
        except OSError as exc:
            raise output_error(self.folder, exc) from None
        self._staged = []
        self._created = False
        return done

    def discard(self) -> None:
        for tmp, _ in self._staged:
            _remove(tmp)
        self._staged = []
        if self._created:
            try:
                os.rmdir(self.real)
            except OSError:
                pass
            self._created = False
