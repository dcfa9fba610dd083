"""Records a real Chrome WebSocket session into a HAR file written by Chrome DevTools itself, for KonexTesting's
replay test.

Headless Chromium opens DevTools' own front end (devtools://devtools/bundled/devtools_app.html) attached to a blank
page; the page talks to scripts/ws_server.py's /chat; then the front end's HAR writer (HAR.Writer.Writer.write, the
function the Network panel's "Export HAR" runs) writes every request DevTools logged. Nothing of the HAR is written
here: the bytes are DevTools'. Run once by hand and commit the result (it is not run in CI):

    eval "$(scripts/ws-server --env)"
    .venv/bin/python scripts/record-chrome-websocket.py "$KONEX_WS_URL" \
        Tests/KonexTestingTests/Fixtures/websocket/chrome-chat.har
"""
import asyncio
import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from websockets.asyncio.client import connect


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# What the page does: three messages from the server, a text and a binary one from Chrome, a clean close.
PAGE_SCRIPT = """
new Promise((resolve, reject) => {
  const ws = new WebSocket(%s);
  ws.binaryType = "arraybuffer";
  const got = [];
  ws.onerror = () => reject("websocket error");
  ws.onmessage = (event) => {
    got.push(typeof event.data === "string" ? event.data : "binary");
    if (got.length === 1) ws.send("hello from chrome");
    else if (got.length === 2) ws.send(new Uint8Array([1, 2, 3, 255]).buffer);
    else { ws.close(1000, "done"); setTimeout(() => resolve(got.length), 200); }
  };
})
"""

# Run inside DevTools' front end: the page runs PAGE_SCRIPT through the front end's own connection, then DevTools'
# HAR writer writes what its network log holds, sanitized as the panel's default export is.
EXPORT_SCRIPT = """
(async () => {
  const SDK = await import('./core/sdk/sdk.js');
  const HAR = await import('./models/har/har.js');
  const Logs = await import('./models/logs/logs.js');
  const targets = SDK.TargetManager.TargetManager.instance();
  for (let i = 0; i < 100 && !targets.primaryPageTarget(); i++) await new Promise(r => setTimeout(r, 100));
  const page = targets.primaryPageTarget();
  if (!page) throw new Error("DevTools never attached to the page");
  const ran = await page.runtimeAgent().invoke_evaluate({expression: %s, awaitPromise: true, returnByValue: true});
  if (ran.exceptionDetails) throw new Error("the page failed: " + JSON.stringify(ran.exceptionDetails));
  await new Promise(r => setTimeout(r, 300));
  let text = "";
  const stream = {write: async (chunk) => { text += chunk; }, close: async () => {}};
  const progress = {setTotalWork() {}, setWorked() {}, incrementWorked() {}, setTitle() {}, done() {},
                    canceled: false, totalWork: 0, worked: 0, title: ""};
  await HAR.Writer.Writer.write(stream, Logs.NetworkLog.NetworkLog.instance().requests(), {sanitize: true}, progress);
  return text;
})()
"""


async def call(ws, method, **params):
    await ws.send(json.dumps({"id": 1, "method": method, "params": params}))
    while True:
        message = json.loads(await ws.recv())
        if message.get("id") == 1:
            return message


async def record(ws_url, output):
    port = free_port()
    profile = tempfile.mkdtemp()
    # --remote-allow-origins: the front end is a page too, and Chrome refuses DevTools connections from pages otherwise.
    browser = subprocess.Popen(
        ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-allow-origins=*",
         f"--remote-debugging-port={port}", f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def get(path):
        return json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2))

    try:
        for _ in range(100):
            try:
                page = next(t for t in get("/json/list") if t["type"] == "page")
                version = get("/json/version")
                break
            except Exception:
                time.sleep(0.1)
        else:
            raise SystemExit("chromium did not start")
        front_end = f"devtools://devtools/bundled/devtools_app.html?ws=127.0.0.1:{port}/devtools/page/{page['id']}"
        async with connect(version["webSocketDebuggerUrl"], max_size=None) as browser_cdp:
            await call(browser_cdp, "Target.createTarget", url=front_end)
        for _ in range(100):
            devtools = [t for t in get("/json/list") if t["url"].startswith("devtools://")]
            if devtools:
                break
            time.sleep(0.1)
        async with connect(devtools[0]["webSocketDebuggerUrl"], max_size=None) as cdp:
            expression = EXPORT_SCRIPT % json.dumps(PAGE_SCRIPT % json.dumps(ws_url))
            result = await call(cdp, "Runtime.evaluate", expression=expression, awaitPromise=True,
                                returnByValue=True)
        if "exceptionDetails" in result.get("result", {}):
            raise SystemExit(f"DevTools failed: {result}")
        har = result["result"]["result"]["value"]
        entries = json.loads(har)["log"]["entries"]
        if not any(e.get("_webSocketMessages") for e in entries):
            raise SystemExit(f"DevTools' HAR has no WebSocket messages: {har[:500]}")
        with open(output, "w") as f:
            f.write(har)
        print(f"{output}: written by DevTools' HAR writer in {version.get('Browser', 'Chrome')}")
    finally:
        browser.terminate()
        browser.wait()


if __name__ == "__main__":
    base = sys.argv[1].replace("http://", "ws://").rstrip("/")
    asyncio.run(record(base + "/chat", sys.argv[2]))
