"""The workbench's web application (Starlette) and ``herdsman serve`` (uvicorn).

Routes: ``/`` the page, ``/static/...`` its scripts and styles (plain modules, no build
step), ``/api/catalog`` (the bundled examples, built-in models, engines and limits),
``/api/example?path=`` and ``/api/model?name=`` (an example's or a built-in model's
text), ``POST /api/jobs`` (a job: its events stream back as JSON lines while it runs) and
``DELETE /api/jobs/ID`` (cancel it).  Leaving the page (closing the stream) cancels the
job too.

Only JSON is accepted for a job (a page elsewhere cannot post one without the browser
asking this server first, which it does not answer), the Host header must name this
machine when the server listens on a loopback address, and every page says that scripts
come from here only.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from herdsman.cat.api import BUILTINS
from herdsman.engine.options import ENGINES
from herdsman.herd_compat.serve import request as rq
from herdsman.herd_compat.serve.examples import (
    NotAnExample,
    example_text,
    list_examples,
    model_text,
)
from herdsman.herd_compat.serve.processes import Jobs, start_method
from herdsman.litmus.base.errors import InputError

#: What pages may load: scripts, styles and pictures from this server only.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)
#: The Host header a loopback server accepts.
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]


def static_dir() -> Path:
    """The page's files, installed with the package."""
    return Path(str(resources.files("herdsman.herd_compat.serve") / "static"))


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def page(request: Request) -> Response:
    return FileResponse(static_dir() / "index.html", headers={"Cache-Control": "no-cache"})


async def catalog(request: Request) -> Response:
    return JSONResponse(
        {
            "examples": [{"path": e.path, "kind": e.kind} for e in list_examples()],
            "models": sorted(b.name for b in BUILTINS),
            "engines": list(ENGINES),
            "limits": {
                "timeout": rq.TIME_LIMIT,
                "max_timeout": rq.MAX_TIME_LIMIT,
                "memory": rq.MEMORY_LIMIT,
                "max_memory": rq.MAX_MEMORY_LIMIT,
                "pictures": rq.MAX_PICTURES,
            },
        }
    )


async def example(request: Request) -> Response:
    try:
        return PlainTextResponse(example_text(request.query_params.get("path", "")))
    except (NotAnExample, InputError) as e:
        return _error(404, str(e))


async def model(request: Request) -> Response:
    try:
        return PlainTextResponse(model_text(request.query_params.get("name", "")))
    except (NotAnExample, InputError) as e:
        return _error(404, str(e))


async def start_job(request: Request) -> Response:
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        return _error(415, "a job is JSON (Content-Type: application/json)")
    try:
        doc = json.loads(await request.body())
        req = rq.parse_request(doc)
    except json.JSONDecodeError as e:
        return _error(400, f"not JSON: {e.msg}")
    except rq.RequestError as e:
        return _error(400, str(e))
    jobs: Jobs = request.app.state.jobs
    job = jobs.new(req)
    if job is None:
        return _error(503, "the workbench is busy: too many jobs wait already, try again soon")

    async def lines() -> AsyncIterator[str]:
        async for event in jobs.run(job):
            yield json.dumps(event) + "\n"

    return StreamingResponse(
        lines(), media_type="application/x-ndjson", headers={"Cache-Control": "no-store"}
    )


async def cancel_job(request: Request) -> Response:
    jobs: Jobs = request.app.state.jobs
    if jobs.cancel(request.path_params["job"]):
        return JSONResponse({"cancelled": True})
    return _error(404, "no such job running")


class SecurityHeaders:
    """ASGI middleware: every response says where its page may load things from."""

    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.append((b"content-security-policy", CSP.encode()))
                headers.append((b"x-content-type-options", b"nosniff"))
                headers.append((b"referrer-policy", b"no-referrer"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, sending)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def create_app(host: str = "127.0.0.1") -> Starlette:
    """The workbench for a server listening on ``host``."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.jobs = Jobs(start_method())
        try:
            yield
        finally:
            app.state.jobs.stop_all()

    allowed = LOOPBACK_HOSTS if is_loopback(host) else ["*"]
    app = Starlette(
        routes=[
            Route("/", page),
            Route("/api/catalog", catalog),
            Route("/api/example", example),
            Route("/api/model", model),
            Route("/api/jobs", start_job, methods=["POST"]),
            Route("/api/jobs/{job}", cancel_job, methods=["DELETE"]),
            Mount("/static", StaticFiles(directory=static_dir()), name="static"),
        ],
        middleware=[
            Middleware(SecurityHeaders),
            Middleware(TrustedHostMiddleware, allowed_hosts=allowed),
        ],
        lifespan=lifespan,
    )
    return app


def serve(host: str = "127.0.0.1", port: int = 8000) -> None:
    """Run the workbench until interrupted (``herdsman serve``)."""
    print(f"herdsman workbench: http://{host if ':' not in host else f'[{host}]'}:{port}/")
    uvicorn.run(create_app(host), host=host, port=port, log_level="warning")
