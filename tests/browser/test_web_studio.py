"""A real browser as the user (issue 25): headless Chromium loads the web studio page
(`examples/web_studio/`), whose script — compiled from TypeScript with the package
`idlc generate --target typescript` writes for the seeds — calls the Python quixos server
over WebSocket through the generated proxies, its origin allow-listed, and shows the
answers in the page. The test reads the page over the DevTools protocol: it evaluates
`window.studioDone` (a promise the page resolves when it has shown its result), so it waits
for the page itself, never for a clock.

Everything listens on 127.0.0.1 only and every process is bounded in time."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import websockets

from tests.conftest import unavailable
from tests.interop_ts.support import listening
from tests.runtime_ts.support import REPO, RUNTIME_TS, require_runtime

STUDIO = REPO / "examples" / "web_studio"
CHROMIUM = "/usr/bin/chromium"
#: Bounds every wait of the test (seconds): a regression fails it, never hangs it.
TIMEOUT = 60.0


def _chromium() -> str:
    """Debian's Chromium; skips on a developer machine without it, fails under CI (which
    installs it: `.ci/run`)."""
    found = shutil.which("chromium") or (CHROMIUM if os.path.exists(CHROMIUM) else None)
    if found is None:
        unavailable("Chromium is not installed (apt-get install chromium)")
    return found


def _build_page(folder: Path) -> None:
    """The page as a user builds it: the generated package beside the page's script, both
    compiled by tsc (strict, `bundler` resolution; "@idlc/runtime" is the runtime's build,
    which the page's import map serves)."""
    subprocess.run(
        [
            sys.executable, "-m", "idlc", "generate",
            *map(str, sorted((REPO / "idl" / "quixos").glob("*.idl"))),
            "--target", "typescript", "--out", str(folder), "--package", "quixos_agent",
        ],
        check=True, capture_output=True, timeout=TIMEOUT, cwd=REPO,
    )  # fmt: skip
    for name in ("studio.ts", "index.html"):
        shutil.copy(STUDIO / name, folder / name)
    (folder / "tsconfig.json").write_text(
        json.dumps(
            {
                "compilerOptions": {
                    "target": "ES2022",
                    "lib": ["ES2022", "DOM"],
                    "module": "ES2022",
                    "moduleResolution": "bundler",
                    "strict": True,
                    "outDir": "site",
                    "rootDir": ".",
                    "paths": {"@idlc/runtime": [str(RUNTIME_TS / "dist" / "index.d.ts")]},
                },
                "include": ["studio.ts", "quixos_agent"],
            }
        )
    )
    tsc = RUNTIME_TS / "node_modules" / ".bin" / "tsc"
    done = subprocess.run(
        [str(tsc), "-p", str(folder)], capture_output=True, text=True, timeout=TIMEOUT
    )
    assert done.returncode == 0, done.stdout + done.stderr
    site = folder / "site"
    shutil.copy(folder / "index.html", site / "index.html")
    shutil.copytree(RUNTIME_TS / "dist", site / "runtime")


@contextlib.contextmanager
def _static_server(root: Path) -> Iterator[str]:
    """The page's origin: a static HTTP server on 127.0.0.1, in a thread of the test."""
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
    }

    def log_message(self, format: str, *args: object) -> None:
        pass


def _quixos_server(origin: str) -> contextlib.AbstractContextManager[str]:
    """`examples/quixos_server.py --listen` admitting the page's origin; its URL."""
    return listening(
        sys.executable, str(REPO / "examples" / "quixos_server.py"),
        "--listen", "127.0.0.1:0", "--allow-origin", origin,
    )  # fmt: skip


@contextlib.contextmanager
def _browser(chromium: str, profile: Path) -> Iterator[str]:
    """Headless Chromium with the DevTools protocol on a port of its choosing; yields the
    browser's DevTools HTTP address. The flags keep it from reaching for the network."""
    process = subprocess.Popen(
        [
            chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", f"--user-data-dir={profile}", "--remote-debugging-port=0",
            "--remote-debugging-address=127.0.0.1", "about:blank",
        ],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stderr is not None
        # Chromium says where DevTools listens on stderr, once it does.
        for line in process.stderr:
            if line.startswith("DevTools listening on "):
                url = line.removeprefix("DevTools listening on ").strip()
                break
        else:
            raise AssertionError("Chromium exited without opening DevTools")
        # ws://127.0.0.1:PORT/devtools/browser/… → the HTTP side of the same port
        yield "http://" + url.split("/")[2]
    finally:
        process.terminate()
        try:
            process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class _Tab:
    """One tab over the DevTools protocol: commands by id, events by name."""

    def __init__(self, socket: websockets.ClientConnection) -> None:
        self.socket = socket
        self.last_id = 0
        self.events: list[dict[str, object]] = []

    async def command(self, method: str, **params: object) -> dict[str, object]:
        self.last_id += 1
        sent = self.last_id
        await self.socket.send(json.dumps({"id": sent, "method": method, "params": params}))
        while True:
            message = json.loads(await self.socket.recv())
            if message.get("id") == sent:
                assert "error" not in message, message
                result: dict[str, object] = message["result"]
                return result
            self.events.append(message)

    async def event(self, method: str) -> None:
        while not any(event.get("method") == method for event in self.events):
            self.events.append(json.loads(await self.socket.recv()))

    async def evaluate(self, expression: str) -> object:
        """The value of `expression` in the page, a promise awaited."""
        answer = await self.command(
            "Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True
        )
        assert "exceptionDetails" not in answer, answer
        result = answer["result"]
        assert isinstance(result, dict)
        return result.get("value")


async def _page_result(devtools: str, page_url: str) -> tuple[str, str]:
    """Opens `page_url` in a new tab; what `window.studioDone` resolves to (checked to be
    what the page shows) and the state the page says (`done` or `failed`)."""
    request = urllib.request.Request(f"{devtools}/json/new?about:blank", method="PUT")
    with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
        target = json.load(answer)
    async with websockets.connect(target["webSocketDebuggerUrl"], max_size=None) as socket:
        tab = _Tab(socket)
        await tab.command("Page.enable")
        await tab.command("Page.navigate", url=page_url)
        # A module script runs before the load event: by then `studioDone` exists.
        await tab.event("Page.loadEventFired")
        value = await tab.evaluate("window.studioDone")
        shown = await tab.evaluate(
            "[document.getElementById('result').textContent,"
            " document.getElementById('result').dataset.state]"
        )
        assert isinstance(value, str) and isinstance(shown, list)
        assert shown[0] == value, (shown, value)  # what the page shows is what it resolved
        return value, str(shown[1])


def test_a_browser_calls_the_python_server_through_the_generated_client(tmp_path: Path) -> None:
    require_runtime()
    chromium = _chromium()
    _build_page(tmp_path / "page")
    with _static_server(tmp_path / "page" / "site") as origin:
        with _quixos_server(origin) as server, _browser(chromium, tmp_path / "profile") as cdp:
            page = f"{origin}/index.html?server={server}"
            shown, state = asyncio.run(asyncio.wait_for(_page_result(cdp, page), TIMEOUT))
    assert state == "done", shown
    assert shown.splitlines() == [
        "default agent: agent-1",
        "admitted: true",
        "request text: Show me the studio",  # through `$target`: the request's own object
        "request sequence: bigint 1",  # a uint64 is a bigint in TypeScript
        "pending: 1",
        "refused: 4004",  # the server's own error code, as an RpcError in the page
    ]


def test_an_origin_the_server_does_not_admit_gets_no_answer(tmp_path: Path) -> None:
    """The same page from an origin not on the server's list: the browser's upgrade is
    refused (docs/web.md), and the page says the connection failed."""
    require_runtime()
    chromium = _chromium()
    _build_page(tmp_path / "page")
    with _static_server(tmp_path / "page" / "site") as origin:
        with _quixos_server("https://studio.example") as server:
            with _browser(chromium, tmp_path / "profile") as cdp:
                page = f"{origin}/index.html?server={server}"
                shown, state = asyncio.run(asyncio.wait_for(_page_result(cdp, page), TIMEOUT))
    assert state == "failed"
    assert shown.startswith("error: ConnectionClosed: "), shown
