"""A Server-Sent Events server for Konex's streaming tests and benchmark (Starlette + sse-starlette + uvicorn).

Endpoints (all GET):
  /events?n=5&gap_ms=50          n events (id 1…n, data {"n": i}) with a gap between them, then the end
  /first-then-wait?wait_ms=1000&n=5
                                 one event at once, then nothing for wait_ms, then the rest
  /reconnect?last=5              events with retry: 100, two per connection, resuming after Last-Event-ID;
                                 once `last` has been sent, answers 204 (no more reconnections)
  /unauthorized                  401 with a JSON error body
  /forever?gap_ms=20             an event every gap_ms until the client leaves
  /stats                         {"open": streams open now, "closed": streams the client left}
  /bytes?total=52428800&chunk=65536
                                 raw bytes (application/octet-stream) in chunks, as fast as possible
  /many?n=100000                 n small events as fast as possible
  /scripted/{name}?key=K         the SSE contract cases (the facts of LaunchDarkly's sse-contract-tests): each
                                 connection of `key` gets the next raw answer of the scenario `name` (see SCRIPTS),
                                 then 204 once they are used up (GET or POST)
  /scripted-log?key=K            what each connection of `key` sent: method, body, Last-Event-ID (null when absent),
                                 and the request's headers (names in lower case)
  POST /replay                   {"pieces": [base64…], "hold": bool}: each piece written as it is, 10 ms apart (a
                                 byte order mark cut between writes, a CR ending one write and its LF starting the
                                 next); with hold, the connection then stays open and silent for 60 s

The posts API of Playgrounds/OpenAPIExample/openapi.yaml, for the generated client's tests:
  GET  /posts                    two posts, cacheable for 60 s (each answer counts in /stats as "posts_served")
  GET  /posts/{id}               post 1 or 2, else 404 {"error": "no such post"}
  POST /posts                    201 with the new post for `Authorization: Bearer fresh`, else 401 {"error": "expired"}
"""
import asyncio
import base64
import json
import sys

import uvicorn
from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

stats = {"open": 0, "closed": 0, "posts_served": 0}
POSTS = [{"id": 1, "title": "Hello"}, {"id": 2, "title": "Konex"}]
NO_PING = 3600  # sse-starlette pings every 15 s by default; the tests count every byte


def tracked(generator):
    async def wrapper():
        stats["open"] += 1
        try:
            async for item in generator:
                yield item
        finally:
            stats["open"] -= 1
            stats["closed"] += 1
    return wrapper()


async def events(request: Request):
    n = int(request.query_params.get("n", "5"))
    gap = int(request.query_params.get("gap_ms", "50")) / 1000

    async def generate():
        for i in range(1, n + 1):
            yield {"id": str(i), "data": json.dumps({"n": i})}
            if i < n:
                await asyncio.sleep(gap)
    return EventSourceResponse(tracked(generate()), ping=NO_PING)


async def first_then_wait(request: Request):
    wait = int(request.query_params.get("wait_ms", "1000")) / 1000
    n = int(request.query_params.get("n", "5"))

    async def generate():
        yield {"id": "1", "data": "first"}
        await asyncio.sleep(wait)
        for i in range(2, n + 1):
            yield {"id": str(i), "data": f"event {i}"}
    return EventSourceResponse(tracked(generate()), ping=NO_PING)


async def reconnect(request: Request):
    last = int(request.query_params.get("last", "5"))
    after = int(request.headers.get("last-event-id", "0") or "0")
    if after >= last:
        return Response(status_code=204)

    async def generate():
        for i in range(after + 1, min(after + 2, last) + 1):
            yield {"id": str(i), "data": f"event {i}", "retry": 100}
    return EventSourceResponse(tracked(generate()), ping=NO_PING)


async def unauthorized(request: Request):
    return JSONResponse({"error": "missing token"}, status_code=401)


async def forever(request: Request):
    gap = int(request.query_params.get("gap_ms", "20")) / 1000

    async def generate():
        i = 0
        while True:
            i += 1
            yield {"id": str(i), "data": f"tick {i}"}
            await asyncio.sleep(gap)
    return EventSourceResponse(tracked(generate()), ping=NO_PING)


async def stats_endpoint(request: Request):
    return JSONResponse(stats)


async def raw_bytes(request: Request):
    total = int(request.query_params.get("total", str(50 << 20)))
    chunk = int(request.query_params.get("chunk", "65536"))
    block = b"k" * chunk

    async def generate():
        sent = 0
        while sent < total:
            size = min(chunk, total - sent)
            yield block if size == chunk else block[:size]
            sent += size
    return StreamingResponse(generate(), media_type="application/octet-stream",
                             headers={"Content-Length": str(total)})


async def sink(request: Request):
    # Reads an upload slowly (a millisecond a piece) and answers only once all of it is in: the client's upload
    # progress then has time to move, and cannot be overtaken by an answer sent before the body was read.
    received = 0
    async for piece in request.stream():
        received += len(piece)
        await asyncio.sleep(0.001)
    return JSONResponse({"received": received})


async def echo_slowly(request: Request):
    # The sink's slow reading, then the whole body back: progress both ways over time, the answer after the upload.
    pieces = []
    async for piece in request.stream():
        pieces.append(piece)
        await asyncio.sleep(0.001)
    return Response(b"".join(pieces), media_type="application/octet-stream")


async def many(request: Request):
    n = int(request.query_params.get("n", "100000"))

    async def generate():
        # Written in batches of raw text: sse-starlette's per-event path would make Python the bottleneck.
        batch = []
        for i in range(1, n + 1):
            batch.append(f"id: {i}\ndata: {{\"n\": {i}, \"text\": \"token token token\"}}\n\n")
            if len(batch) == 500:
                yield "".join(batch)
                batch = []
        if batch:
            yield "".join(batch)
    return StreamingResponse(tracked(generate()), media_type="text/event-stream")


# Raw answers, one per connection, in order; None keeps the connection open and silent (a server gone quiet).
SCRIPTS = {
    # An event cut short by the end of its connection is never dispatched; the reconnection resumes after id 1.
    "partial": ["id: 1\ndata: one\n\ndata: partial", "data: two\n\n"],
    # The last event ID is the last one an event set; an event without `id` keeps it; an empty `id` clears it.
    "ids": ["id: a\ndata: 1\n\ndata: 2\n\n", "id\ndata: 3\n\n", "data: 4\n\n"],
    # The request's method and body go again on every reconnection.
    "body": ["data: x\n\n", "data: y\n\n"],
    # A byte order mark (only at the start), comments, and CR, LF and CRLF line ends, mixed.
    "lines": ["\ufeffdata: a\r\r: a comment\ndata: b\r\n\r\ndata: c\ndata: d\n\n:\n\ndata:  two spaces\r\rdata\n\n"],
    # A connection that goes silent after one event: the client's idle timeout reconnects.
    "stall": ["id: 1\ndata: one\n\n" + "\0", "data: two\n\n"],
    # One event, then 204: what a request sent, read from the log.
    "once": ["data: x\n\n"],
    # `retry:` sets the wait before the next connection; a huge value is held to the client's own bound.
    "retry": ["retry: 300\ndata: one\n\n", "retry: 99999999999\ndata: two\n\n", "data: three\n\n"],
}
scripted_log = {}


async def scripted(request: Request):
    name, key = request.path_params["name"], request.query_params.get("key", "")
    log = scripted_log.setdefault(key, [])
    body = (await request.body()).decode("utf-8", "replace")
    log.append({"method": request.method, "body": body, "last_event_id": request.headers.get("last-event-id"),
                "at": asyncio.get_running_loop().time(), "headers": {k.lower(): v for k, v in request.headers.items()}})
    answers = SCRIPTS[name]
    if len(log) > len(answers):
        return Response(status_code=204)
    answer = answers[len(log) - 1]

    async def generate():
        if answer.endswith("\0"):  # send the rest, then stay open and silent
            yield answer[:-1].encode()
            await asyncio.sleep(120)
        else:
            yield answer.encode()
    return StreamingResponse(tracked(generate()), media_type="text/event-stream")


async def replay(request: Request):
    spec = await request.json()
    pieces = [base64.b64decode(piece) for piece in spec["pieces"]]

    async def generate():
        for piece in pieces:
            yield piece
            await asyncio.sleep(0.01)
        if spec.get("hold"):
            await asyncio.sleep(60)
    # Not counted in /stats: a streaming test counts the streams it leaves, and these run beside it.
    return StreamingResponse(generate(), media_type="text/event-stream")


async def scripted_log_endpoint(request: Request):
    return JSONResponse(scripted_log.get(request.query_params.get("key", ""), []))


async def list_posts(request: Request):
    stats["posts_served"] += 1
    return JSONResponse(POSTS, headers={"Cache-Control": "max-age=60"})


async def get_post(request: Request):
    post = next((p for p in POSTS if str(p["id"]) == request.path_params["id"]), None)
    return JSONResponse(post) if post else JSONResponse({"error": "no such post"}, status_code=404)


async def create_post(request: Request):
    if request.headers.get("authorization") != "Bearer fresh":
        return JSONResponse({"error": "expired"}, status_code=401)
    body = await request.json()
    return JSONResponse({"id": 3, "title": body.get("title", "")}, status_code=201)


app = Starlette(routes=[
    Route("/posts", list_posts, methods=["GET"]), Route("/posts", create_post, methods=["POST"]),
    Route("/posts/{id}", get_post),
    Route("/events", events), Route("/first-then-wait", first_then_wait), Route("/reconnect", reconnect),
    Route("/unauthorized", unauthorized), Route("/forever", forever), Route("/stats", stats_endpoint),
    Route("/bytes", raw_bytes), Route("/sink", sink, methods=["PUT", "POST"]),
    Route("/echo-slowly", echo_slowly, methods=["POST"]), Route("/many", many),
    Route("/scripted/{name}", scripted, methods=["GET", "POST", "REPORT"]),
    Route("/scripted-log", scripted_log_endpoint), Route("/replay", replay, methods=["POST"]),
])

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
