"""The one writer for every output file of mtscore (rules in docs/input.md, "Outputs").

* ``-`` is standard output.
* A regular file (or a name that does not exist yet) is written **atomically**: the text goes to a hidden
  temporary file in the same folder (``.NAME.XXXX.mtscore-tmp``), which is renamed over ``NAME`` only when
  everything was written. On any failure, including KeyboardInterrupt and SIGTERM (which the CLI turns
  into an exception), the temporary file is removed and ``NAME`` is left as it was. An existing file
  keeps its permission bits.
* Anything else that exists is **written through**, never replaced: a FIFO, a device node (``/dev/null``,
  ``/dev/full``, a terminal), or a symbolic link (the rules apply to its target; the link stays).
* ``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N`` and ``/proc/self/fd/N`` (also through symbolic links, and a
  regular file that is the same file as standard output or error) are written through the open file
  descriptor, at its current position: ``-o /dev/stdout > out.txt`` keeps what was printed before,
  ``-o /dev/stderr 2>>log`` appends, ``-o /dev/stdout | gzip`` and ``-o >(gzip > f)`` write into the pipe.
* Refused with :class:`OutputError` before anything is written: a path that is one of the run's inputs (the
  same file, by device and inode: hypotheses, references, labels, human scores, score files, files read
  from a data folder, the neural score cache; :func:`note_input` registers them as they are read), a
  read-only existing file, a directory, a missing parent folder, a read-only folder, a full device: one line
  with the path and the reason.

Directories of outputs (``score --save-stats DIR``, ``nbest --write-selections DIR``) are written as a
set with :class:`OutputSet`: every file goes to a temporary name first and all are renamed at the end,
so a failure leaves none of the new files behind.
"""
from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import sys
from typing import IO, Iterator

from .._testhooks import fault_point
from ..errors import OutputError

TMP_SUFFIX = ".mtscore-tmp"
# text files are UTF-8; a file name that is not UTF-8 (read from the command line as surrogate escapes) is
# written back as the bytes it was given, never an encoding traceback
_TEXT = {"encoding": "utf-8", "errors": "surrogateescape", "newline": ""}


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


# -- the run's inputs ------------------------------------------------------------------------------
_INPUTS: dict[tuple[int, int], str] = {}  # (st_dev, st_ino) of every regular file this run reads -> its name


_RESERVED: dict[str, str] = {}  # real path -> what it is: a file the run reads or makes that no output may take


def reset_inputs() -> None:
    """Forget the inputs (the CLI calls it at the start of every run)."""
    _INPUTS.clear()
    _RESERVED.clear()


def note_reserved(path, what: str) -> None:
    """A path no output may take, whether the file exists yet or not (the neural score cache: a run may create
    it before its outputs are written); ``what`` names it in the error."""
    try:
        _RESERVED[os.path.realpath(path)] = what
    except (OSError, ValueError, TypeError):
        return
    note_input(path)


def _refuse_reserved(real: str, shown: str) -> None:
    what = _RESERVED.get(os.path.realpath(real)) if _RESERVED else None
    if what is not None:
        raise OutputError(f"cannot write: it is {what}; choose another output file", shown)


def note_input(path, fd: int | None = None) -> None:
    """Register a file the run reads (by device and inode), so that no output replaces it."""
    try:
        st = os.fstat(fd) if fd is not None else os.stat(path)
    except (OSError, ValueError, TypeError):
        return
    if stat.S_ISREG(st.st_mode):
        _INPUTS.setdefault((st.st_dev, st.st_ino), os.fspath(path))


def note_inputs_in(values) -> None:
    """Register every existing regular file named by ``values`` (strings, nested lists, ``-m`` specs whose
    ``key=value`` parameters name files): the command line's inputs, known before any work."""
    for v in values:
        if isinstance(v, (list, tuple)):
            note_inputs_in(v)
        elif isinstance(v, (str, os.PathLike)):
            v = os.fspath(v)
            if not v or v == "-" or "\0" in v:
                continue
            cands = [v]
            if ":" in v or "=" in v:
                cands += [piece.split("=", 1)[1] for piece in re.split(r"[:,]", v) if "=" in piece]
            for c in cands:
                try:
                    if os.path.isfile(c):
                        note_input(c)
                except (OSError, ValueError):
                    pass


def _input_named(st: os.stat_result | None) -> str | None:
    if st is None or not stat.S_ISREG(st.st_mode):
        return None
    return _INPUTS.get((st.st_dev, st.st_ino))


def input_named(path) -> str | None:
    """The name under which the run read ``path`` (the same file by device and inode), else None."""
    try:
        return _input_named(os.stat(path))
    except (OSError, ValueError):
        return None


def _refuse_shown(real: str, st: os.stat_result | None, shown: str) -> None:
    """An existing regular file that must not be replaced: an input of the run, or read-only."""
    if st is None or not stat.S_ISREG(st.st_mode):
        return
    name = _input_named(st)
    if name is not None:
        same = "" if os.path.abspath(name) == os.path.abspath(shown) else f" (read as {name})"
        raise OutputError(f"cannot write: it is one of this run's inputs{same}; choose another output file", shown)
    if not (st.st_mode & 0o222) or not os.access(real, os.W_OK):
        raise OutputError("cannot write: the file is read-only (it is not replaced)", shown)


# -- file descriptors named as paths ---------------------------------------------------------------
_FD_LINK = re.compile(r"/dev/(?:fd/(?P<fd>\d+)|(?P<std>stdin|stdout|stderr))"
                      r"|/proc/(?P<pid>self|thread-self|\d+)(?:/task/\d+)?/fd/(?P<pfd>\d+)")
_STD = {"stdin": 0, "stdout": 1, "stderr": 2}


def fd_of_path(path: str) -> int | None:
    """The file descriptor of this process that ``path`` names (``/dev/stdout``, ``/dev/fd/63``,
    ``/proc/self/fd/N``, or a symbolic link to one of them), else None."""
    try:
        p = os.path.normpath(os.path.abspath(path))
        for _ in range(16):
            m = _FD_LINK.fullmatch(p)
            if m:
                if m.group("std"):
                    return _STD[m.group("std")]
                if m.group("fd") is not None:
                    return int(m.group("fd"))
                pid = m.group("pid")
                if pid in ("self", "thread-self") or int(pid) == os.getpid():
                    return int(m.group("pfd"))
                return None
            if not os.path.islink(p):
                return None
            p = os.path.normpath(os.path.join(os.path.dirname(p), os.readlink(p)))
    except (OSError, ValueError):
        return None
    return None


def _refuse_input_fd(fd: int, shown: str) -> None:
    """``/dev/fd/N``, ``/proc/self/fd/N`` (or ``/dev/stdout``) open on one of the run's inputs: refused like the
    input's own name (the same device-and-inode rule), so ``-o /dev/fd/7 7<>hyp.txt`` cannot write over it."""
    try:
        st = os.fstat(fd)
    except OSError:
        return  # not open: the write says so
    name = _input_named(st)
    if name is not None:
        raise OutputError(f"cannot write: file descriptor {fd} is open on one of this run's inputs ({name}); "
                          "choose another output file", shown)


def _same_as_std(st: os.stat_result | None) -> int | None:
    """1 or 2 when the regular file ``st`` is this process's standard output or error."""
    if st is None or not stat.S_ISREG(st.st_mode):
        return None
    for fd in (1, 2):
        try:
            o = os.fstat(fd)
        except OSError:
            continue
        if (o.st_dev, o.st_ino) == (st.st_dev, st.st_ino):
            return fd
    return None


@contextlib.contextmanager
def _through_fd(fd: int, shown: str, binary: bool) -> Iterator[IO]:
    """Write through an open descriptor at its position: Python's own stream for 1 and 2 (what was printed
    before stays, in order), a duplicate for any other."""
    if fd in (1, 2):
        stream = sys.stdout if fd == 1 else sys.stderr
        if stream is None:
            raise OutputError(f"cannot write: standard {'output' if fd == 1 else 'error'} is closed", shown)
        try:
            stream.flush()
            fh = _AllWriter(stream)
            yield fh
            fh.flush()
        except OSError as exc:
            if fd == 1:
                _drop_stdout()
            raise output_error(shown, exc) from None
        except ValueError:  # I/O operation on a closed file
            raise OutputError(f"cannot write: standard {'output' if fd == 1 else 'error'} is closed",
                              shown) from None
        return
    try:
        dup = os.dup(fd)
    except OSError:
        raise OutputError(f"cannot write: file descriptor {fd} is not open", shown) from None
    try:
        fh = os.fdopen(dup, "wb" if binary else "w", **({} if binary else _TEXT))
    except OSError as exc:
        os.close(dup)
        raise output_error(shown, exc) from None
    try:
        with fh:
            yield fh
    except OSError as exc:
        raise output_error(shown, exc) from None


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
    """Fail early (before any work) when ``path`` cannot be an output: a directory, a missing folder, an
    input of the run (those known so far), a read-only file."""
    path = os.fspath(path)
    if path == "-":
        return
    fd = fd_of_path(path)
    if fd is not None:
        _refuse_input_fd(fd, path)
        return
    real, st = _target(path)
    _refuse_reserved(real, path)
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise OutputError("cannot write: is a directory", path)
        if _same_as_std(st) is None:
            _refuse_shown(real, st, path)
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
        with _through_fd(1, "<stdout>", binary) as fh:
            yield fh
        return
    fd = fd_of_path(path)
    if fd is not None:
        _refuse_input_fd(fd, path)
        with _through_fd(fd, path, binary) as fh:
            yield fh
        return
    real, st = _target(path)
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise OutputError("cannot write: is a directory", path)
    std = _same_as_std(st)
    if std is not None:  # -o out.txt > out.txt: one file, written in order
        with _through_fd(std, path, binary) as fh:
            yield fh
        return
    _refuse_reserved(real, path)
    _refuse_shown(real, st, path)
    if st is not None and not stat.S_ISREG(st.st_mode):
        # FIFO, device, socket ...: written through, never replaced
        try:
            fh = open(real, "wb" if binary else "w", **({} if binary else _TEXT))
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
            fh = open(tmp, "wb" if binary else "w", **({} if binary else _TEXT))
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
    import tempfile  # on use: a run that writes no file does not import it (start-up time)
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
        write_to(out, text)
        out.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as exc:  # ValueError: I/O operation on closed file
        _drop_stdout()
        if isinstance(exc, OSError):
            raise output_error("<stdout>", exc) from None
        raise OutputError("cannot write: standard output is closed", "<stdout>") from None


def write_to(stream, text) -> None:
    """Write all of ``text`` (str or bytes) to a standard stream. Through its binary buffer in a loop: with
    ``PYTHONUNBUFFERED`` (or ``python -u``) that buffer is the raw file, whose ``write`` may take part of the
    data (a pipe whose reader went away: ``| head``), and the text layer would drop the rest silently, exit 0;
    here the next write raises BrokenPipeError (exit 141). Text the stream's encoding rejects (a file name that
    is not UTF-8, held as surrogate escapes) goes out as the bytes it came in as."""
    buf = getattr(stream, "buffer", None)
    if buf is None:  # an in-memory stream (tests), or a binary one
        if isinstance(text, (bytes, bytearray)) and not hasattr(stream, "encoding"):
            stream.write(text)
            return
        if isinstance(text, (bytes, bytearray)):
            text = text.decode("utf-8", "surrogateescape")
        try:
            stream.write(text)
        except UnicodeEncodeError:
            stream.write(text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"))
        return
    if isinstance(text, str):
        enc = getattr(stream, "encoding", None) or "utf-8"
        try:
            data = text.encode(enc, getattr(stream, "errors", None) or "strict")
        except UnicodeEncodeError:
            data = text.encode(enc, "surrogateescape")
    else:
        data = bytes(text)
    stream.flush()
    view = memoryview(data)
    while len(view):
        n = buf.write(view)
        if n is None:  # a non-blocking stream that would block: wait for it
            import select
            select.select([], [buf], [])
            continue
        view = view[n:]
    buf.flush()


class _AllWriter:
    """A file object over a standard stream whose ``write`` writes everything (:func:`write_to`)."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text):
        write_to(self.stream, text)
        return len(text)

    def flush(self):
        self.stream.flush()


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
        try:
            st = os.stat(final)
        except OSError:
            st = None
        _refuse_shown(final, st, self.path(name))
        tmp = _temp_for(final, self.path(name))
        self._staged.append((tmp, final))
        try:
            if isinstance(data, (bytes, bytearray)):
                with open(tmp, "wb") as fh:
                    fh.write(data)
            elif isinstance(data, str):
                with open(tmp, "w", **_TEXT) as fh:
                    fh.write(data)
            else:  # a callable that writes to a binary file object (e.g. pyarrow.parquet.write_table); an open
                with open(tmp, "wb") as fh:  # file, not a name: pyarrow cannot encode a name that is not UTF-8
                    data(fh)
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
