"""Keep the memory one chunk frees for the next chunk.

Every chunk allocates and frees the same few hundred MB of arrays. glibc's malloc, by default, hands large blocks
back to the kernel when they are freed (munmap, or trimming the top of the heap) and asks again for the next chunk:
each page is then faulted in and zeroed again, 1.5 s of system time per 1M generated groups (measured). Fixed
thresholds keep freed blocks in the heap for reuse; the process's peak memory is what it was. Elsewhere (another C
library) this does nothing.
"""

from __future__ import annotations

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
KEEP_BYTES = 1 << 30  # free memory at the top of the heap below this stays (the chunk's peak is far below)
MMAP_BYTES = 256 << 20  # blocks above this still come from mmap (and go back at once)

_done = False


def keep_freed_memory() -> None:
    """Set glibc's trim and mmap thresholds for this process (once; silently nothing without glibc)."""
    global _done
    if _done:
        return
    _done = True
    try:
        import ctypes
        import ctypes.util

        name = ctypes.util.find_library("c")
        if not name:
            return
        libc = ctypes.CDLL(name)
        libc.mallopt(M_MMAP_THRESHOLD, MMAP_BYTES)
        libc.mallopt(M_TRIM_THRESHOLD, KEEP_BYTES)
    except (OSError, AttributeError):
        return
