"""The WebSocket test server for Konex's integration suite (python-websockets, pinned in requirements-ws.txt).

Paths: /echo (every message back), /auth (401 unless "Authorization: Bearer fresh", then echo), /chat (a welcome,
then each message back prefixed), /slow-reader (500 messages of 1 KiB at once, then a close), /close-1011 ("bye",
then close 1011 "restarting"), /fragmented (one text message in three fragments with a ping between them),
/too-big (one 2 MiB binary message), /stats?id=ID (JSON: how the connection with ?id=ID ended: the client's close
code, from the server's side), /flood?id=ID&count=N&size=S (N numbered binary messages of S bytes as fast as the
client takes them; /progress?id=ID says how many went out, so a test sees back pressure), /bad-utf8 (a text frame that
is not UTF-8), /reserved-bit (a frame with RSV1 set and no extension), /deaf ("ready", then it stops reading: a close
from the client is never answered), /bomb (64 MiB of zeros in one message: a few KiB on the wire when the client
agreed to permessage-deflate, which python-websockets offers by default), /raw?hex=BYTES (those bytes written as they are
after the handshake, past the protocol layer: frames no well-behaved server sends; then every message back).
python-websockets refuses client frames that are not masked (RFC 6455 §5.1), so every
exchange that succeeds here also proves the client masked its frames.
"""
import asyncio
import json
import ssl
import sys
from http import HTTPStatus
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import serve
from websockets.frames import Frame, Opcode

ended = {}  # connection id -> {"code": int | None, "reason": str}
progress = {}  # connection id -> messages /flood has sent


def query(path):
    return {k: v[0] for k, v in parse_qs(urlsplit(path).query).items()}


async def process_request(connection, request):
    path = urlsplit(request.path).path
    if path == "/stats":
        info = ended.get(query(request.path).get("id", ""), {})
        response = connection.respond(HTTPStatus.OK, json.dumps(info) + "\n")
        response.headers["Content-Type"] = "application/json"
        return response
    if path == "/progress":
        sent = progress.get(query(request.path).get("id", ""), 0)
        response = connection.respond(HTTPStatus.OK, json.dumps({"sent": sent}) + "\n")
        response.headers["Content-Type"] = "application/json"
        return response
    if path == "/health":
        return connection.respond(HTTPStatus.OK, "ok\n")
    if path == "/auth" and request.headers.get("Authorization") != "Bearer fresh":
        return connection.respond(HTTPStatus.UNAUTHORIZED, "token expired\n")
    return None


async def handler(ws):
    path = urlsplit(ws.request.path).path
    conn_id = query(ws.request.path).get("id")
    try:
        if path in ("/echo", "/auth"):
            async for message in ws:
                await ws.send(message)
        elif path == "/chat":
            await ws.send("welcome")
            async for message in ws:
                await ws.send(f"you said: {message}")
        elif path == "/slow-reader":
            for i in range(500):
                await ws.send(f"{i:04d}" + "x" * 1020)
            await ws.close(1000, "done")
        elif path == "/close-1011":
            await ws.send("bye")
            await ws.close(1011, "restarting")
        elif path == "/fragmented":
            async def fragments():
                yield "frag"
                await ws.ping()
                yield "mented "
                yield "message"
            await ws.send(fragments())
            async for message in ws:
                await ws.send(message)
        elif path == "/flood":
            args = query(ws.request.path)
            count, size = int(args.get("count", "100")), int(args.get("size", "1024"))
            for i in range(count):
                # send() waits while the socket's buffer is full: a client that stops reading holds this loop.
                await ws.send(i.to_bytes(4, "big") + b"\x00" * (size - 4))
                if conn_id:
                    progress[conn_id] = i + 1
            await ws.close(1000, "flooded")
        elif path == "/bad-utf8":
            async with ws.send_context():
                ws.protocol.send_text(b"caf\xc3")  # the first byte of "é" and nothing after it
            async for message in ws:
                pass
        elif path == "/reserved-bit":
            # Written past the protocol layer, which refuses to serialise a reserved bit: FIN | RSV1 | text, 11 bytes.
            ws.transport.write(b"\xc1\x0bcompressed?")
            async for message in ws:
                pass
        elif path == "/deaf":
            await ws.send("ready")
            ws.transport.pause_reading()  # the client's close frame is never read, so never answered
            await asyncio.sleep(10)
            ws.transport.abort()
        elif path == "/raw":
            ws.transport.write(bytes.fromhex(query(ws.request.path).get("hex", "")))
            async for message in ws:
                await ws.send(message)
        elif path == "/bomb":
            await ws.send(b"\x00" * (64 << 20))
            async for message in ws:
                pass
        elif path == "/too-big":
            await ws.send(b"\x00" * (2 << 20))
            async for message in ws:
                pass
        else:
            await ws.close(1008, "unknown path")
    except Exception:
        pass
    finally:
        if conn_id:
            ended[conn_id] = {"code": ws.close_code, "reason": ws.close_reason or ""}


async def main(port, tls_port=None, cert=None, key=None):
    async with serve(handler, "127.0.0.1", port, process_request=process_request, max_size=8 << 20):
        if tls_port is None:
            await asyncio.Future()
        # The same endpoints over TLS (wss), with the certificate scripts/ws-server made for this run.
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        async with serve(handler, "127.0.0.1", tls_port, process_request=process_request, max_size=8 << 20,
                         ssl=context):
            await asyncio.Future()


if __name__ == "__main__":
    if len(sys.argv) == 5:
        asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]))
    else:
        asyncio.run(main(int(sys.argv[1])))
