"""The local engine's generated groups on every core: this process and helper processes take chunks in turn.

Every chunk is independent (`rmqplan.engines.chunks.chunk_work`, the work a Spark task does: the kernel, the summary and,
with `--out`, the table rows and findings): this process and `helpers` more take the next chunk from a shared
counter until none is left, each writing its own Parquet part files. A chunk's summary and finding lines come back
here (a few kB), and the findings are appended to findings.json in group order as soon as the chunks before them
are in. Helpers are spawned (a fresh interpreter: forking beside Arrow's threads is not safe) and handed the
plug-in strategies this process knows. A helper costs about 0.3 s to start, so small fleets run here alone.
"""

from __future__ import annotations

import os
import pickle
import queue
from dataclasses import dataclass
from typing import Callable, Optional

from rmqplan.engines.chunks import OutIds, chunk_work
from rmqplan.engines.cpus import usable_cpus
from rmqplan.engines.heap import keep_freed_memory
from rmqplan.model.fleet import DETAIL_LIMIT, GenerateSpec
from rmqplan.model.simulation import OutRequest
from rmqlint.interrupts import deferred, sigint_blocked

MIN_CHUNKS_PER_PROCESS = 2  # a helper costs about 0.3 s to start: below this it would not pay for itself
HELPER_POLL_SECONDS = 0.5  # how often a wait for helpers checks that they are still alive


@dataclass(frozen=True)
class ChunkJob:
    """What every process needs to run a chunk (pickled once per helper)."""

    spec: GenerateSpec
    scenarios: list
    out: Optional[OutRequest]  # None: summaries only
    ids: Optional[OutIds]
    chunks: list  # (start, stop) of every chunk, in group order
    plugins: list  # `rmqplan.allocation.strategies.plugin_classes()`


class HelperFailed(RuntimeError):
    """A helper process ended without finishing its chunks (killed, out of memory)."""


def helpers_for(job: ChunkJob, cpus: Optional[int] = None) -> int:
    """How many helper processes the job gets: one per other usable CPU, as long as each process has
    MIN_CHUNKS_PER_PROCESS chunks, and none when the plug-in strategies cannot be handed to another process."""
    helpers = helper_count(len(job.chunks), usable_cpus() if cpus is None else cpus)
    if helpers > 0 and job.plugins:
        try:
            pickle.dumps(job.plugins)
        except Exception:  # noqa: BLE001 (a class defined in __main__ or in a function: run here only)
            return 0
    return helpers


def helper_count(chunks: int, cpus: int) -> int:
    """One helper per other CPU, as long as each process has MIN_CHUNKS_PER_PROCESS chunks."""
    return max(min(cpus - 1, chunks // MIN_CHUNKS_PER_PROCESS - 1), 0)


def run_job(job: ChunkJob, helpers: int, findings=None, progress: Optional[Callable[[int, int], None]] = None) \
        -> tuple[list[dict], int]:
    """Run every chunk of `job` here and in `helpers` helper processes; with `--out` the findings' lines go to
    `findings` (an open text file) in group order. Returns (the chunks' summaries in group order, lines
    written)."""
    keep_freed_memory()
    collected = _InOrder(job, findings, progress)
    started = _start_helpers(job, helpers) if helpers > 0 else None
    if started is None:  # alone: no process, no queue, no lock
        sink = _sink(job, 0)
        try:
            for index in range(len(job.chunks)):
                collected.add(*_run(job, index, sink))
        finally:
            if sink is not None:
                sink.close()
        return collected.summaries, collected.written
    counter, results, processes = started
    try:
        sink = _sink(job, 0)
        try:
            for index in _next_chunks(counter, len(job.chunks)):
                collected.add(*_run(job, index, sink))
                _drain(results, collected, block=False)
        finally:
            if sink is not None:
                sink.close()
        while collected.helpers_done < len(processes):
            if not _drain(results, collected, block=True):
                _check_alive(processes)
        for process in processes:
            process.join()
    finally:
        _stop(processes)
        results.close()
    return collected.summaries, collected.written


def _start_helpers(job: ChunkJob, helpers: int):
    """(the shared counter, the results queue, the started helpers), or None where this system cannot give them
    (no POSIX semaphores: /dev/shm missing in some containers and sandboxes; a process limit): the job then runs
    here alone, as on one CPU."""
    processes = []
    try:
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        counter = context.Value("q", 0)
        results = context.Queue()
        # Ctrl-C reaches the whole process group: the helpers start with it blocked, and this process stops them.
        # Another thread of this process may take the signal, so it is also held (deferred) until every helper has
        # been sent its orders: one interrupted half-way read an empty pipe and printed a traceback.
        with deferred(), sigint_blocked():
            for i in range(helpers):
                processes.append(context.Process(target=_helper, args=(job, counter, results, i + 1), daemon=True,
                                                 name=f"rmqplan-chunks-{i + 1}"))
                processes[-1].start()
    except (OSError, ImportError):
        _stop(processes)
        _remove_parts(job, len(processes))  # a helper that started may have begun a part file
        return None
    except BaseException:  # the interrupt held above: the helpers are stopped before it goes on
        _stop(processes)
        raise
    return counter, results, processes


def _remove_parts(job: ChunkJob, helpers: int) -> None:
    if job.out is None:
        return
    from rmqplan.report.out_tables import TABLES

    for table in TABLES:
        for number in range(1, helpers + 1):
            for name in (f"part-generated-{number}.parquet", f".part-generated-{number}.parquet.tmp"):
                try:
                    os.remove(os.path.join(job.out.directory, table, name))
                except OSError:
                    pass


def _stop(processes) -> None:
    for process in processes:
        if process.is_alive():
            process.terminate()
            process.join()


class _InOrder:
    """Chunks' results in any order -> summaries and finding lines in group order."""

    def __init__(self, job: ChunkJob, findings, progress):
        self.job, self.findings, self.progress = job, findings, progress
        self.waiting: dict[int, tuple[dict, list[str]]] = {}
        self.summaries: list[dict] = []
        self.written = self.helpers_done = 0

    def add(self, index: int, summary: dict, lines: list[str]) -> None:
        self.waiting[index] = (summary, lines)
        while len(self.summaries) in self.waiting:
            summary, lines = self.waiting.pop(len(self.summaries))
            self.summaries.append(summary)
            if lines:
                self.findings.writelines(line + "\n" for line in lines)
                self.written += len(lines)
            if self.progress is not None:
                self.progress(self.job.chunks[len(self.summaries) - 1][1], self.job.spec.groups)


def _drain(results, collected: _InOrder, block: bool) -> bool:
    """Take what helpers have sent (at most one message when blocking); False when a blocking wait timed out."""
    while True:
        try:
            kind, *message = results.get(timeout=HELPER_POLL_SECONDS) if block else results.get_nowait()
        except queue.Empty:
            return not block
        if kind == "chunk":
            collected.add(*message)
        elif kind == "done":
            collected.helpers_done += 1
        else:  # "error": raised here as the helper raised it
            raise message[0]
        if block:
            return True


def _check_alive(processes) -> None:
    for process in processes:
        if not process.is_alive() and process.exitcode not in (0, None):
            raise HelperFailed(f"a helper process of the local engine stopped (exit code {process.exitcode}) "
                               "before it finished its chunks")


def _next_chunks(counter, count: int):
    """The chunk indexes this process takes, one at a time from the counter every process shares."""
    while True:
        with counter.get_lock():
            index = counter.value
            counter.value += 1
        if index >= count:
            return
        yield index


def _sink(job: ChunkJob, number: int):
    """This process's Parquet part files (none without `--out`)."""
    if job.out is None:
        return None
    from rmqplan.report.out_tables import ParquetSink

    return ParquetSink(job.out.directory, f"part-generated-{number}")


def _run(job: ChunkJob, index: int, sink) -> tuple[int, dict, list[str]]:
    start, stop = job.chunks[index]
    summary, lines = chunk_work(job.spec, start, stop, DETAIL_LIMIT, job.scenarios, job.out, job.ids, sink)
    return index, summary, lines


def _helper(job: ChunkJob, counter, results, number: int) -> None:
    """A helper process: chunks from the shared counter until none is left, into its own part files."""
    try:
        from rmqplan.allocation.strategies import ensure_registered

        keep_freed_memory()
        if job.out is not None:
            from rmqplan.engines.arrow_start import start_arrow_without_pandas

            start_arrow_without_pandas()
        ensure_registered(job.plugins)
        sink = _sink(job, number)
        try:
            for index in _next_chunks(counter, len(job.chunks)):
                results.put(("chunk", *_run(job, index, sink)))
        finally:
            if sink is not None:
                sink.close()
        results.put(("done",))
    except BaseException as error:  # noqa: BLE001 (handed to the process that started the job)
        try:
            pickle.dumps(error)
        except Exception:  # noqa: BLE001
            error = RuntimeError(f"{type(error).__name__}: {error}")
        results.put(("error", error))
