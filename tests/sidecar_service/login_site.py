"""A local site with a login: its form (GET /session?user=NAME) answers an HttpOnly cookie that
lasts a day and stores the user in localStorage; /account's title says what the browser holds
("cookie=NAME storage=NAME", "none" for what is missing). The session id is random per login,
so a test can check it is not logged anywhere."""

from __future__ import annotations

import json
import secrets

from aiohttp import web

from .local_site import LocalSite

COOKIE = "session"
LOGIN_FORM = ("<!doctype html><title>login</title><form action=/session method=get>"
              "<input name=user><button>Log in</button></form>")
ACCOUNT = """<!doctype html><title>loading</title><script>
document.title = 'cookie=' + {user} + ' storage=' + (localStorage.getItem('user') || 'none');
</script>"""
LOGGED_IN = """<!doctype html><title>logging in</title><script>
localStorage.setItem('user', {user});
document.title = 'logged in';
</script>"""


class LoginSite(LocalSite):
    def __init__(self) -> None:
        super().__init__()
        self.sessions: dict[str, str] = {}     # session id -> user

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/login", self._form)
        app.router.add_get("/session", self._log_in)
        app.router.add_get("/account", self._account)

    async def _form(self, _request: web.Request) -> web.Response:
        return web.Response(text=LOGIN_FORM, content_type="text/html")

    async def _log_in(self, request: web.Request) -> web.Response:
        user = request.query.get("user", "")
        session = secrets.token_hex(16)
        self.sessions[session] = user
        response = web.Response(text=LOGGED_IN.format(user=json.dumps(user)), content_type="text/html")
        response.set_cookie(COOKIE, session, max_age=86400, httponly=True, path="/", samesite="Lax")
        return response

    async def _account(self, request: web.Request) -> web.Response:
        user = self.sessions.get(request.cookies.get(COOKIE, ""), "none")
        return web.Response(text=ACCOUNT.format(user=json.dumps(user)), content_type="text/html")
