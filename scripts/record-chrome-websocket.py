"""Records a real Chrome WebSocket session into a HAR file, in Chrome DevTools' own format (`_resourceType`,
`_webSocketMessages` with type, time, opcode, data), for KonexTesting's replay test.

Headless Chromium opens a page that talks to scripts/ws_server.py's /chat; the frames are Chrome's own, read over the
DevTools protocol (Network.webSocket* events) and written as DevTools' HAR exporter writes them. Run once by hand and
commit the result (it is not run in CI):

    eval "$(scripts/ws-server --env)"
    .venv/bin/python scripts/record-chrome-websocket.py "$KONEX_WS_URL" \
        Tests/KonexTestingTests/Fixtures/websocket/chrome-chat.har
"""
import asyncio
import datetime
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
    else { ws.close(1000, "done"); setTimeout(() => resolve(got), 200); }
  };
})
"""


async def record(ws_url, output):
    port = free_port()
    profile = tempfile.mkdtemp()
    browser = subprocess.Popen(
        ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", f"--remote-debugging-port={port}",
         f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=1))
                version = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=1))
                page = next(t for t in targets if t["type"] == "page")
                break
            except Exception:
                time.sleep(0.1)
        else:
            raise SystemExit("chromium did not start")
        events = []
        async with connect(page["webSocketDebuggerUrl"], max_size=None) as cdp:
            ids = iter(range(1, 1000))

            async def call(method, params=None):
                call_id = next(ids)
                await cdp.send(json.dumps({"id": call_id, "method": method, "params": params or {}}))
                while True:
                    message = json.loads(await cdp.recv())
                    if message.get("id") == call_id:
                        return message
                    if message.get("method", "").startswith("Network.webSocket"):
                        events.append(message)

            await call("Network.enable")
            result = await call("Runtime.evaluate", {
                "expression": PAGE_SCRIPT % json.dumps(ws_url), "awaitPromise": True, "returnByValue": True})
            if "exceptionDetails" in result.get("result", {}):
                raise SystemExit(f"the page failed: {result}")
        write_har(events, version.get("Browser", "Chrome"), output)
    finally:
        browser.terminate()
        browser.wait()


def write_har(events, browser, output):
    by_kind = {}
    for event in events:
        by_kind.setdefault(event["method"], []).append(event["params"])
    handshake = by_kind["Network.webSocketWillSendHandshakeRequest"][0]
    answer = by_kind["Network.webSocketHandshakeResponseReceived"][0]
    created = by_kind["Network.webSocketCreated"][0]
    wall, base = handshake["wallTime"], handshake["timestamp"]  # DevTools turns monotonic times into wall times so
    frames = sorted(
        [("send", e) for e in by_kind.get("Network.webSocketFrameSent", [])]
        + [("receive", e) for e in by_kind.get("Network.webSocketFrameReceived", [])],
        key=lambda pair: pair[1]["timestamp"])
    messages = [{"type": kind, "time": wall + (e["timestamp"] - base), "opcode": e["response"]["opcode"],
                 "data": e["response"]["payloadData"]} for kind, e in frames]
    headers = lambda fields: [{"name": k, "value": v} for k, v in fields.items()]
    started = datetime.datetime.fromtimestamp(wall, datetime.timezone.utc).isoformat(timespec="milliseconds")
    entry = {
        "startedDateTime": started.replace("+00:00", "Z"),
        "time": (frames[-1][1]["timestamp"] - base) * 1000 if frames else 0,
        "request": {"method": "GET", "url": created["url"], "httpVersion": "HTTP/1.1", "headers":
                    headers(handshake["request"]["headers"]), "queryString": [], "cookies": [], "headersSize": -1,
                    "bodySize": 0},
        "response": {"status": answer["response"]["status"], "statusText": answer["response"]["statusText"],
                     "httpVersion": "HTTP/1.1", "headers": headers(answer["response"]["headers"]), "cookies": [],
                     "content": {"size": 0, "mimeType": "x-unknown"}, "redirectURL": "", "headersSize": -1,
                     "bodySize": 0, "_transferSize": 0, "_error": None},
        "serverIPAddress": "127.0.0.1", "cache": {}, "timings": {"blocked": -1, "dns": -1, "ssl": -1, "connect": -1,
                                                               "send": 0, "wait": 0, "receive": 0},
        "_resourceType": "websocket",
        "_webSocketMessages": messages,
    }
    har = {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
                   "browser": {"name": browser}, "pages": [], "entries": [entry]}}
    with open(output, "w") as f:
        json.dump(har, f, indent=2)
        f.write("\n")
    print(f"{output}: {len(messages)} messages recorded by {browser}")


if __name__ == "__main__":
    base = sys.argv[1].replace("http://", "ws://").rstrip("/")
    asyncio.run(record(base + "/chat", sys.argv[2]))
