"""What the browser tests (tests/test_playground.py, tests/test_walk_browser.py) and the
playground's benchmark (benchmarks/playground.py) share: the built site served on 127.0.0.1 from a thread, and
Debian's headless Chromium driven by selenium, started as this machine needs it.

The server is also the browser's proxy (``--proxy-server`` with ``--proxy-bypass-list=<-loopback>``,
so that not even 127.0.0.1 bypasses it): every request the browser makes, from the page, its
worker, its service worker or Chromium itself, reaches it and is recorded in
``server.requests`` as (method, host, path). Requests for any host but the site's own are
refused (403), never forwarded. Chromium itself asks for its own services even with
--disable-background-networking (its updater, Google's time and account services, the start
page of Debian's default search engine): those hosts (``CHROMIUM_SERVICES``) are set apart from
what the page asked for. Not part of the site.
"""

from __future__ import annotations

import contextlib
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
DIST = HERE / "dist"
# As .library's python.md says Chromium runs here: no sandbox (root), no GPU, and nothing
# that reaches for the network by itself.
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--window-size=1400,1000",
)

# Hosts that Chromium reaches for on its own, whatever page is open (seen with Chromium 156:
# update.googleapis.com, clients2.google.com, accounts.google.com,
# content-autofill.googleapis.com, start.duckduckgo.com). Refused like any other.
CHROMIUM_SERVICES = ("google.com", "googleapis.com", "gstatic.com", "duckduckgo.com")


def _chromium_service(host: str) -> bool:
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    return any(name == domain or name.endswith("." + domain) for domain in CHROMIUM_SERVICES)


class SiteServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.requests: list[tuple[str, str, str]] = []
        self.bytes_sent = 0
        self.lock = threading.Lock()
        self.offline = False  # True: every request is refused (503), as with no network
        super().__init__(("127.0.0.1", 0), _Handler)

    @property
    def origin(self) -> str:
        return f"127.0.0.1:{self.server_address[1]}"

    @property
    def url(self) -> str:
        return f"http://{self.origin}/"

    def foreign(self) -> list[tuple[str, str, str]]:
        """The requests for anything but this site, except Chromium's own services."""
        with self.lock:
            return [r for r in self.requests if r[1] != self.origin and not _chromium_service(r[1])]


class _Handler(SimpleHTTPRequestHandler):
    server: SiteServer

    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=str(args[2].folder), **kwargs)

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        target = self.path
        if self.command == "CONNECT":
            host, path = target, ""
        elif "://" in target:  # asked as a proxy: an absolute URL
            parts = urlsplit(target)
            host = parts.netloc
            path = parts.path + (f"?{parts.query}" if parts.query else "")
            self.path = path or "/"
        else:
            host, path = self.headers.get("Host", ""), target
        with self.server.lock:
            self.server.requests.append((self.command, host, path))
        refusal = None
        if host != self.server.origin:
            refusal = (403, "this test server serves only its own site")
        elif self.server.offline:
            refusal = (503, "offline")
        if refusal is None:
            return True
        try:
            self.send_error(*refusal)
        except OSError:  # the browser gave up on it first
            pass
        return False

    def copyfile(self, source, outputfile) -> None:
        data = source.read()
        with self.server.lock:
            self.server.bytes_sent += len(data)
        outputfile.write(data)

    def log_message(self, format, *args) -> None:  # quiet
        pass


@contextlib.contextmanager
def serve(folder: Path = DIST):
    server = SiteServer(folder)
    thread = threading.Thread(target=server.serve_forever, name="playground-server", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def browser_paths() -> tuple[str | None, str | None]:
    return shutil.which("chromium") or shutil.which("chromium-browser"), shutil.which("chromedriver")


def chromium(profile: Path, server: SiteServer | None = None, *, performance_log: bool = True):
    """A selenium Chrome session of Debian's Chromium with a fresh profile in ``profile``;
    with ``server``, every request goes through it (see the module's docstring)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver = browser_paths()
    if binary is None or driver is None:
        raise RuntimeError("chromium and chromedriver are needed (Debian's chromium and chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    if server is not None:
        options.add_argument(f"--proxy-server=http://{server.origin}")
        options.add_argument("--proxy-bypass-list=<-loopback>")
    logs = {"browser": "ALL"}
    if performance_log:
        logs["performance"] = "ALL"
    options.set_capability("goog:loggingPrefs", logs)
    return webdriver.Chrome(service=Service(driver), options=options)
