"""``POST /api/session`` and ``DELETE /api/session``: the browser's login.

The web UI cannot set an ``Authorization`` header on page loads, so a correct token
posted here comes back as an HttpOnly, SameSite=Strict cookie that the security
middleware accepts in its place (scripts cannot read it; other sites cannot send it).
"""

from __future__ import annotations

from fastapi import APIRouter, Response
from pydantic import BaseModel, Field

from kgbench.service.deps import SettingsDep
from kgbench.service.errors import ERROR_RESPONSES, ApiError
from kgbench.service.security import SESSION_COOKIE, token_matches

__all__ = ["router"]

router = APIRouter(prefix="/api", tags=["session"], responses=ERROR_RESPONSES)


class SessionRequest(BaseModel):
    token: str = Field(max_length=4096, description="The server's token (--token).")


class SessionState(BaseModel):
    auth: bool = Field(description="Whether the server has a token at all.")
    logged_in: bool


@router.post("/session", response_model=SessionState)
def log_in(body: SessionRequest, response: Response,
           conf: SettingsDep) -> SessionState:
    """Exchange the token for the session cookie the web UI uses."""
    if not conf.auth:
        return SessionState(auth=False, logged_in=True)
    if not token_matches(conf, body.token):
        raise ApiError(401, "wrong token", "use the token the server was started with "
                       "(--token or KGBENCH_TOKEN)")
    response.set_cookie(SESSION_COOKIE, body.token, httponly=True, samesite="strict",
                        path="/")
    return SessionState(auth=True, logged_in=True)


@router.delete("/session", response_model=SessionState)
def log_out(response: Response, conf: SettingsDep) -> SessionState:
    """Forget the session cookie."""
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
    return SessionState(auth=conf.auth, logged_in=False)
