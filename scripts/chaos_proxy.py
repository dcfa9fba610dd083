"""A fault-injecting HTTP/1.1 proxy for Konex's chaos soak (asyncio, standard library only).

  python3 chaos_proxy.py LISTEN_PORT UPSTREAM_URL SEED

Each request is forwarded to the upstream (httpbin), then answered — or not — as a seeded draw decides:
  none             the upstream response, unchanged
  reset_head       the connection is reset before any byte of the response
  reset_body       the head and half the body, then a reset
  latency          the response after a 200-600 ms pause
  stall            the head and part of the body, then silence (until the client gives up)
  truncated        the head with the true Content-Length and a shorter body, then the connection closes
  status_503       503 with Retry-After: 0, without asking the upstream
  duplicate_header the response with a header repeated
The draw is a function of (seed, X-Chaos-Id, attempt), so a run replays. GET /__chaos/log returns, per X-Chaos-Id,
the faults of each attempt in order.
"""
import asyncio
import json
import random
import sys
import urllib.parse

FAULTS = ["none"] * 20 + ["reset_head", "reset_body", "latency", "stall", "truncated", "status_503", "duplicate_header"]

log = {}


async def read_message(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    body = await reader.readexactly(length) if length else b""
    return head, body


def header(head, name):
    for line in head.split(b"\r\n")[1:]:
        key, _, value = line.partition(b":")
        if key.strip().lower() == name:
            return value.strip().decode()
    return None


async def upstream_exchange(host, port, head, body):
    reader, writer = await asyncio.open_connection(host, port)
    lines = head.split(b"\r\n")
    kept = [l for l in lines[1:] if l and not l.lower().startswith((b"connection:", b"host:", b"accept-encoding:"))]
    request = b"\r\n".join([lines[0]] + kept + [f"Host: {host}:{port}".encode(), b"Connection: close", b"", b""])
    writer.write(request + body)
    await writer.drain()
    response_head, response_body = await read_message(reader)
    writer.close()
    return response_head, response_body


def without_hop_headers(response_head):
    lines = response_head.split(b"\r\n")
    kept = [l for l in lines[1:] if l and not l.lower().startswith((b"connection:", b"keep-alive:"))]
    return b"\r\n".join([lines[0]] + kept + [b"Connection: keep-alive", b"", b""])


async def handle(reader, writer, upstream, seed):
    host, port = upstream
    try:
        while True:
            try:
                head, body = await read_message(reader)
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            path = head.split(b" ")[1].decode()
            if path == "/__chaos/log":
                data = json.dumps(log).encode()
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(data) + data)
                await writer.drain()
                continue
            chaos_id = header(head, b"x-chaos-id") or "-"
            attempts = log.setdefault(chaos_id, [])
            fault = random.Random(f"{seed}/{chaos_id}/{len(attempts)}").choice(FAULTS)
            attempts.append(fault)
            if fault == "status_503":
                writer.write(b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 0\r\nContent-Length: 0\r\n\r\n")
                await writer.drain()
                continue
            if fault == "reset_head":
                writer.transport.abort()
                return
            response_head, response_body = await upstream_exchange(host, port, head, body)
            response_head = without_hop_headers(response_head)
            if fault == "duplicate_header":
                response_head = response_head.replace(b"\r\n\r\n", b"\r\nX-Chaos: one\r\nX-Chaos: two\r\n\r\n")
            if fault == "latency":
                await asyncio.sleep(random.Random(f"{seed}/{chaos_id}/pause").uniform(0.2, 0.6))
            if fault in ("reset_body", "stall", "truncated"):
                cut = max(1, len(response_body) // 2)
                writer.write(response_head + response_body[:cut])
                await writer.drain()
                if fault == "stall":
                    await asyncio.sleep(30)
                if fault == "truncated":
                    writer.close()
                else:
                    writer.transport.abort()
                return
            writer.write(response_head + response_body)
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        if not writer.is_closing():
            writer.close()


async def main():
    listen_port = int(sys.argv[1])
    upstream = urllib.parse.urlparse(sys.argv[2])
    seed = sys.argv[3]
    server = await asyncio.start_server(
        lambda r, w: handle(r, w, (upstream.hostname, upstream.port), seed), "127.0.0.1", listen_port)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
