"""What both commands write, written as a command-line tool should: standard output and the files of `-o`,
`--out`, `--plan` and `--html`.

- A reader that goes away (`rmqlint . | head`) ends the output quietly: the rest is dropped, no message, and the
  command's exit status is what it would have been.
- A write that fails (a full disk, `> /dev/full`) is one line on stderr, `PROG: cannot write the output: REASON`,
  and exit status 2 (`OutputFailed`, turned into that line by `run_command`). Standard output closed before the
  command started (`>&-`) is such a failure, `standard output is closed`, when the command writes to it.
- A list of errors (a fleet.toml's, a configuration's) shows the first ERROR_LIMIT and then how many more there
  are, as compilers do: 100,000 errors are not 100,000 lines.
- Ctrl-C (SIGINT) and SIGTERM are one line, `PROG: interrupted` (`terminated`), exit status 130 (143), and leave
  no temporary file or directory behind (`rmqlint.interrupts`).
- A file or directory we create gets the permissions any other tool's would: 0666 or 0777 less the umask (a
  temporary file from `tempfile` is 0600, a temporary directory 0700, which a shared file system's other users
  cannot read). Files are written atomically: a temporary file beside the target, renamed over it; an existing
  file keeps its permissions, a symbolic link stays a link (its file is replaced), and what is no file (a device
  such as /dev/full or /dev/stdout, a FIFO) is written in place, as `>` would.
"""

from __future__ import annotations

import errno
import os
import signal
import stat
import sys
import tempfile
from typing import Callable, Optional

from rmqlint.interrupts import EXIT_STATUS, Terminated, deferred, terminate_raises

EXIT_OUTPUT = 2
ERROR_LIMIT = 100  # the errors of one input shown, as javac's -Xmaxerrs (100) and clang's -ferror-limit (20) cap theirs


def more_errors(count: int, where: Optional[str] = None) -> str:
    """The line after the first ERROR_LIMIT errors (of `where`, a file): how many more there are."""
    line = f"... and {count:,} more {'error' if count == 1 else 'errors'} (the first {ERROR_LIMIT} are shown)"
    return f"{where}: {line}" if where else line


def first_errors(lines: list[str]) -> list[str]:
    """`lines`, or their first ERROR_LIMIT and the line saying how many more there are."""
    if len(lines) <= ERROR_LIMIT:
        return lines
    return [*lines[:ERROR_LIMIT], more_errors(len(lines) - ERROR_LIMIT)]


class OutputFailed(Exception):
    """Standard output cannot be written (not a closed pipe: that is quiet); `reason` says why, for one line."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class GuardedOutput:
    """A text stream (standard output) whose write errors are `OutputFailed`, and whose reader going away makes
    every later write a no-op. Everything else is the wrapped stream's."""

    def __init__(self, stream):
        self._stream = stream
        self.reader_gone = False

    def write(self, text: str) -> int:
        if self.reader_gone:
            return len(text)
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._drop()
            return len(text)
        except OSError as e:
            self._fail(e)

    def write_bytes(self, data: bytes) -> None:
        """Bytes as they are (a patch in the files' own encodings), after the text written so far."""
        self.flush()
        if self.reader_gone:
            return
        try:
            self._stream.buffer.write(data)
            self._stream.buffer.flush()
        except BrokenPipeError:
            self._drop()
        except OSError as e:
            self._fail(e)

    def flush(self) -> None:
        if self.reader_gone:
            return
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._drop()
        except OSError as e:
            self._fail(e)

    def __getattr__(self, name):
        return getattr(self._stream, name)

    def _drop(self) -> None:
        self.reader_gone = True
        self._silence()

    def _fail(self, error: OSError):
        self._silence()
        raise OutputFailed(error.strerror or str(error)) from None

    def _silence(self) -> None:
        """Point the stream's descriptor at /dev/null, so that the interpreter's last flush of what is still
        buffered does not fail again at exit."""
        try:
            fd = self._stream.fileno()
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, fd)
            os.close(null)
        except (OSError, AttributeError, ValueError):
            pass


class _ClosedOutput:
    """Standard output that was closed when the command started: writing to it fails, as on a closed descriptor;
    a command that writes nothing there (`-o FILE`) is not stopped by it."""

    encoding, errors = "utf-8", "strict"

    def write(self, data) -> int:
        raise OSError(errno.EBADF, "standard output is closed")

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return 1

    @property
    def buffer(self):
        return self


def _keep_standard_descriptors() -> None:
    """Descriptors 0, 1 and 2 closed when the command started (`>&-`) opened on /dev/null: a file opened later
    would take the number, and a child process (the JVM, git) would write its output into that file. The streams
    Python left as None get stand-ins: no input, an error stream that drops, a standard output that fails."""
    if sys.stdin is not None and sys.stdout is not None and sys.stderr is not None:
        return
    while True:
        fd = os.open(os.devnull, os.O_RDWR)  # the lowest free number: one of 0-2 while any is closed
        if fd > 2:
            os.close(fd)
            break
    if sys.stdin is None:
        sys.stdin = open(os.devnull, encoding="utf-8")
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")
    if sys.stdout is None:
        sys.stdout = _ClosedOutput()


def run_command(prog: str, body: Callable[[], int]) -> int:
    """Run `body` (a command writing to `sys.stdout`) with standard output guarded; its exit status, or 2 with
    one line on stderr when the output could not be written or memory ran out, or 130 (143) with one line after
    SIGINT (SIGTERM)."""
    _keep_standard_descriptors()
    guarded = sys.stdout if isinstance(sys.stdout, GuardedOutput) else GuardedOutput(sys.stdout)
    previous, sys.stdout = sys.stdout, guarded
    try:
        with terminate_raises():
            code = body()
            guarded.flush()
        return code
    except OutputFailed as e:
        write_error(f"{prog}: cannot write the output: {e.reason}")
        return EXIT_OUTPUT
    except KeyboardInterrupt:
        write_error(f"{prog}: interrupted")
        return EXIT_STATUS[signal.SIGINT]
    except Terminated:
        write_error(f"{prog}: terminated")
        return EXIT_STATUS[signal.SIGTERM]
    except MemoryError:  # the inputs' bounds should come first; a smaller machine (or a ulimit) may not
        write_error(f"{prog}: out of memory: this machine (or its limit for this process) has too little for these "
                    "inputs; output files are left as they were")
        return EXIT_OUTPUT
    finally:
        sys.stdout = previous


def write_error(line: str) -> None:
    """One line on stderr; stderr itself failing is not reported anywhere."""
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def current_umask() -> int:
    """The process's umask (read without changing it where /proc says it; else set and restored at once)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def as_created(path: str | os.PathLike, directory: bool = False) -> None:
    """Give a file or directory made by `tempfile` the permissions a plain `open` or `mkdir` would have."""
    os.chmod(path, (0o777 if directory else 0o666) & ~current_umask())


def write_atomically(target: str | os.PathLike, text: str, *, encoding: str = "utf-8",
                     newline: Optional[str] = "\n") -> None:
    """Write `text` to `target` all at once: a temporary file in the same directory, renamed over it. Raises
    OSError (nothing left behind) when it cannot. A symbolic link's file is the one replaced, an existing file
    keeps its mode, and a target that is no regular file (a device, a FIFO) is written in place: renaming over
    /dev/full would replace the device with a file."""
    path = os.fspath(target)
    if os.path.isdir(path):
        raise IsADirectoryError(21, "is a directory", path)
    try:
        existing = os.stat(path)  # through a symbolic link
    except FileNotFoundError:
        existing = None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        with open(path, "w", encoding=encoding, newline=newline) as fh:
            fh.write(text)
        return
    if os.path.islink(path):
        path = os.path.realpath(path)
    directory = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        with deferred():  # a signal here acts once the name is kept, for the cleanup below
            fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
        with os.fdopen(fd, "w", encoding=encoding, newline=newline) as fh:
            fh.write(text)
        if existing is None:
            as_created(tmp)
        else:
            os.chmod(tmp, stat.S_IMODE(existing.st_mode))
        os.replace(tmp, path)
    except BaseException:
        if tmp is not None:
            with deferred():
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
        raise
