"""The job queue of a server: jobs wait in ``queued``, at most ``max_jobs`` run at
once, each in a child process of its own (:mod:`kgbench.service.jobs.child`, its own
process group), and end ``succeeded``, ``failed`` or ``cancelled``::

    queued -> running -> succeeded | failed | cancelled
                      -> interrupted (the server stopped under it) -> queued (on start)
    cancelled | failed | interrupted -> queued (resume, resumable kinds only)

``DATA/jobs/<id>/job.json`` is rewritten (atomically) on every change of state, so a
server that is stopped, or killed, finds its jobs again when it starts: a job of a
resumable kind (generate, score, kalma-generate) runs again on the same output and
resumes from its finished chunks; any other job restarts from scratch, its partial
output removed first.

One thread (the dispatcher) starts every child and reaps it: the child asks the
kernel to signal it when the thread that started it dies (``PR_SET_PDEATHSIG``), so
that thread must live as long as the manager.

A full disk under ``--data`` is one line everywhere: a submission is refused with a
507 saying so (nothing of the job is kept), a queued job that cannot be started is
marked failed "no space left on device ..." (resume it once there is space), and the
log says so once a minute, not at every pass of the dispatcher.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

import kgbench
from kgbench.service.errors import ApiError
from kgbench.service.jobs.child import NO_SPACE_EXIT
from kgbench.service.jobs.inputs import resolve_inputs
from kgbench.service.jobs.record import (
    JOB_FILE,
    LOG_FILE,
    PARENT_ENV,
    PROGRESS_FILE,
    RESULT_FILE,
    TERMINAL,
    Job,
    JobFile,
    JobProgress,
    now_iso,
    read_json,
    write_json_atomic,
)
from kgbench.service.jobs.specs import RESUMABLE_KINDS, dump_params
from kgbench.service.paths import resolve_under
from kgbench.service.quiet_log import RateLimitedLog
from kgbench.service.settings import ServiceSettings
from kgstore import store_directory
from kgstore.confined import WriteOutsideError, open_write, remove_file, remove_tree
from kgstore.diskspace import is_disk_full
from scoring.score.workdir import FINISHED_FILES

__all__ = ["JOBS_DIR", "JobManager"]

log = logging.getLogger("kgbench.service.jobs")
quiet = RateLimitedLog(log)

SCORE_FILES = FINISHED_FILES
"""What a score job writes into its benchmark: its own output, the only files of the
benchmark it may list and serve."""
JOBS_DIR = "jobs"
"""Under ``--data``: one directory per job."""
JOB_ID = re.compile(r"^[A-Za-z0-9_-]{6,32}$")
MAX_LISTED_FILES = 10_000
NO_SPACE_HINT = "free space on the device holding --data, then submit the job again"
RESIGNAL_S = 1.0
"""A stopping job gets SIGINT again this often: one that landed where Python cannot
raise (a finalizer) is lost, and the job's next progress update or the next signal
stops it."""


class JobManager:
    """Queue, run, cancel and resume jobs under ``settings.data_dir / "jobs"``.

    ``cancel_grace_s``: how long a cancelled job has to stop after SIGINT (finishing
    its chunk) before SIGKILL."""

    def __init__(self, settings: ServiceSettings, *, cancel_grace_s: float = 10.0,
                 poll_s: float = 0.1) -> None:
        self._data_dir = Path(settings.data_dir).resolve()
        self._jobs_dir = self._data_dir / JOBS_DIR
        self._store = settings.store
        self._max_jobs = max(1, settings.max_jobs)
        self._grace_s = cancel_grace_s
        self._poll_s = poll_s
        self._cond = threading.Condition()
        self._jobs: dict[str, JobFile] = {}
        self._procs: dict[str, subprocess.Popen[bytes]] = {}
        self._stopping = False
        self._thread: threading.Thread | None = None

    # --- life ---------------------------------------------------------------

    def start(self) -> None:
        """Find the jobs of earlier runs (requeueing the unfinished ones) and start the
        dispatcher."""
        self._jobs_dir.mkdir(parents=True, exist_ok=True)
        with self._cond:
            self._recover()
        self._thread = threading.Thread(target=self._dispatch, name="kgbench-jobs",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Interrupt the running jobs (they keep what they finished) and mark them
        ``interrupted``, so the next start resumes them."""
        with self._cond:
            self._stopping = True
            running = dict(self._procs)
            for proc in running.values():
                _signal_group(proc.pid, signal.SIGINT)
            self._cond.notify_all()
        deadline = time.monotonic() + self._grace_s
        for proc in running.values():
            while proc.poll() is None and time.monotonic() < deadline:
                try:
                    proc.wait(timeout=RESIGNAL_S)
                except subprocess.TimeoutExpired:
                    _signal_group(proc.pid, signal.SIGINT)
            if proc.poll() is None:
                _signal_group(proc.pid, signal.SIGKILL)
                proc.wait()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._cond:
            self._reap()

    @contextmanager
    def running(self) -> Iterator[JobManager]:
        """``start()`` on entry, ``stop()`` on exit (for the app's lifespan)."""
        self.start()
        try:
            yield self
        finally:
            self.stop()

    # --- requests -----------------------------------------------------------

    def submit(self, kind: str, params: BaseModel) -> Job:
        """Queue a job; its inputs must exist under ``--data`` (4xx otherwise) and its
        ``out``, when given, must be a new directory there."""
        resolved = resolve_inputs(params, self._data_dir)
        job_id = secrets.token_urlsafe(8)
        owns_out = True
        out_name = getattr(params, "out", None)
        if kind == "score":   # scores are written into the benchmark itself
            out = resolved["bench"]
            owns_out = False
            self._refuse_reserved_out(out, getattr(params, "bench", ""), name="bench",
                                      holds=True)
        elif out_name:
            out = resolve_under(self._data_dir, out_name, must_exist=False, kind="dir")
            self._refuse_reserved_out(out, out_name)
            if out.exists() or out.is_symlink():
                raise ApiError(409, f"out {out_name!r} already exists under --data",
                               "name a new directory, or leave out empty for the job's own")
        else:
            out = self._jobs_dir / job_id / "out"
        relative_out = out.relative_to(self._data_dir).as_posix()
        job = JobFile(id=job_id, kind=kind, params=dump_params(params), state="queued",
                      created=now_iso(), out=relative_out, resumable=kind in RESUMABLE_KINDS,
                      store=self._store, owns_out=owns_out)
        with self._cond:
            job.seq = 1 + max((other.seq for other in self._jobs.values()), default=0)
            if owns_out and any(other.out == relative_out and other.state not in TERMINAL
                                for other in self._jobs.values()):
                raise ApiError(409, f"another job writes to {relative_out!r}",
                               "name a new directory for out")
            try:
                (self._jobs_dir / job_id).mkdir(parents=True)
                self._save(job)
            except BaseException:
                shutil.rmtree(self._jobs_dir / job_id, ignore_errors=True)
                raise
            self._jobs[job_id] = job
            self._cond.notify_all()
        return job.public()

    def _store_dir(self) -> Path | None:
        """The directory of the store the server serves (``None`` for Neo4j)."""
        folder = store_directory(self._store)
        return None if folder is None else Path(os.path.realpath(folder))

    def _reserved(self) -> list[tuple[Path, str]]:
        """The server's job records and the store it serves (when a directory): no job
        writes there."""
        store = self._store_dir()
        return [(self._jobs_dir, "the server's job records"),
                *([(store, "the store")] if store is not None else [])]

    def _refuse_reserved_out(self, out: Path, out_name: str, *, name: str = "out",
                             holds: bool = False) -> None:
        """A job's ``out`` may not be inside the server's job records (``jobs/``) nor
        inside the store it serves, when that store lives under ``--data``; with
        ``holds`` (a score job writes into its ``bench``), nor hold either of them."""
        for root, what in self._reserved():
            if out == root or out.is_relative_to(root):
                raise ApiError(400, f"{name} {ascii(out_name[:200])} is inside {what}",
                               "name a new directory elsewhere under --data, or leave out "
                               "empty for the job's own" if name == "out" else
                               "name a benchmark directory under --data")
            if holds and root.is_relative_to(out):
                raise ApiError(400, f"{name} {ascii(out_name[:200])} holds {what}",
                               "name a benchmark directory under --data (a job writes "
                               "into it)")

    def list_jobs(self) -> list[Job]:
        """Every job, newest first."""
        with self._cond:
            jobs = sorted(self._jobs.values(), key=lambda j: (j.created, j.seq, j.id),
                          reverse=True)
            return [self._view(job) for job in jobs]

    def get(self, job_id: str) -> Job:
        with self._cond:
            return self._view(self._job(job_id))

    def cancel(self, job_id: str) -> Job:
        """Stop a queued or running job: SIGINT to the job's process group (generate and
        score keep their finished chunks), SIGKILL when it has not stopped after the
        grace period. Returns the job once it has stopped."""
        with self._cond:
            job = self._job(job_id)
            if job.state in ("queued", "interrupted"):
                self._finish(job, "cancelled")
                return job.public()
            if job.state != "running":
                raise ApiError(409, f"job {job_id} is {job.state}; only a queued or running "
                               "job can be cancelled")
            job.cancel_requested = True
            self._save(job)
            proc = self._procs.get(job_id)
            if proc is not None:
                _signal_group(proc.pid, signal.SIGINT)
            deadline = time.monotonic() + self._grace_s
            while job.state == "running" and time.monotonic() < deadline:
                self._cond.wait(RESIGNAL_S)
                proc = self._procs.get(job_id)
                if proc is not None and job.state == "running":
                    _signal_group(proc.pid, signal.SIGINT)
            proc = self._procs.get(job_id)
            if proc is not None and job.state == "running":
                _signal_group(proc.pid, signal.SIGKILL)
            deadline = time.monotonic() + 10.0
            while job.state == "running" and time.monotonic() < deadline:
                self._cond.wait(self._poll_s)
            return self._view(job)

    def resume(self, job_id: str) -> Job:
        """Queue a cancelled, failed or interrupted job of a resumable kind again, on
        the same output: it continues from its finished chunks."""
        with self._cond:
            job = self._job(job_id)
            if not job.resumable:
                raise ApiError(409, f"{job.kind} jobs do not resume",
                               "submit the job again")
            if job.state not in ("cancelled", "failed", "interrupted"):
                raise ApiError(409, f"job {job_id} is {job.state}; only a cancelled, failed "
                               "or interrupted job can be resumed")
            self._requeue(job)
            self._cond.notify_all()
            return job.public()

    def out_dir(self, job_id: str) -> Path:
        """The job's output directory (absolute)."""
        with self._cond:
            return self._data_dir / self._job(job_id).out

    def files(self, job_id: str) -> list[dict[str, Any]]:
        """The job's own output files: ``{"path", "size"}``, paths relative to its
        output directory. A job that made its directory owns every regular file in it
        (links are not followed); a score job, which writes into a benchmark, owns its
        score files only (:data:`SCORE_FILES`), never the benchmark's."""
        with self._cond:
            job = self._job(job_id)
            root = self._data_dir / job.out
            own = None if job.owns_out else SCORE_FILES
        listed: list[dict[str, Any]] = []
        if not root.is_dir():
            return listed
        if own is not None:
            for name in own:
                path = root / name
                if path.is_file() and not path.is_symlink():
                    listed.append({"path": name, "size": path.stat().st_size})
            return listed
        for directory, dirs, names in os.walk(root):
            dirs.sort()
            for name in sorted(names):
                path = Path(directory) / name
                if path.is_symlink() or not path.is_file():
                    continue
                listed.append({"path": path.relative_to(root).as_posix(),
                               "size": path.stat().st_size})
                if len(listed) >= MAX_LISTED_FILES:
                    return listed
        return listed

    def file(self, job_id: str, relative: str) -> Path:
        """One of the job's own output files (:meth:`files`), resolved under its output
        (never outside it, never a file of the store or of the job records)."""
        with self._cond:
            job = self._job(job_id)
        target = resolve_under(self._data_dir / job.out, relative, must_exist=True,
                               kind="file")
        not_own = not job.owns_out and relative not in SCORE_FILES
        store = self._store_dir()
        if not_own or (store is not None and target.is_relative_to(store)):
            raise ApiError(404, f"{ascii(relative[:200])} is not an output of job {job_id}",
                           f"GET /api/jobs/{job_id}/files lists its files")
        return target

    # --- inside (callers hold self._cond) -----------------------------------

    def _job(self, job_id: str) -> JobFile:
        job = self._jobs.get(job_id) if JOB_ID.match(job_id) else None
        if job is None:
            raise ApiError(404, f"no job {job_id!r}", "GET /api/jobs lists the jobs")
        return job

    def _view(self, job: JobFile) -> Job:
        public = job.public()
        if job.state == "running":
            doc = read_json(self._jobs_dir / job.id / PROGRESS_FILE)
            if isinstance(doc, dict):
                try:
                    public.progress = JobProgress.model_validate(doc)
                except ValidationError:
                    pass
        return public

    def _save(self, job: JobFile) -> None:
        """Write ``job.json``; a full disk is :class:`ApiError` 507 (one line)."""
        path = self._jobs_dir / job.id / JOB_FILE
        try:
            write_json_atomic(path, job.model_dump(mode="json"), roots=[self._data_dir])
        except OSError as exc:
            raise _no_space(exc, path.relative_to(self._data_dir)) from None
        except WriteOutsideError as exc:
            raise ApiError(500, str(exc), SYMLINK_HINT) from None

    def _finish(self, job: JobFile, state: str, error: str | None = None) -> None:
        job.state = state  # type: ignore[assignment]
        job.error = error
        job.finished = now_iso()
        job.pid = None
        try:
            self._save(job)
        except ApiError as exc:   # kept in memory: the API shows it; job.json says later
            quiet.warning(f"job {job.id}: {exc.message}", f"cannot record that job {job.id} "
                          f"is {state}: {exc.message}")
        self._cond.notify_all()

    def _requeue(self, job: JobFile) -> None:
        job.state = "queued"
        job.error = None
        job.finished = None
        job.cancel_requested = False
        job.pid = None
        self._save(job)

    def _dispatch(self) -> None:
        with self._cond:
            while not self._stopping:
                try:
                    self._reap()
                    self._launch_queued()
                except Exception as exc:   # a vanished directory ...: keep serving
                    quiet.warning(f"dispatcher: {type(exc).__name__}: {exc}",
                                  f"job dispatcher: {type(exc).__name__}: {exc}", exc_info=exc)
                self._cond.wait(self._poll_s)

    def _launch_queued(self) -> None:
        queued = sorted((j for j in self._jobs.values() if j.state == "queued"),
                        key=lambda j: (j.created, j.seq, j.id))
        for job in queued:
            if len(self._procs) >= self._max_jobs:
                return
            try:
                self._launch(job)
            except ApiError as exc:   # a full disk: the job fails, the others may still run
                quiet.warning(f"launch: {exc.message}", f"job {job.id} not started: "
                              f"{exc.message}")
                self._finish(job, "failed", f"{exc.message}; {exc.hint}")

    def _launch(self, job: JobFile) -> None:
        job_dir = self._jobs_dir / job.id
        package_root = str(Path(kgbench.__file__).resolve().parent.parent)
        env = {**os.environ, PARENT_ENV: str(os.getpid()),
               "PYTHONPATH": os.pathsep.join(
                   p for p in (package_root, os.environ.get("PYTHONPATH")) if p)}
        try:
            for name in (RESULT_FILE, PROGRESS_FILE):
                remove_file(job_dir / name, roots=[self._data_dir])
            with open_write(job_dir / LOG_FILE, "ab", roots=[self._data_dir]) as log_file:
                log_file.write(f"--- attempt {job.attempts + 1} at {now_iso()}\n".encode())
                log_file.flush()
                proc = subprocess.Popen(
                    [sys.executable, "-m", "kgbench.service.jobs.child", str(job_dir)],
                    stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT,
                    cwd=job_dir, env=env, start_new_session=True)
        except OSError as exc:
            raise _no_space(exc, (job_dir / LOG_FILE).relative_to(self._data_dir)) from None
        except WriteOutsideError as exc:   # the job fails saying so; nothing written
            raise ApiError(400, str(exc), SYMLINK_HINT) from None
        self._procs[job.id] = proc
        job.state = "running"
        job.started = now_iso()
        job.attempts += 1
        job.pid = proc.pid
        job.progress = JobProgress()
        job.result = None
        try:
            self._save(job)
        except ApiError as exc:   # it runs all the same; its end is recorded when it can be
            quiet.warning(f"job {job.id}: {exc.message}", f"job {job.id} started, but "
                          f"{exc.message}")
        self._cond.notify_all()

    def _reap(self) -> None:
        for job_id, proc in list(self._procs.items()):
            code = proc.poll()
            if code is None:
                continue
            del self._procs[job_id]
            job = self._jobs[job_id]
            job_dir = self._jobs_dir / job_id
            progress = read_json(job_dir / PROGRESS_FILE)
            if isinstance(progress, dict):
                try:
                    job.progress = JobProgress.model_validate(progress)
                except ValidationError:
                    pass
            result = read_json(job_dir / RESULT_FILE)
            result = result if isinstance(result, dict) else None
            if result is not None and result.get("ok"):
                job.result = result.get("summary")
                self._finish(job, "succeeded")
            elif job.cancel_requested:
                self._finish(job, "cancelled")
            elif self._stopping or (result is not None and result.get("interrupted")):
                self._finish(job, "interrupted", "interrupted; resume the job to continue"
                             if job.resumable else "interrupted")
            elif result is not None:
                self._finish(job, "failed", str(result.get("error") or "failed"))
            elif code == NO_SPACE_EXIT:
                self._finish(job, "failed", f"no space left on device under --data (the job "
                             f"could not write its result); {NO_SPACE_HINT}")
            else:
                self._finish(job, "failed", f"the job's process ended with status {code} "
                             f"and no result; see {JOBS_DIR}/{job_id}/{LOG_FILE}")

    def _recover(self) -> None:
        """Load ``job.json`` of every job; requeue those an earlier server left running
        (their process, if one outlived that server, is stopped first)."""
        for path in sorted(self._jobs_dir.glob(f"*/{JOB_FILE}")):
            try:
                job = JobFile.model_validate_json(path.read_text(encoding="utf-8"))
            except (OSError, ValidationError) as exc:
                log.warning("skipping %s: %s", path, exc)
                continue
            if job.id != path.parent.name or not JOB_ID.match(job.id):
                continue
            self._jobs[job.id] = job
            if job.pid is not None:
                _stop_orphan(job.pid, path.parent, self._grace_s)
            if job.state in ("running", "interrupted"):
                if job.state == "running":
                    job.state = "interrupted"
                    job.pid = None
                    self._save(job)
                if not job.resumable and job.owns_out:
                    # Never through a symlink put under --data since: not outside it.
                    with contextlib.suppress(OSError, WriteOutsideError):
                        remove_tree(self._data_dir / job.out, roots=[self._data_dir])
                self._requeue(job)


SYMLINK_HINT = "remove the symlink under --data; the server writes only real files there"


def _no_space(exc: OSError, where: Path) -> Exception:
    """A full disk met writing ``where`` (relative to ``--data``) as a one-line
    :class:`ApiError` 507; any other error as it is."""
    if not is_disk_full(exc):
        return exc
    return ApiError(507, f"no space left on device under --data (writing {where.as_posix()})",
                    NO_SPACE_HINT)


def _signal_group(pid: int, signum: int) -> None:
    try:
        os.killpg(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def _stop_orphan(pid: int, job_dir: Path, grace_s: float) -> None:
    """Stop the child an earlier server left running for ``job_dir`` (checked by its
    command line, so a recycled pid is left alone)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return
    if b"kgbench.service.jobs.child" not in cmdline or str(job_dir).encode() not in cmdline:
        return
    _signal_group(pid, signal.SIGINT)
    deadline = time.monotonic() + grace_s
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _alive(pid):
        _signal_group(pid, signal.SIGKILL)
