"""The job endpoints: submit, list, read, follow (server-sent events), cancel, resume,
and the output files. Everything that starts or stops work needs the write token
(:func:`kgbench.service.deps.require_write_token`); file paths go through
``resolve_under`` the job's output directory."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import FileResponse, StreamingResponse
from starlette.concurrency import run_in_threadpool

from kgbench.service.deps import WriteToken
from kgbench.service.errors import ERROR_RESPONSES, ErrorBody
from kgbench.service.htmlfiles import file_response
from kgbench.service.jobs.manager import JobManager
from kgbench.service.jobs.record import TERMINAL, Job
from kgbench.service.jobs.specs import JobRequest

__all__ = ["HEARTBEAT_S", "router"]

router = APIRouter(prefix="/api/jobs", tags=["jobs"], responses={
    **ERROR_RESPONSES,
    409: {"model": ErrorBody, "description": "Not in a state for that (cancel a finished "
          "job, resume a running one), or out already exists"}})

HEARTBEAT_S = 10.0
"""A comment line on an idle event stream this often keeps proxies from closing it."""
EVENT_POLL_S = 0.25


def jobs(request: Request) -> JobManager:
    """The server's :class:`JobManager`."""
    manager: JobManager = request.app.state.jobs
    return manager


Manager = Annotated[JobManager, Depends(jobs)]


@router.post("", status_code=202, dependencies=[WriteToken], response_model=Job)
def submit_job(manager: Manager,
               body: Annotated[JobRequest, Body(description="The kind and its parameters; "
                                                "paths relative to --data.")]) -> Job:
    """Queue a job; it runs in a process of its own."""
    return manager.submit(body.kind, body.params)


@router.get("", response_model=dict[str, list[Job]])
def list_jobs(manager: Manager) -> dict[str, list[Job]]:
    """Every job, newest first."""
    return {"jobs": manager.list_jobs()}


@router.get("/{job_id}", response_model=Job)
def get_job(job_id: str, manager: Manager) -> Job:
    return manager.get(job_id)


@router.get("/{job_id}/events", response_class=StreamingResponse,
            responses={200: {"content": {"text/event-stream": {}}}})
async def job_events(job_id: str, request: Request, manager: Manager) -> StreamingResponse:
    """``event: progress`` with the job's JSON on each change, ``event: end`` with the
    final JSON once it has finished; a comment line every ten seconds meanwhile."""
    manager.get(job_id)   # 404 before the stream starts

    async def stream() -> AsyncIterator[str]:
        last = ""
        last_sent = time.monotonic()
        while True:
            job = await run_in_threadpool(manager.get, job_id)
            text = job.model_dump_json()
            if job.state in TERMINAL:
                yield f"event: end\ndata: {text}\n\n"
                return
            if text != last:
                last, last_sent = text, time.monotonic()
                yield f"event: progress\ndata: {text}\n\n"
            elif time.monotonic() - last_sent >= HEARTBEAT_S:
                last_sent = time.monotonic()
                yield ": heartbeat\n\n"
            if await request.is_disconnected():
                return
            await asyncio.sleep(EVENT_POLL_S)

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@router.post("/{job_id}/cancel", dependencies=[WriteToken], response_model=Job)
def cancel_job(job_id: str, manager: Manager) -> Job:
    """Stop the job; a resumable one keeps its finished chunks."""
    return manager.cancel(job_id)


@router.post("/{job_id}/resume", dependencies=[WriteToken], response_model=Job)
def resume_job(job_id: str, manager: Manager) -> Job:
    """Continue a cancelled, failed or interrupted generate/score job from its chunks."""
    return manager.resume(job_id)


@router.get("/{job_id}/files", response_model=dict[str, Any])
def list_files(job_id: str, manager: Manager) -> dict[str, Any]:
    """The files under the job's output directory."""
    return {"out": manager.get(job_id).out, "files": manager.files(job_id)}


@router.get("/{job_id}/files/{path:path}", response_class=FileResponse,
            responses={200: {"content": {"application/octet-stream": {}},
                             "description": "The file's bytes"}})
def download_file(job_id: str, path: str, manager: Manager) -> FileResponse:
    """One output file (never one outside the job's output directory); an HTML page
    (report.html) opens in the browser, sandboxed (:mod:`kgbench.service.htmlfiles`)."""
    return file_response(manager.file(job_id, path))
